package io.apptrace.node;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads and checks one composed node file, section by section (docs/NODE-FORMAT.md): its CPUs,
 * GPUs ({@link GpuFigures}), switches, links ({@link LinkSection}), peer access, measured figures
 * ({@link MeasuredSection}) and host overheads ({@link HostOverheadsSection}). Finding the file
 * and applying {@code --set} is {@link NodeLoader}'s.
 */
final class NodeReader {
  private static final Set<String> PEER_RULES = Set.of("none", "all", "nvlink", "pcie-switch");

  private NodeReader() {}

  /**
   * Reads and checks a composed node file (its top-level mapping, which it may have changed);
   * {@code complete}: refuse values written {@code unknown}, and a node without GPUs.
   */
  static NodeSkeleton read(YamlMap root, String source, boolean complete) throws NodeFileException {
    String name = root.string("name");
    String description = root.string("description");
    List<String> aliases = strings(root.scalars("aliases", false));
    List<String> sources = strings(root.scalars("sources", false));
    double cpuSpeed = root.number("cpu_speed_factor", 0.01, 100, 1.0);

    Map<String, YamlMap.Scalar> ids = new HashMap<>();
    List<Node.Cpu> cpus = new ArrayList<>();
    Set<Integer> numaNodes = new HashSet<>();
    for (YamlMap c : root.maps("cpus", true)) {
      String id = id(c, ids);
      int numa = c.integer("numa_node", 0, 4095);
      if (!numaNodes.add(numa)) {
        throw c.error("numa_node", "NUMA node " + numa + " is given to two CPUs");
      }
      double memBw;
      if (c.has("memory_bandwidth") && c.has("memory_bus")) {
        throw c.error("memory_bus", "give memory_bandwidth or memory_bus, not both");
      } else if (c.has("memory_bandwidth")) {
        memBw = c.quantity("memory_bandwidth", Units.Kind.BANDWIDTH);
      } else {
        YamlMap bus = c.map("memory_bus").orElseThrow(() -> c.error("memory_bandwidth",
            "missing key 'memory_bandwidth' (or 'memory_bus')"));
        // Memory_BW = bus_width * frequency * transfers_per_cycle (Abdelhafez et al. 2019, sec. IV-C)
        memBw = bus.quantity("width", Units.Kind.WIDTH) / 8 * bus.quantity("frequency", Units.Kind.FREQUENCY)
            * bus.integer("transfers_per_cycle", 1, 16);
        bus.done();
      }
      cpus.add(new Node.Cpu(id, c.string("model"), c.count("cores", 1, 100_000),
          c.optQuantity("clock", Units.Kind.FREQUENCY), numa, c.optQuantity("memory", Units.Kind.SIZE), memBw));
      c.done();
    }
    if (cpus.isEmpty()) {
      throw root.error("cpus", "a node needs at least one CPU");
    }

    List<Node.Gpu> gpus = new ArrayList<>();
    for (YamlMap g : root.maps("gpus", true)) {
      gpus.add(gpu(g, id(g, ids), gpus.size(), complete));
    }
    if (gpus.isEmpty() && complete) {
      throw root.error("gpus", "a node needs at least one GPU");
    }

    List<Node.Switch> switches = new ArrayList<>();
    for (YamlMap s : root.maps("switches", false)) {
      String id = id(s, ids);
      String type = s.string("type");
      if (!type.equals("pcie") && !type.equals("nvswitch")) {
        throw s.error("type", "unknown switch type '" + type + "' (known: pcie, nvswitch)");
      }
      switches.add(new Node.Switch(id, type, s.optString("model").orElse("")));
      s.done();
    }

    List<Node.Link> links = new ArrayList<>();
    Set<String> joined = new HashSet<>();
    for (YamlMap l : root.maps("links", true)) {
      links.add(LinkSection.read(l, ids, joined));
    }
    Set<String> reached = new HashSet<>();
    for (Node.Link l : links) {
      reached.add(l.a());
      reached.add(l.b());
    }
    for (Node.Gpu g : gpus) {
      if (!reached.contains(g.id())) {
        YamlMap.Scalar at = ids.get(g.id());
        throw at.error("GPU '" + g.id() + "' is reached by no link; add a link between it and a CPU or switch");
      }
    }
    for (Node.Cpu c : cpus) {
      if (!reached.contains(c.id()) && cpus.size() > 1) {
        throw ids.get(c.id()).error("CPU '" + c.id() + "' is reached by no link");
      }
    }

    Node.PeerAccess peer = peerAccess(root, ids, gpus);
    Node.Measured measured = root.map("measured").isPresent() ? MeasuredSection.read(root.map("measured").get(), name, cpus)
        : Node.Measured.none();
    HostOverheads host = root.map("host_overheads").isPresent()
        ? HostOverheadsSection.read(root.map("host_overheads").get(), HostOverheads.defaults()) : HostOverheads.defaults();
    root.done();
    List<NodeSkeleton.Unknown> unknowns = root.unknowns();
    if (complete && !unknowns.isEmpty()) {
      int more = unknowns.size() - 1;
      throw new NodeFileException(unknowns.get(0).message() + (more == 0 ? ""
          : " (and " + more + " more unknown value" + (more == 1 ? "" : "s") + ")"));
    }
    Node node = new Node(name, description, aliases, sources, cpuSpeed, cpus, gpus, switches, links, peer,
        measured, host, source);
    Topology.of(node); // every GPU must be reachable from host memory
    return new NodeSkeleton(node, unknowns);
  }

