package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads cluster files (docs/JOBS.md, "Cluster files"): YAML, read as node files are (a misspelt
 * key, a quantity without its unit, a value out of range is an error naming the file, line and
 * key). Bundled clusters are resources under {@code io/apptrace/clusters}.
 */
public final class ClusterLoader {
  private ClusterLoader() {}

  /** The bundled clusters' names. */
  public static final List<String> BUNDLED = List.of("summit-2racks", "dgx-a100-superpod", "perlmutter-gpu");

  /** A bundled cluster by name, or a cluster file by path. */
  public static Cluster resolve(String nameOrPath) throws NodeFileException {
    if (!nameOrPath.contains("/") && !nameOrPath.endsWith(".yaml") && !nameOrPath.endsWith(".yml")) {
      if (!BUNDLED.contains(nameOrPath)) {
        throw new NodeFileException("no bundled cluster named '" + nameOrPath + "'; bundled: "
            + String.join(", ", BUNDLED) + "; give a cluster file's path to use your own");
      }
      try (InputStream in = ClusterLoader.class.getResourceAsStream("/io/apptrace/clusters/" + nameOrPath + ".yaml")) {
        if (in == null) {
          throw new NodeFileException("the bundled cluster " + nameOrPath + " is missing from this build");
        }
        return parse(nameOrPath + ".yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new NodeFileException("cannot read the bundled cluster " + nameOrPath + ": " + e.getMessage());
      }
    }
    Path file = Path.of(nameOrPath);
    java.util.Optional<String> problem = io.apptrace.trace.InputFiles.describe(file);
    if (problem.isPresent()) {
      throw new NodeFileException(problem.get());
    }
    try {
      if (Files.size(file) > BoundedYaml.MAX_CODE_POINTS) {
        throw new NodeFileException(file + ": larger than 128 KiB; no cluster file is");
      }
      return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
    } catch (java.nio.charset.MalformedInputException e) {
      throw new NodeFileException(file + ": not UTF-8 text; a cluster file is YAML");
    } catch (IOException e) {
      throw new NodeFileException(file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /** Parses cluster file text; {@code file} names it in errors. */
  public static Cluster parse(String file, String text) throws NodeFileException {
    YamlMap y = YamlMap.parse(file, text);
    String name = y.string("name");
    String description = y.optString("description").orElse("");
    List<String> sources = new ArrayList<>();
    for (YamlMap.Scalar s : y.scalars("sources", false)) {
      sources.add(s.text);
    }
    String nodeName = y.string("node");
    Node node = NodeLoader.resolve(nodeName);
    int nodes = y.integer("nodes", 1, 1_000_000);
    int ranksPerNode = y.integer("ranks_per_node", 1, 4096);
    List<Integer> gpus = new ArrayList<>();
    for (YamlMap.Scalar s : y.scalars("gpus", false)) {
      Node.Gpu g = node.gpu(s.text).orElseThrow(() -> s.error("no GPU '" + s.text + "' in the node " + nodeName));
      gpus.add(g.index());
    }
    if (gpus.isEmpty()) {
      for (Node.Gpu g : node.gpus()) {
        gpus.add(g.index());
      }
    }
    if (gpus.isEmpty()) {
      throw y.keyError("node", "the node " + nodeName + " has no GPU");
    }
    YamlMap n = y.map("network").orElseThrow(() -> y.keyError("network", "missing: the network between the nodes"));
    Network network = network(n);
    y.done();
    return new Cluster(name, description, sources, node, nodes, ranksPerNode, gpus, network);
  }

  private static Network network(YamlMap n) throws NodeFileException {
    YamlMap nic = n.map("nic").orElseThrow(() -> n.keyError("nic", "missing: the NICs' bandwidth and latency"));
    double bandwidth = nic.quantity("bandwidth", Units.Kind.BANDWIDTH);
    double latency = nic.quantity("latency", Units.Kind.TIME);
    nic.done();
    double overhead = 0;
    double gap = 0;
    java.util.Optional<YamlMap> loggp = n.map("loggp");
    if (loggp.isPresent()) {
      overhead = loggp.get().optQuantityOrZero("o", Units.Kind.TIME).orElse(0);
      gap = loggp.get().optQuantityOrZero("g", Units.Kind.TIME).orElse(0);
      loggp.get().done();
    }
    YamlMap topo = n.map("topology").orElseThrow(() -> n.keyError("topology", "missing: fat-tree or dragonfly"));
    String cls = topo.string("class");
    double over = 1;
    int perSwitch = 1;
    int perGroup = 1;
    double globalLatency = 0;
    double globalShare = 1;
    switch (cls) {
      case Network.FAT_TREE -> {
        over = topo.number("oversubscription", 1, 64, 1);
        perSwitch = topo.integer("nodes_per_switch", 1, 1_000_000);
      }
      case Network.DRAGONFLY -> {
        perGroup = topo.integer("nodes_per_group", 1, 1_000_000);
        globalLatency = topo.optQuantityOrZero("global_latency", Units.Kind.TIME).orElse(0);
        globalShare = topo.number("global_share", 0.01, 1, 1);
      }
      default -> throw topo.keyError("class", "'" + cls + "' is not a topology class: fat-tree or dragonfly");
    }
    topo.done();
    boolean rdma = n.bool("gpudirect_rdma", true);
    double hostLatency = 0.5e-6;
    double hostBandwidth = 10e9;
    java.util.Optional<YamlMap> host = n.map("intra_node_host");
    if (host.isPresent()) {
      hostLatency = host.get().quantity("latency", Units.Kind.TIME);
      hostBandwidth = host.get().quantity("bandwidth", Units.Kind.BANDWIDTH);
      host.get().done();
    }
    double reduce = n.optQuantity("reduce_bandwidth", Units.Kind.BANDWIDTH).orElse(50e9);
    n.done();
    return new Network(bandwidth, latency, overhead, gap, cls, over, perSwitch, perGroup, globalLatency, globalShare,
        rdma, hostLatency, hostBandwidth, reduce);
  }
}
