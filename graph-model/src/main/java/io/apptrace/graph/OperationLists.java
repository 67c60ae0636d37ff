package io.apptrace.graph;

/**
 * Operations as lists of the values each reads and writes, by id from 0, and each value's
 * producer: what {@link OperationGraph} draws.
 */
public interface OperationLists {
  /** Operations: ids run from 0 to this, exclusive. */
  int operations();

  /** Values: ids run from 0 to this, exclusive. */
  int values();

  int inputCount(int op);

  /** The value of input {@code k} of {@code op}. */
  int input(int op, int k);

  int outputCount(int op);

  /** The value of output {@code k} of {@code op}. */
  int output(int op, int k);

  /** The operation that wrote {@code value}; -1 for initial contents. */
  int producer(int value);
}
