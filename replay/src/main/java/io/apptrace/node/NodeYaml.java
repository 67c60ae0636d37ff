package io.apptrace.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeSet;

/**
 * Writes node files (docs/NODE-FORMAT.md): a whole {@link Node} that {@link NodeLoader} reads back
 * as the same node, and the scalars every writer of node-file text ({@code apptrace calibrate},
 * {@code apptrace topo}) writes with, so that a name or model string is quoted one way everywhere.
 *
 * <p>Quantities of a whole node are written in base units with the shortest decimal that reads
 * back as the same double ({@code "1.5753846153846154E10 B/s"}): exact, not pretty.
 */
public final class NodeYaml {
  private NodeYaml() {}

  /** A YAML double-quoted scalar: quotes and backslashes escaped, control characters dropped. */
  public static String quote(String s) {
    Objects.requireNonNull(s, "s");
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c >= ' ') {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  /** A quantity that reads back as exactly {@code value}: {@code "2.5E-6 s"}. */
  static String exact(double value, String baseUnit) {
    return "\"" + value + " " + baseUnit + "\"";
  }

  /** The node file of {@code n}. */
  public static String write(Node n) {
    StringBuilder y = new StringBuilder();
    y.append("name: ").append(quote(n.name())).append('\n');
    y.append("description: ").append(quote(n.description())).append('\n');
    y.append("aliases: ").append(list(n.aliases().stream().map(NodeYaml::quote).toList())).append('\n');
    y.append("sources: ").append(list(n.sources().stream().map(NodeYaml::quote).toList())).append('\n');
    y.append("cpu_speed_factor: ").append(n.cpuSpeedFactor()).append('\n');
    y.append("cpus:\n");
    for (Node.Cpu c : n.cpus()) {
      List<String> f = new ArrayList<>(List.of("id: " + c.id(), "model: " + quote(c.model()), "cores: " + c.cores(),
          "numa_node: " + c.numaNode(), "memory_bandwidth: " + exact(c.memoryBandwidth(), "B/s")));
      opt(f, "clock", c.clockHz(), "Hz");
      opt(f, "memory", c.memoryBytes(), "B");
      y.append("  - ").append(map(f)).append('\n');
    }
    y.append("gpus:\n");
    n.gpus().forEach(g -> y.append("  - ").append(map(gpu(g))).append('\n'));
    y.append("switches: ").append(list(n.switches().stream().map(s -> map(List.of("id: " + s.id(), "type: "
        + s.type(), "model: " + quote(s.model())))).toList())).append('\n');
    y.append("links:\n");
    n.links().forEach(l -> y.append("  - ").append(map(link(l))).append('\n'));
    y.append("peer_access: ").append(peerAccess(n.peerAccess())).append('\n');
    y.append(measured(n.measured()));
    y.append(hostOverheads(n.hostOverheads()));
    return y.toString();
  }

  /**
   * The {@code host_overheads} section: the source and the figures of the classes the file set, in whole ns (as
   * {@link HostOverheads} keeps them); none when the node has the bundled defaults.
   */
  private static String hostOverheads(HostOverheads h) {
    if (h.equals(HostOverheads.defaults())) {
      return "";
    }
    List<String> f = new ArrayList<>(List.of("source: " + quote(h.source())));
    for (ApiClass c : ApiClass.values()) {
      if (h.overridden().contains(c)) {
        f.add(c.key() + ": \"" + h.fixedNs().get(c) + " ns\"");
        if (c.perMib()) {
          f.add(c.key() + "_per_mib: \"" + h.perMibNs().get(c) + " ns\"");
        }
      }
    }
    return "host_overheads: " + map(f) + "\n";
  }

  /** A GPU: the figures its file gave; those the catalogue gave come from it again when read. */
  private static List<String> gpu(Node.Gpu g) {
    List<String> f = new ArrayList<>(List.of("id: " + g.id(), "model: " + quote(g.model())));
    if (own(g, "memory")) {
      f.add("memory: " + exact(g.memoryBytes(), "B"));
    }
    if (own(g, "memory_bandwidth")) {
      f.add("memory_bandwidth: " + exact(g.memoryBandwidth(), "B/s"));
    }
    f.addAll(List.of("copy_engines: " + g.copyEngines(), "implicit_sync: " + g.implicitSync(),
        "concurrent_kernels: " + g.concurrentKernels(), "launch_overhead: " + exact(g.launchOverheadSeconds(), "s")));
    List<String> flops = new ArrayList<>();
    g.peakFlops().forEach((p, v) -> {
      if (own(g, "peak_flops." + p.key())) {
        flops.add(p.key() + ": " + exact(v, "FLOP/s"));
      }
    });
    if (!flops.isEmpty()) {
      f.add("peak_flops: " + map(flops));
    }
    if (g.sms() > 0 && own(g, "sms")) {
      f.add("sms: " + g.sms());
    }
    if (own(g, "clock")) {
      opt(f, "clock", g.clockHz(), "Hz");
    }
    return f;
  }

  /** Whether the node file gave the figure itself (not the GPU catalogue). */
  private static boolean own(Node.Gpu g, String key) {
    return !"catalogue".equals(g.origins().get(key));
  }

  private static List<String> link(Node.Link l) {
    List<String> f = new ArrayList<>(List.of("between: [" + l.a() + ", " + l.b() + "]", "type: " + l.type().key(),
        "duplex: " + l.duplex(), "count: " + l.count()));
    if (l.efficiencyRead() != 1.0 || l.efficiencyWrite() != 1.0) {
      f.add("efficiency: {read: " + l.efficiencyRead() + ", write: " + l.efficiencyWrite() + "}");
    } else {
      f.add("efficiency: [" + l.efficiency(true) + ", " + l.efficiency(false) + "]");
    }
    if (l.pcie().isPresent()) {
      Node.Pcie p = l.pcie().get();
      f.addAll(List.of("generation: " + p.generation(), "lanes: " + p.lanes(), "mps: " + p.mps(), "mrrs: "
          + p.mrrs(), "rcb: " + p.rcb(), "overheads: {mrd: " + p.mrdOverhead() + ", mwr: " + p.mwrOverhead()
          + ", cpld: " + p.cpldOverhead() + "}"));
    } else {
      if (l.type() == LinkType.NVLINK) {
        f.add("generation: " + l.nvlinkGeneration());
      }
      f.add("bandwidth: " + exact(perLink(l.bandwidth(), l.count()), "B/s"));
    }
    return f;
  }

  /** The bandwidth of one of {@code count} bonded links, which times {@code count} is {@code total} exactly. */
  private static double perLink(double total, int count) {
    double one = total / count;
    for (double d : new double[] {one, Math.nextUp(one), Math.nextDown(one)}) {
      if (d * count == total) {
        return d;
      }
    }
    return one;
  }

  private static String peerAccess(Node.PeerAccess p) {
    if (!p.pairs().isEmpty()) {
      List<String> pairs = new ArrayList<>();
      for (var pair : p.pairs()) {
        pairs.add(list(new ArrayList<>(new TreeSet<>(pair))));
      }
      pairs.sort(null);
      return "{pairs: " + list(pairs) + "}";
    }
    return list(new ArrayList<>(new TreeSet<>(p.rules())));
  }

  private static String measured(Node.Measured m) {
    StringBuilder y = new StringBuilder("measured:\n");
    y.append("  source: ").append(quote(m.source())).append('\n');
    y.append("  simulated: ").append(m.simulated()).append('\n');
    m.timed().ifPresent(t -> y.append("  timed: ").append(t.key()).append('\n'));
    y.append("  latency: ").append(kinds(m.latency(), "s")).append('\n');
    m.latencyFrom().ifPresent(f -> y.append("  latency_from: ").append(f.node()).append('\n'));
    List<String> gap = new ArrayList<>();
    opt(gap, "h2d", m.gapH2d(), "s");
    opt(gap, "d2h", m.gapD2h(), "s");
    y.append("  gap: ").append(map(gap)).append('\n');
    y.append("  bandwidth: ").append(kinds(m.bandwidth(), "B/s")).append('\n');
    List<String> curves = new ArrayList<>();
    m.curves().forEach((k, c) -> {
      List<String> points = new ArrayList<>();
      for (int i = 0; i < c.points(); i++) {
        points.add("[" + exact(c.size(i), "B") + ", " + exact(c.bandwidth(i), "B/s") + "]");
      }
      curves.add(k.key() + ": " + list(points));
    });
    y.append("  curves: ").append(map(curves)).append('\n');
    List<String> faults = new ArrayList<>();
    opt(faults, "cpu_to_gpu", m.pageFaults().cpuToGpu(), "s");
    opt(faults, "gpu_to_cpu", m.pageFaults().gpuToCpu(), "s");
    opt(faults, "gpu_gpu_local", m.pageFaults().gpuGpuLocal(), "s");
    opt(faults, "gpu_gpu_remote", m.pageFaults().gpuGpuRemote(), "s");
    y.append("  page_fault: ").append(map(faults)).append('\n');
    y.append("  migration_granularity: ").append(exact(m.migrationGranularity(), "B")).append('\n');
    y.append("  staging_chunk: ").append(exact(m.stagingChunkBytes(), "B")).append('\n');
    m.memsetSeconds().ifPresent(v -> y.append("  memset: ").append(exact(v, "s")).append('\n'));
    List<String> memcpy = new ArrayList<>();
    m.memcpyBandwidth().forEach((cpu, v) -> memcpy.add(cpu + ": " + exact(v, "B/s")));
    y.append("  memcpy_bandwidth: ").append(map(memcpy)).append('\n');
    y.append("  fitted_to: ").append(list(m.fittedTo().stream().map(f -> map(List.of("file: " + quote(f.file()),
        "sha256: " + f.sha256()))).toList())).append('\n');
    return y.toString();
  }

  private static String kinds(Map<TransferKind, Double> m, String unit) {
    List<String> f = new ArrayList<>();
    for (TransferKind k : TransferKind.values()) {
      if (m.containsKey(k)) {
        f.add(k.key() + ": " + exact(m.get(k), unit));
      }
    }
    return map(f);
  }

  private static void opt(List<String> fields, String key, OptionalDouble v, String unit) {
    v.ifPresent(x -> fields.add(key + ": " + exact(x, unit)));
  }

  private static String map(List<String> fields) {
    return "{" + String.join(", ", fields) + "}";
  }

  private static String list(List<String> items) {
    return "[" + String.join(", ", items) + "]";
  }
}
