package io.apptrace.graph;

/**
 * The JGraphT view of a {@link Dvdg} (see {@link OperationGraph}): its values, then a synthetic
 * vertex for each operation without inputs and each without outputs; an edge per (input, output)
 * pair of each operation.
 */
public final class DvdgGraph extends OperationGraph {
  private final Dvdg dvdg;

  DvdgGraph(Dvdg dvdg) {
    super(lists(dvdg));
    this.dvdg = dvdg;
  }

  public Dvdg dvdg() {
    return dvdg;
  }

  /** A graph's operations and values as lists. */
  static OperationLists lists(Dvdg g) {
    OperationTable ops = g.operations();
    ValueTable values = g.values();
    return new OperationLists() {
      @Override
      public int operations() {
        return ops.size();
      }

      @Override
      public int values() {
        return values.size();
      }

      @Override
      public int inputCount(int op) {
        return ops.inputCount(op);
      }

      @Override
      public int input(int op, int k) {
        return ops.input(op, k);
      }

      @Override
      public int outputCount(int op) {
        return ops.outputCount(op);
      }

      @Override
      public int output(int op, int k) {
        return ops.output(op, k);
      }

      @Override
      public int producer(int value) {
        return values.producer(value);
      }
    };
  }
}