  private static List<String> strings(List<YamlMap.Scalar> s) {
    return s.stream().map(x -> x.text).toList();
  }

  private static String id(YamlMap m, Map<String, YamlMap.Scalar> ids) throws NodeFileException {
    List<YamlMap.Scalar> given = m.scalars("id", true);
    if (given.size() != 1) {
      throw m.error("id", "an id is one name, like gpu0");
    }
    YamlMap.Scalar id = given.get(0);
    if (!id.text.matches("[A-Za-z0-9_.-]+")) {
      throw id.error("\"" + id.text + "\" is not a usable id (letters, digits, '_', '.', '-')");
    }
    if (ids.putIfAbsent(id.text, id) != null) {
      throw id.error("the id '" + id.text + "' is used twice");
    }
    return id.text;
  }

  /**
   * One entry of {@code gpus}: its figures from the GPU catalogue unless the file gives them
   * ({@link GpuFigures}), the rest from the file.
   */
  private static Node.Gpu gpu(YamlMap g, String id, int index, boolean complete) throws NodeFileException {
    String model = g.string("model");
    GpuFigures f = GpuFigures.read(g, model, complete, GpuCatalogue.bundled());
    Node.Gpu gpu = new Node.Gpu(id, index, model, f.memoryBytes(), f.memoryBandwidth(), f.peakFlops(),
        g.count("copy_engines", 1, 64), g.bool("implicit_sync", false), g.bool("concurrent_kernels", true), f.sms(),
        f.clockHz(), g.optQuantity("launch_overhead", Units.Kind.TIME).orElse(5e-6), f.origins(), f.spec());
    g.done();
    return gpu;
  }

  private static Node.PeerAccess peerAccess(YamlMap root, Map<String, YamlMap.Scalar> ids, List<Node.Gpu> gpus)
      throws NodeFileException {
    if (!root.has("peer_access")) {
      return new Node.PeerAccess(Set.of("none"), Set.of());
    }
    Optional<YamlMap> asMap;
    try {
      asMap = root.map("peer_access");
    } catch (NodeFileException notAMap) {
      asMap = Optional.empty();
    }
    if (asMap.isPresent()) {
      YamlMap m = asMap.get();
      Set<Set<String>> pairs = new HashSet<>();
      for (List<YamlMap.Scalar> pair : m.rows("pairs")) {
        if (pair.size() != 2) {
          throw m.error("pairs", "each pair is two GPU ids: [gpu0, gpu1]");
        }
        for (YamlMap.Scalar g : pair) {
          if (gpus.stream().noneMatch(x -> x.id().equals(g.text))) {
            throw g.error("no GPU has the id '" + g.text + "'");
          }
        }
        pairs.add(Set.of(pair.get(0).text, pair.get(1).text));
      }
      m.done();
      return new Node.PeerAccess(Set.of(), pairs);
    }
    Set<String> rules = new HashSet<>();
    for (YamlMap.Scalar r : root.scalars("peer_access", true)) {
      if (!PEER_RULES.contains(r.text)) {
        throw r.error("unknown peer access rule '" + r.text + "' (known: none, all, nvlink, pcie-switch, or"
            + " pairs: [[gpu0, gpu1], ...])");
      }
      rules.add(r.text);
    }
    return new Node.PeerAccess(rules, Set.of());
  }
}
