package io.apptrace.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * The CUDA graph launches of a trace (docs/GRAPH.md, "CUDA graphs"): for each, the operations
 * its nodes ran, in an order that respects the graph's edges, and for each of them the
 * operations of the same launch it waits for. A launch is ordered against its stream as one
 * kernel would be: its first nodes after the stream's earlier work, the stream's later work
 * after all of its nodes.
 */
public final class GraphLaunchTable {
  /**
   * One launch.
   *
   * @param exec the executable graph's handle
   * @param ops the operations its nodes ran (graph ids), in an order that respects its edges
   * @param waitsFor per operation of {@code ops}, the operations of this launch it waits for
   */
  public record Launch(long exec, int[] ops, int[][] waitsFor) {}

  private final List<Launch> launches = new ArrayList<>();
  private int executables;
  private int undescribed;

  int add(Launch l) {
    launches.add(l);
    return launches.size() - 1;
  }

  void executables(int n) {
    executables = n;
  }

  void undescribed() {
    undescribed++;
  }

  /** Launches, in the order the program made them. */
  public List<Launch> launches() {
    return java.util.Collections.unmodifiableList(launches);
  }

  public Launch launch(int i) {
    return launches.get(i);
  }

  /** Executable graphs the trace describes (each instantiation and update once). */
  public int executables() {
    return executables;
  }

  /** Launches of graphs the trace does not describe: their work is missing from the graph. */
  public int undescribedLaunches() {
    return undescribed;
  }

  /** Operations all the launches ran. */
  public long nodeOperations() {
    long n = 0;
    for (Launch l : launches) {
      n += l.ops().length;
    }
    return n;
  }
}
