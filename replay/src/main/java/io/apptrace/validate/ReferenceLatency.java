package io.apptrace.validate;

import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The fixed overhead L+o of each transfer kind as a reference node measured it, for projecting
 * another node the way Abdelhafez et al. 2019, sec. IV-C does: L+o is the measured time of a 1-byte transfer
 * (docs/COST-MODEL.md, LogGP form; Abdelhafez et al. 2019, eq. 9 and 10), taken on the old node, and every other
 * parameter
 * (links, bandwidths, routes) comes from the new node's datasheet.
 *
 * <p>Per kind, L+o is the median measured time of the kind's copies of the smallest size the
 * reference data holds (1 byte when it has 1-byte copies, as AHEAD measured; the size used is
 * reported), on routes local to the GPU when the data has any (a remote route adds a bus hop). The
 * median of an even count is the mean of the two middle values.
 *
 * <p>A kind the reference data lacks keeps the target's own L+o (its node file's, docs/COST-MODEL.md),
 * and {@link Applied#fallback()} names it when the program or data being projected uses it. (A
 * target that has no L+o for it either gets the cost model's usual fallback, the same direction's
 * pinned L+o, which is then the reference's.)
 */
public final class ReferenceLatency {
  /**
   * One kind's L+o.
   *
   * @param seconds the median time
   * @param bytes the copy size it is the median of (1 when the data has 1-byte copies)
   * @param copies how many measurements it is the median of
   */
  public record Overhead(TransferKind kind, double seconds, long bytes, int copies) {}

  /** How the reference data's times were taken. */
  private final Timing timed;

  /**
   * A target node with the reference L+o.
   *
   * @param node the target node whose {@code measured.latency} is the reference's for every kind the
   *     reference measured and its own for the rest; its source says so ({@code summit (with L+o
   *     from titan)})
   * @param fallback the kinds in use that the reference did not measure: they keep the target's
   *     own L+o
   */
  public record Applied(Node node, List<TransferKind> fallback) {
    public Applied {
      fallback = List.copyOf(fallback);
    }
  }

  private final String node;
  private final Map<TransferKind, Overhead> overheads;

  private ReferenceLatency(String node, Map<TransferKind, Overhead> overheads, Timing timed) {
    this.node = node;
    this.overheads = overheads;
    this.timed = timed;
  }

  /** How the reference data's times were taken (docs/COST-MODEL.md, "Timing kinds"). */
  public Timing timed() {
    return timed;
  }

  /**
   * L+o per kind from measurements taken on {@code reference}. Rows naming a GPU or NUMA node the
   * reference node lacks are not used.
   */
  public static ReferenceLatency of(Node reference, List<MemcpyData.Measurement> rows) throws NodeFileException {
    Objects.requireNonNull(reference, "reference");
    TransferModel model = new TransferModel(reference);
    Map<TransferKind, List<MemcpyData.Measurement>> local = new EnumMap<>(TransferKind.class);
    Map<TransferKind, List<MemcpyData.Measurement>> all = new EnumMap<>(TransferKind.class);
    for (MemcpyData.Measurement m : rows) {
      if (reference.gpu(m.srcGpu()).isEmpty() || reference.gpu(m.dstGpu()).isEmpty()
          || (m.numa() >= 0 && reference.cpuOfNuma(m.numa()).isEmpty())) {
        continue;
      }
      all.computeIfAbsent(m.kind(), k -> new ArrayList<>()).add(m);
      boolean remote = model.estimate(m.kind(), 1, new TransferModel.Endpoints(m.numa(), m.srcGpu(), m.dstGpu()),
          TransferModel.Setting.DATASHEET).remote();
      if (!remote) {
        local.computeIfAbsent(m.kind(), k -> new ArrayList<>()).add(m);
      }
    }
    Map<TransferKind, Overhead> out = new EnumMap<>(TransferKind.class);
    all.forEach((kind, ms) -> out.put(kind, smallest(kind, local.getOrDefault(kind, ms))));
    // rows of one reference data set are timed one way; a mix would take the first row's
    Timing timed = rows.isEmpty() ? Timing.GPU : rows.get(0).timed();
    return new ReferenceLatency(reference.name(), out, timed);
  }

  /** The median time of the smallest copies among {@code ms} (not empty). */
  static Overhead smallest(TransferKind kind, List<MemcpyData.Measurement> ms) {
    long min = ms.stream().mapToLong(MemcpyData.Measurement::bytes).min().orElseThrow();
    double[] t = ms.stream().filter(m -> m.bytes() == min).mapToDouble(MemcpyData.Measurement::medianSeconds)
        .sorted().toArray();
    return new Overhead(kind, median(t), min, t.length);
  }

  /** The median of sorted values: the middle one, or the mean of the two middle ones. */
  static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The reference node's name. */
  public String node() {
    return node;
  }

  /** The L+o of every kind the reference data holds, in kind order. */
  public Map<TransferKind, Overhead> overheads() {
    return Collections.unmodifiableMap(overheads);
  }

  /** The reference's L+o of a kind, when it measured that kind. */
  public Optional<Overhead> overhead(TransferKind kind) {
    return Optional.ofNullable(overheads.get(kind));
  }

  /**
   * {@code target} with the reference L+o: every kind the reference measured takes its L+o; every
   * other kind keeps the target's own (as {@link TransferModel#latency} resolves it on the target,
   * a staged GPU-to-GPU copy's as the sum of its two pinned halves), and is named in {@link
   * Applied#fallback()} when it is in {@code used}. Gaps, curves and everything else stay the
   * target's.
   *
   * @param used the kinds the data or program being projected has
   */
  public Applied applyTo(Node target, Collection<TransferKind> used) throws NodeFileException {
    TransferModel own = new TransferModel(target);
    Map<TransferKind, Double> latency = new EnumMap<>(TransferKind.class);
    List<TransferKind> fallback = new ArrayList<>();
    for (TransferKind k : TransferKind.values()) {
      Overhead o = overheads.get(k);
      if (o != null) {
        latency.put(k, o.seconds());
        continue;
      }
      if (used.contains(k)) {
        fallback.add(k);
      }
      ownLatency(own, k).ifPresent(v -> latency.put(k, v));
    }
    Node.Measured withRef = target.measured().withLatency(latency, timed);
    Node n = new Node(target.name(), target.description(), target.aliases(), target.sources(),
        target.cpuSpeedFactor(), target.cpus(), target.gpus(), target.switches(), target.links(), target.peerAccess(),
        withRef, target.hostOverheads(), target.source() + " (with L+o from " + node + ")");
    return new Applied(n, fallback);
  }

  /**
   * The L+o the target's own model gives a kind, when it has a measured one, in the reference data's
   * timing (converted by docs/COST-MODEL.md, "Timing kinds", when the target's was timed otherwise).
   */
  private Optional<Double> ownLatency(TransferModel own, TransferKind k) {
    if (k == TransferKind.STAGED_P2P) {
      TransferModel.Latency s = own.latency(k);
      if (s.of() == TransferKind.STAGED_P2P) {
        return Optional.of(view(s));
      }
      TransferModel.Latency d = own.latency(TransferKind.PINNED_D2H);
      TransferModel.Latency h = own.latency(TransferKind.PINNED_H2D);
      return d.measured() && h.measured() ? Optional.of(view(d) + view(h)) : Optional.empty();
    }
    TransferModel.Latency l = own.latency(k);
    return l.measured() ? Optional.of(view(l)) : Optional.empty();
  }

  private double view(TransferModel.Latency l) {
    return timed.includesCall() ? l.callSeconds() : l.seconds();
  }
}
