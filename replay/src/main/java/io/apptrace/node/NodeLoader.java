package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * Reads and checks node files (docs/NODE-FORMAT.md). Every error is a {@link NodeFileException}
 * naming the file, line, column and key. What-if overrides ({@code --set PATH=VALUE}, {@link
 * NodeOverride}) change the composed file before it is checked; an error about a value one gave
 * names the {@code --set} instead of a line of the file.
 *
 * <p>A node to price things on must be complete: a value written {@code unknown} (as {@code
 * apptrace topo} leaves what it cannot read from a machine) is refused by name, with how to fill
 * it in. {@link #parseSkeleton} and {@link #loadSkeleton} read such a file without refusing it.
 */
public final class NodeLoader {
  /** Where the bundled node files are, on the class path. */
  static final String BUNDLED = "/io/apptrace/nodes/";

  private static final Set<String> PEER_RULES = Set.of("none", "all", "nvlink", "pcie-switch");

  private NodeLoader() {}

  /**
   * A bundled node by name ({@code ac922}) or a node file by path ({@code ac922.yaml},
   * {@code ./nodes/x.yaml}): a name with no {@code /} and no {@code .yaml} is a bundled name.
   */
  public static Node resolve(String nameOrPath) throws NodeFileException {
    if (!isPath(nameOrPath)) {
      return bundled(BundledNodes.canonical(nameOrPath).orElse(nameOrPath)).orElseThrow(() -> noBundled(nameOrPath));
    }
    return load(Path.of(nameOrPath));
  }

  private static boolean isPath(String nameOrPath) {
    return nameOrPath.contains("/") || nameOrPath.endsWith(".yaml") || nameOrPath.endsWith(".yml");
  }

  private static NodeFileException noBundled(String name) {
    List<String> near = BundledNodes.nearest(name);
    return new NodeFileException("no bundled node named '" + name + "'" + (near.isEmpty() ? ""
        : " (did you mean " + String.join(" or ", near) + "?)") + "; bundled: " + String.join(", ", BundledNodes.names())
        + " ('apptrace nodes' lists them); give a node file's path to use your own");
  }

  /**
   * As {@link #resolve(String)}, with what-if overrides ({@code --set PATH=VALUE}) applied to the
   * file before it is checked; with none, the same as {@link #resolve(String)}. A node read with
   * overrides is never cached: the bundled node other callers get stays as its file says.
   *
   * @throws NodeOverrideException if a PATH names no field of the node (or a list item it lacks)
   * @throws NodeFileException if the node, with the overrides' VALUEs, is not a valid node; errors
   *     about an override's value are located at the {@code --set} instead of the file
   */
  public static Node resolve(String nameOrPath, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    if (overrides.isEmpty()) {
      return resolve(nameOrPath);
    }
    Node changed = !isPath(nameOrPath) ? bundled(BundledNodes.canonical(nameOrPath).orElse(nameOrPath), overrides)
        .orElseThrow(() -> noBundled(nameOrPath)) : load(Path.of(nameOrPath), overrides);
    return withCurveLinks(resolve(nameOrPath), changed, overrides);
  }

  /**
   * {@code changed}, whose measured curves, where a {@code --set} changed the links they were
   * measured over and did not set the curves themselves, remember those links as the file has them
   * ({@link Node.Measured#curveLinks}): the cost model rescales a curve on a route whose links
   * changed (docs/REPLAY.md, "What-if").
   */
  private static Node withCurveLinks(Node original, Node changed, List<NodeOverride> overrides) {
    boolean curvesSet = overrides.stream().anyMatch(o -> o.path().startsWith("measured.curves"));
    if (curvesSet || changed.measured().curves().isEmpty() || original.links().equals(changed.links())) {
      return changed;
    }
    return new Node(changed.name(), changed.description(), changed.aliases(), changed.sources(),
        changed.cpuSpeedFactor(), changed.cpus(), changed.gpus(), changed.switches(), changed.links(),
        changed.peerAccess(), changed.measured().withCurveLinks(original.links()), changed.hostOverheads(),
        changed.source());
  }

  /** Bundled nodes already read (they never change while apptrace runs). */
  private static final Map<String, Node> BUNDLED_CACHE = new java.util.concurrent.ConcurrentHashMap<>();

  /** A bundled node, if there is one by that name. */
  public static Optional<Node> bundled(String name) throws NodeFileException {
    if (!name.matches("[a-z0-9][a-z0-9._-]*")) {
      return Optional.empty();
    }
    Node cached = BUNDLED_CACHE.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    Optional<String> text = bundledText(name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    // the tree the build composed from the file (NodeTrees), else the file itself
    Optional<MappingNode> tree = NodeTrees.bundled(name, text.get());
    Node n = tree.isPresent() ? parse(name + ".yaml", tree.get(), name) : parse(name + ".yaml", text.get(), name);
    if (!n.name().equals(name)) {
      throw new NodeFileException(name + ".yaml: name: the bundled file says '" + n.name()
          + "'; a bundled node's name is its file's");
    }
    BUNDLED_CACHE.put(name, n);
    return Optional.of(n);
  }

  /**
   * A bundled node with overrides applied (read afresh, never cached); with none, the same as
   * {@link #bundled(String)}.
   */
  public static Optional<Node> bundled(String name, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    if (overrides.isEmpty()) {
      return bundled(name);
    }
    if (!name.matches("[a-z0-9][a-z0-9._-]*")) {
      return Optional.empty();
    }
    Optional<String> text = bundledText(name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String file = name + ".yaml";
    MappingNode root = YamlMap.compose(file, text.get());
    String named = NodeOverrides.nodeName(file, root); // as the file says, before any --set name=
    if (!named.equals(name)) {
      throw new NodeFileException(file + ": name: the bundled file says '" + named
          + "'; a bundled node's name is its file's");
    }
    return Optional.of(withOverrides(file, root, name, overrides));
  }

  /**
   * The text of the bundled node file a user names (its name or an alias, in any case): the
   * starting point for a node file of one's own.
   *
   * @throws NodeFileException when no bundled node has that name, with the nearest names
   */
  public static String bundledFile(String typed) throws NodeFileException {
    Optional<String> name = BundledNodes.canonical(typed);
    if (name.isEmpty()) {
      throw noBundled(typed);
    }
    return bundledText(name.get()).orElseThrow(() -> noBundled(typed));
  }

  private static Optional<String> bundledText(String name) throws NodeFileException {
    try (InputStream in = NodeLoader.class.getResourceAsStream(BUNDLED + name + ".yaml")) {
      if (in == null) {
        return Optional.empty();
      }
      return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new NodeFileException("cannot read the bundled node " + name + ": " + e.getMessage());
    }
  }

  /**
   * A node file that may be incomplete (values written {@code unknown}, no GPU), checked for
   * everything else.
   */
  public static NodeSkeleton loadSkeleton(Path file) throws NodeFileException {
    return parseSkeleton(file.toString(), read(file), file.toString());
  }

  /** As {@link #loadSkeleton}, from text; {@code file} names it in errors. */
  public static NodeSkeleton parseSkeleton(String file, String text, String source) throws NodeFileException {
    return read(YamlMap.parse(file, text), source, false);
  }

  /** A node file. */
  public static Node load(Path file) throws NodeFileException {
    return parse(file.toString(), read(file), file.toString());
  }

  /** A node file with overrides applied; with none, the same as {@link #load(Path)}. */
  public static Node load(Path file, List<NodeOverride> overrides) throws NodeFileException, NodeOverrideException {
    return parse(file.toString(), read(file), file.toString(), overrides);
  }

  private static String read(Path file) throws NodeFileException {
    java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.describe(file);
    if (unreadable.isPresent()) {
      throw new NodeFileException(unreadable.get());
    }
    try {
      if (Files.size(file) > YamlMap.MAX_CODE_POINTS) {
        throw new NodeFileException(file + ": larger than 128 KiB; no node file is");
      }
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new NodeFileException(file + ": no such file");
    } catch (java.nio.charset.MalformedInputException e) {
      throw new NodeFileException(file + ": not UTF-8 text; a node file is YAML");
    } catch (IOException e) {
      throw new NodeFileException(file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /**
   * Parses node file text with overrides applied to it before it is checked; {@code file} names
   * it in errors. With overrides, the node's {@link Node#source()} is {@code source} followed by
   * them: {@code ac922 (with --set gpus.gpu0.copy_engines=2)}.
   */
  public static Node parse(String file, String text, String source, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    if (overrides.isEmpty()) {
      return parse(file, text, source);
    }
    return withOverrides(file, YamlMap.compose(file, text), source, overrides);
  }

  private static Node withOverrides(String file, MappingNode root, String source, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    NodeOverrides.apply(file, root, overrides);
    return parse(YamlMap.root(file, root), source + " (with " + NodeOverrides.describe(overrides) + ")");
  }

  /** Parses node file text; {@code file} names it in errors. */
  public static Node parse(String file, String text, String source) throws NodeFileException {
    return parse(YamlMap.parse(file, text), source);
  }

  /** Reads and checks a node file composed beforehand ({@link NodeTrees}); {@code file} names it in errors. */
  static Node parse(String file, MappingNode tree, String source) throws NodeFileException {
    return parse(YamlMap.root(file, tree), source);
  }

  /** Reads and checks a composed node file, which must be complete. */
  private static Node parse(YamlMap root, String source) throws NodeFileException {
    return read(root, source, true).node();
  }

  /**
   * Reads and checks a composed node file (its top-level mapping, which it may have changed);
   * {@code complete}: refuse values written {@code unknown}, and a node without GPUs.
   */
  private static NodeSkeleton read(YamlMap root, String source, boolean complete) throws NodeFileException {
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
      links.add(link(l, ids, joined));
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
    Node.Measured measured = root.map("measured").isPresent() ? measured(root.map("measured").get(), name, cpus)
        : Node.Measured.none();
    HostOverheads host = root.map("host_overheads").isPresent()
        ? hostOverheads(root.map("host_overheads").get(), HostOverheads.defaults()) : HostOverheads.defaults();
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

  private static Node.Link link(YamlMap l, Map<String, YamlMap.Scalar> ids, Set<String> joined)
      throws NodeFileException {
    List<YamlMap.Scalar> ends = l.scalars("between", true);
    if (ends.size() != 2) {
      throw l.error("between", "a link is between two ids: [a, b]");
    }
    for (YamlMap.Scalar e : ends) {
      if (!ids.containsKey(e.text)) {
        throw e.error("no CPU, GPU or switch has the id '" + e.text + "'");
      }
    }
    String a = ends.get(0).text;
    String b = ends.get(1).text;
    if (a.equals(b)) {
      throw l.error("between", "a link joins two different ids");
    }
    String key = a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
    if (!joined.add(key)) {
      throw l.error("between", "a second link between " + a + " and " + b + "; give one link with 'count'"
          + " or more lanes");
    }
    String typeName = l.string("type");
    LinkType type = LinkType.of(typeName).orElseThrow(() -> l.error("type", "unknown link type '" + typeName
        + "' (known: pcie, nvlink, nvlink-c2c, xbus, qpi, upi, infinity-fabric, smp)"));
    // efficiency: one number, [a to b, b to a] when the directions differ, or {read, write} when it
    // depends on whether a device reads or writes memory across the link
    double efficiency = 1.0;
    double efficiencyBack = 1.0;
    double[] byAccess = accessEfficiency(l);
    List<YamlMap.Scalar> eff = byAccess != null ? List.of() : l.scalars("efficiency", false);
    if (eff.size() > 2) {
      throw l.error("efficiency", "give one efficiency, or two: [from " + a + " to " + b + ", back]");
    }
    for (int k = 0; k < eff.size(); k++) {
      double v;
      try {
        v = Double.parseDouble(eff.get(k).text.strip());
      } catch (NumberFormatException e) {
        throw eff.get(k).error("\"" + eff.get(k).text + "\" is not a number");
      }
      if (!(v >= 0.01 && v <= 1.0)) {
        throw eff.get(k).error(eff.get(k).text + " is out of range; it must be from 0.01 to 1.0");
      }
      if (k == 0) {
        efficiency = efficiencyBack = v;
      } else {
        efficiencyBack = v;
      }
    }
    double duplex = l.number("duplex", 0.01, 1.0, 1.0);
    int count = l.optInteger("count", 1, 64).orElse(1);
    Optional<Node.Pcie> pcie = Optional.empty();
    int nvGen = 0;
    double bandwidth;
    switch (type) {
      case PCIE -> {
        int gen = l.count("generation", 1, 6);
        int lanes = l.count("lanes", 1, 32);
        if (Integer.bitCount(lanes) != 1) {
          throw l.error("lanes", lanes + " lanes: PCIe links have 1, 2, 4, 8, 16 or 32");
        }
        int mrd = 12;
        int mwr = 12;
        int cpld = 12;
        Optional<YamlMap> o = l.map("overheads");
        if (o.isPresent()) {
          mrd = o.get().optInteger("mrd", 0, 256).orElse(12);
          mwr = o.get().optInteger("mwr", 0, 256).orElse(12);
          cpld = o.get().optInteger("cpld", 0, 256).orElse(12);
          o.get().done();
        }
        int mps = l.optInteger("mps", 64, 4096).orElse(256);
        int mrrs = l.optInteger("mrrs", 64, 4096).orElse(512);
        int rcb = l.optInteger("rcb", 32, 4096).orElse(64);
        if (rcb > mps) {
          throw l.error("rcb", "rcb " + rcb + " is larger than mps " + mps + "; the read completion boundary"
              + " is at most the maximum payload");
        }
        pcie = Optional.of(new Node.Pcie(gen, lanes, mps, mrrs, rcb, mrd, mwr, cpld));
        bandwidth = PcieGeneration.of(gen).linkBandwidth(lanes) * count;
      }
      case NVLINK -> {
        nvGen = l.count("generation", 1, 5);
        int lanes = l.optCount("lanes", 1, 64).orElse(1);
        OptionalDouble laneBw = l.optQuantity("lane_bandwidth", Units.Kind.BANDWIDTH);
        OptionalDouble whole = l.optQuantity("bandwidth", Units.Kind.BANDWIDTH);
        if (laneBw.isPresent() && whole.isPresent()) {
          throw l.error("bandwidth", "give lane_bandwidth or bandwidth, not both");
        }
        if (whole.isPresent()) {
          bandwidth = whole.getAsDouble() * count;
        } else if (laneBw.isPresent()) {
          bandwidth = laneBw.getAsDouble() * lanes * count;
        } else if (nvGen <= 2) {
          // Pearson 2018, Table 2.1: NVLink 1.0 lanes run at 20 GB/s, NVLink 2.0 lanes at 25 GB/s, per direction
          bandwidth = (nvGen == 1 ? 20e9 : 25e9) * lanes * count;
        } else {
          throw l.error("generation", "NVLink " + nvGen + ": give lane_bandwidth (per direction, e.g. \"25 GB/s\")"
              + " or bandwidth");
        }
      }
      default -> bandwidth = l.quantity("bandwidth", Units.Kind.BANDWIDTH) * count;
    }
    l.done();
    return new Node.Link(a + "-" + b, a, b, type, bandwidth, efficiency, efficiencyBack, duplex, count, pcie, nvGen,
        byAccess == null ? 1.0 : byAccess[0], byAccess == null ? 1.0 : byAccess[1]);
  }

  /**
   * A link's {@code efficiency: {read: R, write: W}}: R for transfers in which a device reads memory
   * across the link (host to device), W where it writes it (device to host, GPU to GPU); null when
   * the efficiency is a number or a pair, or absent.
   */
  private static double[] accessEfficiency(YamlMap l) throws NodeFileException {
    if (!l.has("efficiency")) {
      return null;
    }
    Optional<YamlMap> m;
    try {
      m = l.map("efficiency");
    } catch (NodeFileException notAMap) {
      return null;
    }
    if (m.isEmpty()) {
      return null;
    }
    double read = m.get().number("read", 0.01, 1.0, 1.0);
    double write = m.get().number("write", 0.01, 1.0, 1.0);
    m.get().done();
    return new double[] {read, write};
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

  /**
   * A {@code host_overheads} section: each figure it gives, over {@code base}'s (null for the
   * bundled defaults themselves, which must give every figure).
   */
  static HostOverheads hostOverheads(YamlMap m, HostOverheads base) throws NodeFileException {
    java.util.Map<ApiClass, Long> fixed = new java.util.EnumMap<>(ApiClass.class);
    java.util.Map<ApiClass, Long> perMib = new java.util.EnumMap<>(ApiClass.class);
    java.util.Set<ApiClass> set = java.util.EnumSet.noneOf(ApiClass.class);
    if (base != null) {
      fixed.putAll(base.fixedNs());
      perMib.putAll(base.perMibNs());
    }
    String source = m.has("source") ? m.string("source") : base == null ? null : "the node file";
    for (ApiClass c : ApiClass.values()) {
      java.util.OptionalDouble v = m.optQuantity(c.key(), Units.Kind.TIME);
      if (v.isPresent()) {
        fixed.put(c, Math.round(v.getAsDouble() * 1e9));
        set.add(c);
      } else if (base == null) {
        throw m.error(c.key(), "the figure is missing");
      }
      if (c.perMib()) {
        java.util.OptionalDouble w = m.optQuantityOrZero(c.key() + "_per_mib", Units.Kind.TIME);
        if (w.isPresent()) {
          perMib.put(c, Math.round(w.getAsDouble() * 1e9));
          set.add(c);
        } else if (base == null) {
          throw m.error(c.key() + "_per_mib", "the figure is missing");
        }
      }
    }
    m.done();
    if (source == null) {
      throw m.error("source", "say where the figures come from");
    }
    return new HostOverheads(source, fixed, perMib, base == null ? java.util.Set.of() : set);
  }

  private static Node.Measured measured(YamlMap m, String self, List<Node.Cpu> cpus) throws NodeFileException {
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
      Node other = bundled(from.get()).orElseThrow();
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
