package io.apptrace.graph;

/**
 * The order of one CUDA graph launch's operations for races ({@link HappensBefore}): each runs on
 * a branch of its executable graph (a stream of its own, non-blocking, kept from launch to
 * launch: a chain of nodes shares one), after the nodes it depends on (through events of its
 * own); the nodes without dependencies after the launch stream's earlier work; and the launch
 * stream's later work after every last node. So two parallel branches of a graph are unordered,
 * as on a GPU, and a race between them is found.
 */
final class GraphLaunchOrder {
  private static final long BRANCH = 0xFA00_0000_0000_0000L;
  private static final long NODE_EVENT = 0xFB00_0000_0000_0000L;
  private static final long ENTRY_EVENT = 0xFC00_0000_0000_0000L;

  private final HappensBefore order;
  private final HappensBefore.Stream launch;
  private final int[][] waitsFor;
  private final int[] branchOf;
  private final HappensBefore.Stream[] branches;
  private final long serial;

  /**
   * @param serial the executable graph's number in its process (the synthetic streams and events
   *     are its own)
   * @param waitsFor per node, the nodes (indexes) it depends on, each before it in the order given
   */
  GraphLaunchOrder(HappensBefore order, HappensBefore.ThreadClock thread, HappensBefore.Stream launch, long entryNs,
      long serial, int[][] waitsFor, int device, int tid) {
    this.order = order;
    this.launch = launch;
    this.waitsFor = waitsFor;
    this.serial = serial;
    branchOf = branches(waitsFor);
    int n = 0;
    for (int b : branchOf) {
      n = Math.max(n, b + 1);
    }
    branches = new HappensBefore.Stream[n];
    for (int b = 0; b < n; b++) {
      long handle = BRANCH | serial << 24 | b;
      order.created(handle, 1);
      branches[b] = order.stream(handle, device, tid, false);
      branches[b].tableId = -1; // the operation table's stream is the launch's, which may differ
    }
    order.prepare(thread, launch, entryNs);
    order.record(ENTRY_EVENT | serial, launch);
  }

  /**
   * Per node, its branch: a node continues the branch of its first dependency that is the last
   * node of its branch so far; otherwise it starts a branch.
   */
  static int[] branches(int[][] waitsFor) {
    int[] branch = new int[waitsFor.length];
    int[] last = new int[waitsFor.length];
    int count = 0;
    for (int i = 0; i < waitsFor.length; i++) {
      branch[i] = -1;
      for (int j : waitsFor[i]) {
        if (last[branch[j]] == j) {
          branch[i] = branch[j];
          break;
        }
      }
      if (branch[i] < 0) {
        branch[i] = count++;
      }
      last[branch[i]] = i;
    }
    return branch;
  }

  /** Node {@code i} is about to be issued: its branch, made to wait for what the node depends on. */
  HappensBefore.Stream before(int i) {
    HappensBefore.Stream s = branches[branchOf[i]];
    if (waitsFor[i].length == 0) {
      order.waitEvent(s, ENTRY_EVENT | serial);
    }
    for (int j : waitsFor[i]) {
      if (branchOf[j] != branchOf[i]) {
        order.waitEvent(s, NODE_EVENT | serial << 24 | j);
      }
    }
    return s;
  }

  /** Node {@code i} was issued. */
  void after(int i) {
    order.record(NODE_EVENT | serial << 24 | i, branches[branchOf[i]]);
  }

  /** Every node was issued: the launch stream's later work waits for all of them. */
  void finish() {
    boolean[] waitedFor = new boolean[waitsFor.length];
    for (int[] w : waitsFor) {
      for (int j : w) {
        waitedFor[j] = true;
      }
    }
    for (int i = 0; i < waitsFor.length; i++) {
      if (!waitedFor[i]) {
        order.waitEvent(launch, NODE_EVENT | serial << 24 | i);
      }
    }
  }
}
