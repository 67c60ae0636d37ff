package io.apptrace.replay;

import java.util.Arrays;

/**
 * Every operation's replay columns, one primitive array each (a replay of millions of operations
 * keeps no object per operation): how it is priced ({@link PricedOps} fills these), where it is in
 * its life ({@link OpState}), and the times and causes the timeline and the critical path are made
 * of. Times are ns from the first call; NaN until they happen.
 */
final class OpTable {
  final ReplayProgram.Op[] ops;
  final int size;
  // ---- pricing ----
  /** The node's GPU an operation runs on (a GPU-to-GPU copy's source); -1: the host does it. */
  final int[] gpuOf;
  final int[] peerGpuOf;
  /** The fixed part, ns: a kernel's or memset's whole time, a copy's L+o. */
  final double[] phase;
  /** A copy's bytes to move over its links after its fixed part (0: none). */
  final double[] bytes;
  /** The most bytes per ns a copy moves (its cost-model rate alone on the node). */
  final double[] maxRate;
  final int[][] resources;
  final double[][] factors;
  /** Priced by a model (not kept as measured). */
  final boolean[] modelled;
  final boolean[] lowerBound;
  /**
   * A pageable copy's CPU part around its DMAs, ns (docs/REPLAY.md, "Copies"): before, the first
   * chunk staged by the calling thread before the DMA can start; after, the last chunk copied out
   * after the DMA ends, before a thread waiting for the copy may go on. 0 for other operations.
   */
  final double[] hostBeforeNs;
  final double[] hostAfterNs;
  /** Why an operation whose staging delays it became ready, kept until the staging is over. */
  final int[] stagedCause;
  final int[] stagedCauseId;
  /**
   * A {@link ReplayProgram.Kind#COLLECTIVE} operation's end on the node's clock, ns, as the call
   * that issued it says ({@link HostCall.IssueOp#untilNs()}); it ends no earlier than its start.
   */
  final long[] heldUntilNs;
  /** A copy's Peak-BW and back-of-envelope baselines alone on the node, ns. */
  final double[] peakBwNs;
  final double[] boeNs;
  // ---- life ----
  final OpState[] state;
  final double[] issue;
  final double[] ready;
  final double[] start;
  final double[] end;
  /** When a copy's bytes started to cross its links (its fixed part over); NaN for what crossed none. */
  final double[] flowStart;
  /** When a host thread waiting for it may go on: its end, or earlier (a pageable copy's source staged). */
  final double[] release;
  final int[] engineOf;
  final int[] causeType;
  final int[] causeId;
  /** The call that issued each operation. */
  final int[] issuedBy;

  OpTable(ReplayProgram p) {
    ops = p.ops().toArray(new ReplayProgram.Op[0]);
    size = ops.length;
    gpuOf = new int[size];
    peerGpuOf = new int[size];
    phase = new double[size];
    bytes = new double[size];
    maxRate = new double[size];
    resources = new int[size][];
    factors = new double[size][];
    modelled = new boolean[size];
    lowerBound = new boolean[size];
    hostBeforeNs = new double[size];
    hostAfterNs = new double[size];
    stagedCause = new int[size];
    stagedCauseId = new int[size];
    heldUntilNs = new long[size];
    peakBwNs = nans(size);
    boeNs = nans(size);
    state = new OpState[size];
    Arrays.fill(state, OpState.PENDING);
    issue = nans(size);
    ready = new double[size];
    start = nans(size);
    end = nans(size);
    flowStart = nans(size);
    release = nans(size);
    engineOf = new int[size];
    Arrays.fill(engineOf, -1);
    causeType = new int[size];
    causeId = new int[size];
    issuedBy = new int[size];
    Arrays.fill(issuedBy, -1);
  }

  private static double[] nans(int n) {
    double[] a = new double[n];
    Arrays.fill(a, Double.NaN);
    return a;
  }

  /** 0: host to device; 1: device to host; 2: device to device or GPU to GPU (a copy's lane). */
  int lane(int i) {
    var w = ops[i].transfer().way();
    return w == io.apptrace.node.TransferKind.Way.H2D ? 0 : w == io.apptrace.node.TransferKind.Way.D2H ? 1 : 2;
  }
}
