package io.apptrace.replay;

import java.util.ArrayList;
import java.util.List;

/**
 * How much each resource of a node's links carried over the replay: how long each direction of a
 * link (and each CPU's memory) carried data, for the busy shares (docs/REPLAY.md, "What it
 * reports"), and, when asked for, its utilization over time, a sample whenever it changes.
 * {@link Links} reports to it at every sharing of the rates ({@link MaxMinFairShare}).
 */
final class LinkUtilization {
  private final boolean keepSamples;
  /** Utilization samples per resource: time (ns), fraction; appended when it changes. */
  private final List<List<double[]>> samples = new ArrayList<>();
  /** Per resource: the time it carried data, ns. */
  private final double[] busyNs;
  private long lastShare = -1;

  LinkUtilization(int resources, boolean keepSamples) {
    this.keepSamples = keepSamples;
    this.busyNs = new double[resources];
    for (int i = 0; i < resources; i++) {
      samples.add(new ArrayList<>());
    }
  }

  /** Whether utilization samples are kept (then the rates are shared out again at every change). */
  boolean keepsSamples() {
    return keepSamples;
  }

  /**
   * Before the rates are shared out again at {@code now}: adds the time since the last sharing to
   * the resources that carried data through it, at the rates of {@code share}'s last sharing.
   */
  void accrue(long now, MaxMinFairShare share) {
    if (lastShare >= 0 && now > lastShare) {
      for (int t = 0; t < share.touchedCount(); t++) {
        int r = share.touched(t);
        if (share.used(r) > 0) {
          busyNs[r] += now - lastShare;
        }
      }
    }
    lastShare = now;
  }

  /** How long resource {@code r} (a link direction, or a CPU's memory) carried data, ns. */
  double busyNs(int r) {
    return r < busyNs.length ? busyNs[r] : 0;
  }

  /**
   * After the rates were shared out at {@code now}: notes each resource's utilization where it
   * changed ({@code idle}: no transfer is in flight).
   */
  void sample(long now, boolean idle, MaxMinFairShare share) {
    if (!keepSamples) {
      return;
    }
    for (int r = 0; r < share.resources(); r++) {
      double u = idle ? 0 : Math.min(1, share.used(r) / share.capacity(r));
      List<double[]> s = samples.get(r);
      if (s.isEmpty() || s.get(s.size() - 1)[1] != u) {
        if (!s.isEmpty() && s.get(s.size() - 1)[0] == now) {
          s.set(s.size() - 1, new double[] {now, u});
        } else {
          s.add(new double[] {now, u});
        }
      }
    }
  }

  /** Utilization samples of resource {@code r}. */
  List<double[]> samples(int r) {
    return samples.get(r);
  }
}
