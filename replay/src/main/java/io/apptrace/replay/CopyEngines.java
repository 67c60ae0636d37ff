package io.apptrace.replay;

import io.apptrace.node.Node;
import io.apptrace.node.TransferKind;

/**
 * Each GPU's copy engines (docs/REPLAY.md, "Engines"): with one engine every copy waits its turn;
 * with two or more, host-to-device copies use the even-numbered engines and device-to-host copies
 * the odd-numbered ones, device-to-device and GPU-to-GPU copies any engine. A free engine takes the
 * earliest-issued ready copy of the lanes it serves. A copy pays its fixed overhead L+o first, or
 * the gap g when it follows a copy in the same direction on the same engine back to back (van
 * Werkhoven et al. 2014, sec. V).
 */
final class CopyEngines {
  private final Node node;
  private final OpTable t;
  private final Engines engines;
  private final PricedOps priced;
  /** Per engine: the copy it runs, or -1. */
  private final int[] busy;
  /** Per GPU, per lane (h2d, d2h, other): ready copies, the earliest issued first. */
  private final IntHeap[][] lanes;

  CopyEngines(Node node, OpTable t, Engines engines, PricedOps priced) {
    this.node = node;
    this.t = t;
    this.engines = engines;
    this.priced = priced;
    int gpus = node.gpus().size();
    int all = 0;
    for (int g = 0; g < gpus; g++) {
      all += 1 + node.gpus().get(g).copyEngines();
    }
    busy = new int[all];
    java.util.Arrays.fill(busy, -1);
    lanes = new IntHeap[gpus][];
    for (int g = 0; g < gpus; g++) {
      lanes[g] = new IntHeap[] {new IntHeap(), new IntHeap(), new IntHeap()};
    }
  }

  void ready(int i, int g) {
    lanes[g][t.lane(i)].add(i);
  }

  void dispatch(int g) {
    IntHeap[] q = lanes[g];
    int k = node.gpus().get(g).copyEngines();
    for (int e = 0; e < k; e++) {
      int engine = engines.computeEngine(g) + 1 + e;
      if (busy[engine] != -1) {
        continue;
      }
      int best = -1;
      int bestLane = -1;
      for (int lane = 0; lane < 3; lane++) {
        boolean serves = k == 1 || lane == 2 || lane == (e % 2);
        if (serves && !q[lane].isEmpty() && (best < 0 || q[lane].peek() < best)) {
          best = q[lane].peek();
          bestLane = lane;
        }
      }
      if (best < 0) {
        continue;
      }
      q[bestLane].poll();
      busy[engine] = best;
      TransferKind kind = t.ops[best].transfer();
      double fixed = t.phase[best];
      if (bestLane < 2 && t.modelled[best] && engines.justMoved(engine, bestLane)) {
        fixed = Math.min(fixed, priced.gapNs(kind)); // back to back in the same direction: g, not L+o
      }
      engines.start(best, engine, OpState.LATENCY, fixed);
    }
  }

  void finished(int engine) {
    busy[engine] = -1;
  }
}
