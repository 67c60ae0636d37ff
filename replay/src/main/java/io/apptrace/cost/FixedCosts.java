package io.apptrace.cost;

import io.apptrace.node.Node;
import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import java.util.List;
import java.util.Optional;

/**
 * A node's fixed costs (docs/COST-MODEL.md, "L+o, and a node never measured" and "Timing kinds"):
 * the L+o of each transfer kind, the gap g and a memset's fixed cost, each both as GPU time (what
 * a copy or memset occupies its engine for) and as the duration of a blocking call around it,
 * whichever way the node file's figure was timed.
 */
final class FixedCosts {
  private final Node node;

  FixedCosts(Node node) {
    this.node = node;
  }

  /**
   * The 1-byte transfer time L+o of a kind: this node's measurement of it; else of the pinned
   * transfer of the same direction (device-to-device and GPU-to-GPU kinds: pinned device-to-host);
   * else the same from the node named by {@code latency_from} (resolved when the file was read);
   * else none (0, marked as not measured).
   */
  TransferModel.Latency latency(TransferKind kind) {
    TransferKind fallback = kind.way() == TransferKind.Way.H2D ? TransferKind.PINNED_H2D : TransferKind.PINNED_D2H;
    String owner = node.name();
    boolean own = true;
    for (Node.Measured m = node.measured(); m != null; ) {
      for (TransferKind k : List.of(kind, fallback)) {
        Double v = m.latency().get(k);
        if (v != null) {
          String what = k == kind ? k.key() : k.key() + ", for " + kind.key();
          return of(kind, v, m.timed().orElse(Timing.GPU), (own ? "measured on " : "reused from ") + owner + " ("
              + what + ")", k);
        }
      }
      Optional<Node.LatencySource> from = m.latencyFrom();
      owner = from.map(Node.LatencySource::node).orElse(owner);
      m = from.map(Node.LatencySource::measured).orElse(null);
      own = false;
    }
    return new TransferModel.Latency(0, "none measured: no fixed overhead counted", false, null, 0, Timing.GPU,
        Optional.empty());
  }

  /** A measured L+o of {@code seconds}, timed as {@code timed}, in both views. */
  static TransferModel.Latency of(TransferKind kind, double seconds, Timing timed, String source, TransferKind of) {
    double gpu = TimingConversion.toGpu(seconds, timed, kind);
    double call = TimingConversion.toCall(seconds, timed);
    Optional<String> converted = Optional.of((timed.includesCall() ? "GPU time " : "call duration ")
        + TimingConversion.describe(seconds, timed));
    return new TransferModel.Latency(gpu, source, true, of, call, timed, converted);
  }

  /**
   * The per-stream gap g of a transfer that follows another in the same direction back to back
   * (van Werkhoven et al. 2014, sec. V), GPU time: measured, else the kind's full L+o (no overlap
   * assumed). <b>Choice</b>: a gap timed around calls is at most the GPU-time L+o.
   */
  double gap(TransferKind kind) {
    var g = kind.way() == TransferKind.Way.D2H ? node.measured().gapD2h() : node.measured().gapH2d();
    double l = latency(kind).seconds();
    if (g.isEmpty()) {
      return l;
    }
    boolean call = node.measured().timed().orElse(Timing.GPU).includesCall();
    return call ? Math.min(g.getAsDouble(), l) : g.getAsDouble();
  }

  /**
   * The fixed cost of one memset on the GPU: the node file's {@code measured.memset} as GPU time;
   * without one, the device-to-device L+o's GPU time (<b>Choice</b>: a memset, like a copy within
   * the GPU, is one command the GPU runs without host memory).
   */
  TransferModel.Latency memset() {
    var m = node.measured().memsetSeconds();
    if (m.isPresent()) {
      return of(TransferKind.D2D, m.getAsDouble(), node.measured().timed().orElse(Timing.GPU),
          "measured on " + node.name() + " (memset)", null);
    }
    TransferModel.Latency d = latency(TransferKind.D2D);
    return new TransferModel.Latency(d.seconds(), d.source() + ", for memset", d.measured(), d.of(), d.callSeconds(),
        d.timed(), d.conversion());
  }
}
