package io.apptrace.graph;

import io.apptrace.util.IntRows;
import java.util.ArrayList;
import java.util.List;

/**
 * The races of a trace (docs/GRAPH.md, "Races"): an operation that reads a version written by an
 * operation on another stream that nothing orders before it ({@link HappensBefore}). Knows, per
 * operation, its stream's index in its process and its number in that stream, kept in primitive
 * arrays (one row per operation) for the graph's millions of operations.
 */
final class RaceFinder {
  private final OperationTable ops;
  private final ValueTable values;
  private final List<Race> races = new ArrayList<>();
  /** Per operation: its stream's index in its process, and its number in that stream. */
  private final IntRows opOrder = new IntRows(2);

  RaceFinder(OperationTable ops, ValueTable values) {
    this.ops = ops;
    this.values = values;
  }

  /**
   * Operation {@code op} (the next one) was issued by thread {@code t} to {@code s} at
   * {@code entryNs}: numbers it in its stream.
   */
  void issued(ThreadState t, HappensBefore.Stream s, long entryNs) {
    int row = opOrder.addRow();
    int[] order = opOrder.chunk(row);
    int at = opOrder.base(row);
    order[at] = s.index;
    order[at + 1] = t.proc.order.issue(t.clock(), s, entryNs);
  }

  /**
   * Operation {@code op}, on {@code s} of process {@code p}, reads value {@code v}: a race when
   * the value's producer is on another stream and {@code s} has not seen it finish.
   */
  void read(ProcessState p, HappensBefore.Stream s, int op, int v, Confidence c) {
    int producer = values.producer(v);
    if (producer >= 0) {
      int[] order = opOrder.chunk(producer);
      int at = opOrder.base(producer);
      if (order[at] != s.index && !p.order.seen(s, order[at], order[at + 1])) {
        races.add(Race.between(ops, producer, op, v, c));
      }
    }
  }

  /** The races found, in the order their reads were made. */
  List<Race> races() {
    return races;
  }
}
