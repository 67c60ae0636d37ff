package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.node.BundledNodes;
import io.apptrace.node.LinkType;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code apptrace nodes [--json]}: the bundled node models, one line each. */
@Command(
    name = "nodes",
    header = "Lists the bundled node models.",
    description =
        "Lists the bundled node models: name, GPUs, links. Use a name with --node, or write"
            + " your own node file (docs/NODE-FORMAT.md) and give its path.")
final class NodesCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print a JSON array instead.")
  boolean json;

  @Option(names = "--show", paramLabel = "NAME", description = "Print a bundled node's file (YAML, with its"
      + " sources), then its GPUs' figures and where each came from (the GPU catalogue or the file): the"
      + " starting point for a node file of your own (docs/NODE-FORMAT.md).")
  String show;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (show != null) {
      try {
        String text = NodeLoader.bundledFile(show);
        out.print(text);
        out.print(text.endsWith("\n") ? "\n" : "\n\n");
        out.print(GpuFiguresText.of(NodeLoader.resolve(BundledNodes.canonical(show).orElse(show))));
      } catch (NodeFileException e) {
        throw new UserException(e.getMessage());
      }
      out.flush();
      return ExitCodes.OK;
    }
    List<Node> nodes = new ArrayList<>();
    for (String name : BundledNodes.names()) {
      try {
        nodes.add(NodeLoader.bundled(name).orElseThrow());
      } catch (NodeFileException e) {
        throw new IllegalStateException("the bundled node " + name + " does not load: " + e.getMessage(), e);
      }
    }
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ArrayNode a = mapper.createArrayNode();
      for (Node n : nodes) {
        ObjectNode o = a.addObject();
        o.put("name", n.name());
        o.put("description", n.description());
        o.put("cpus", n.cpus().size());
        o.put("gpus", n.gpus().size());
        o.put("gpu_model", gpuModels(n));
        ObjectNode links = o.putObject("links");
        linkCounts(n).forEach(links::put);
        o.put("measured", !n.measured().latency().isEmpty());
      }
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(a));
    } else {
      int width = nodes.stream().mapToInt(n -> n.name().length()).max().orElse(4);
      for (Node n : nodes) {
        StringBuilder links = new StringBuilder();
        linkCounts(n).forEach((k, v) -> links.append(links.length() == 0 ? "" : ", ").append(v).append(" ").append(k));
        out.printf(Locale.ROOT, "%-" + width + "s  %d x %-28s %s%n", n.name(), n.gpus().size(), gpuModels(n), links);
      }
    }
    out.flush();
    return ExitCodes.OK;
  }

  private static String gpuModels(Node n) {
    return n.gpus().stream().map(Node.Gpu::model).distinct().reduce((a, b) -> a + " + " + b).orElse("");
  }

  /** Link counts by kind: "pcie gen3", "nvlink2", "xbus". */
  private static Map<String, Integer> linkCounts(Node n) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (Node.Link l : n.links()) {
      String k = l.type() == LinkType.PCIE ? "pcie gen" + l.pcie().orElseThrow().generation()
          : l.type() == LinkType.NVLINK ? "nvlink" + l.nvlinkGeneration() : l.type().key();
      m.merge(k, 1, Integer::sum);
    }
    return m;
  }
}
