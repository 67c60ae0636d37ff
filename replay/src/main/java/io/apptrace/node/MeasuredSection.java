package io.apptrace.node;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A node file's {@code measured} section (docs/NODE-FORMAT.md, "measured"): the latencies, gaps,
 * bandwidths and curves measured on the machine, how they were timed, and {@code latency_from}
 * resolved to the named bundled node's figures.
 */
final class MeasuredSection {
  private MeasuredSection() {}

  static Node.Measured read(YamlMap m, String self, List<Node.Cpu> cpus) throws NodeFileException {
    String source = m.optString("source").orElse("");
    boolean simulated = m.bool("simulated", false);
    Map<TransferKind, Double> latency = new EnumMap<>(TransferKind.class);
    Optional<YamlMap> lat = m.map("latency");
    if (lat.isPresent()) {
      for (String k : lat.get().keys()) {
        TransferKind kind = kind(lat.get(), k);
        latency.put(kind, lat.get().quantity(k, Units.Kind.TIME));
      }
      lat.get().done();
    }
    Optional<Node.LatencySource> from = latencySource(m, self);
    OptionalDouble gapH2d = OptionalDouble.empty();
    OptionalDouble gapD2h = OptionalDouble.empty();
    Optional<YamlMap> gap = m.map("gap");
    if (gap.isPresent()) {
      gapH2d = gap.get().optQuantity("h2d", Units.Kind.TIME);
      gapD2h = gap.get().optQuantity("d2h", Units.Kind.TIME);
      gap.get().done();
    }
    Map<TransferKind, Double> bandwidth = new EnumMap<>(TransferKind.class);
    Optional<YamlMap> bw = m.map("bandwidth");
    if (bw.isPresent()) {
      for (String k : bw.get().keys()) {
        bandwidth.put(kind(bw.get(), k), bw.get().quantity(k, Units.Kind.BANDWIDTH));
      }
      bw.get().done();
    }
    Map<TransferKind, Curve> curves = new LinkedHashMap<>();
    Optional<YamlMap> cs = m.map("curves");
    if (cs.isPresent()) {
      for (String k : cs.get().keys()) {
        TransferKind kind = kind(cs.get(), k);
        List<List<YamlMap.Scalar>> rows = cs.get().rows(k);
        double[] sizes = new double[rows.size()];
        double[] bws = new double[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
          List<YamlMap.Scalar> row = rows.get(i);
          if (row.size() != 2) {
            throw cs.get().error(k, "each point is [size, bandwidth], like [\"1 MiB\", \"10 GB/s\"]");
          }
          sizes[i] = row.get(0).quantity(Units.Kind.SIZE);
          bws[i] = row.get(1).quantity(Units.Kind.BANDWIDTH);
          if (i > 0 && !(sizes[i] > sizes[i - 1])) {
            throw row.get(0).error("sizes must increase from point to point");
          }
        }
        if (rows.isEmpty()) {
          throw cs.get().error(k, "a curve needs at least one point");
        }
        curves.put(kind, new Curve(sizes, bws));
      }
      cs.get().done();
    }
    OptionalDouble none = OptionalDouble.empty();
    Node.PageFaults faults = new Node.PageFaults(none, none, none, none);
    Optional<YamlMap> pf = m.map("page_fault");
    if (pf.isPresent()) {
      YamlMap p = pf.get();
      faults = new Node.PageFaults(p.optQuantity("cpu_to_gpu", Units.Kind.TIME),
          p.optQuantity("gpu_to_cpu", Units.Kind.TIME), p.optQuantity("gpu_gpu_local", Units.Kind.TIME),
          p.optQuantity("gpu_gpu_remote", Units.Kind.TIME));
      p.done();
    }
    double granularity = m.optQuantity("migration_granularity", Units.Kind.SIZE).orElse(64 * 1024);
    List<Node.FittedTo> fitted = new ArrayList<>();
    for (YamlMap f : m.maps("fitted_to", false)) {
      String sha = f.string("sha256");
      if (!sha.matches("[0-9a-fA-F]{64}")) {
        throw f.error("sha256", "'" + sha + "' is not a SHA-256 (64 hexadecimal digits, as sha256sum prints)");
      }
      fitted.add(new Node.FittedTo(f.string("file"), sha.toLowerCase(java.util.Locale.ROOT)));
      f.done();
    }
    OptionalDouble memset = m.optQuantity("memset", Units.Kind.TIME);
    double staging = m.optQuantity("staging_chunk", Units.Kind.SIZE).orElse(Node.Measured.DEFAULT_STAGING_CHUNK);
    Map<String, Double> memcpy = memcpyBandwidth(m, cpus);
    Optional<Timing> timed = timing(m, !latency.isEmpty() || gapH2d.isPresent() || gapD2h.isPresent()
        || !curves.isEmpty() || memset.isPresent());
    m.done();
    return new Node.Measured(source, simulated, latency, from, gapH2d, gapD2h, bandwidth, curves, faults,
        granularity, fitted, timed, memset, staging, memcpy, List.of());
  }

  /** {@code measured.memcpy_bandwidth}: per CPU id, one thread's copy from pageable to pinned memory. */
  private static Map<String, Double> memcpyBandwidth(YamlMap m, List<Node.Cpu> cpus) throws NodeFileException {
    Map<String, Double> out = new LinkedHashMap<>();
    Optional<YamlMap> mb = m.map("memcpy_bandwidth");
    if (mb.isPresent()) {
      for (String id : mb.get().keys()) {
        if (cpus.stream().noneMatch(c -> c.id().equals(id))) {
          throw mb.get().keyError(id, "no CPU has the id '" + id + "' (its CPUs: "
              + String.join(", ", cpus.stream().map(Node.Cpu::id).toList()) + ")");
        }
        out.put(id, mb.get().quantity(id, Units.Kind.BANDWIDTH));
      }
      mb.get().done();
    }
    return out;
  }

  /**
   * {@code measured.timed}: how the section's times were taken, which a section with any of them
   * must say (docs/NODE-FORMAT.md): a copy's GPU time and the time of the call around it differ by
   * several microseconds.
   */
  private static Optional<Timing> timing(YamlMap m, boolean hasTimes) throws NodeFileException {
    Optional<String> t = m.optString("timed");
    if (t.isEmpty()) {
      if (hasTimes) {
        throw m.error("timed", "missing: say how these times were taken: gpu (the copy's span on the GPU: CUPTI,"
            + " nvprof, Nsight), event (CUDA events around a synchronous call, as 'apptrace calibrate' times them)"
            + " or wall (the host clock around the call)");
      }
      return Optional.empty();
    }
    return Optional.of(Timing.of(t.get()).orElseThrow(() -> m.error("timed", "'" + t.get()
        + "' is no way of timing; use " + Timing.keys())));
  }

  /** Bundled nodes whose {@code latency_from} is being followed (to refuse a circle). */
  private static final ThreadLocal<java.util.LinkedHashSet<String>> FOLLOWING =
      ThreadLocal.withInitial(java.util.LinkedHashSet::new);

  /**
   * {@code measured.latency_from}, resolved now: the named bundled node's measured figures, its own
   * {@code latency_from} followed in turn.
   */
  private static Optional<Node.LatencySource> latencySource(YamlMap m, String self) throws NodeFileException {
    Optional<String> from = m.optString("latency_from");
    if (from.isEmpty()) {
      return Optional.empty();
    }
    if (!BundledNodes.names().contains(from.get())) {
      throw m.error("latency_from", "no bundled node named '" + from.get() + "' (bundled: "
          + String.join(", ", BundledNodes.names()) + ")");
    }
    java.util.LinkedHashSet<String> following = FOLLOWING.get();
    boolean outer = following.isEmpty();
    following.add(self);
    try {
      if (following.contains(from.get())) {
        throw m.error("latency_from", "the nodes " + String.join(", ", following) + " reuse each other's latency"
            + " in a circle; name a node that was measured");
      }
      Node other = NodeLoader.bundled(from.get()).orElseThrow();
      return Optional.of(new Node.LatencySource(other.name(), other.measured()));
    } finally {
      following.remove(self);
      if (outer) {
        FOLLOWING.remove();
      }
    }
  }

  private static TransferKind kind(YamlMap m, String key) throws NodeFileException {
    Optional<TransferKind> k = TransferKind.of(key);
    if (k.isEmpty()) {
      StringBuilder known = new StringBuilder();
      for (TransferKind t : TransferKind.values()) {
        known.append(known.length() == 0 ? "" : ", ").append(t.key());
      }
      throw m.keyError(key, "unknown transfer kind '" + key + "' (known: " + known + ")");
    }
    return k.get();
  }
}
