package io.apptrace.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The report's numbers, read from the {@code replay --json} document of the same replay
 * ({@link io.apptrace.replay.ReplayJson}) so that the page and the JSON never disagree: per node,
 * the makespan, the critical-path breakdown, advice and notes; the comparisons of each node with
 * the first; and the what-ifs.
 */
public record ReportData(String trace, List<NodeSummary> nodes, List<Comparison> comparisons, List<WhatIf> whatIfs,
    String region) {
  /**
   * One node's summary.
   *
   * @param measuredMakespanNs the trace's measured makespan, -1 when it measured nothing on a GPU
   * @param breakdownNs the critical path by category, in the order the bars show them: kernels,
   *     memsets, each copy kind on the path ({@code copies pinned_h2d}, ...; or {@code copies} when
   *     the kinds are not given), calls, host, idle; they add up to the makespan
   */
  public record NodeSummary(String node, long makespanNs, long measuredMakespanNs, double speedupOverFirst,
      Map<String, Long> breakdownNs, List<String> advice, List<String> notes) {
    public NodeSummary {
      breakdownNs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(breakdownNs));
      advice = List.copyOf(advice);
      notes = List.copyOf(notes);
    }
  }

  /** A category of the critical path on the first node and on another, ns. */
  public record Category(String name, long againstNs, long nodeNs, long differenceNs) {}

  /** A node against the first: its speedup and the categories that differ, largest first. */
  public record Comparison(String node, String against, double speedup, List<Category> categories) {
    public Comparison {
      categories = List.copyOf(categories);
    }
  }

  public ReportData {
    Objects.requireNonNull(trace, "trace");
    nodes = List.copyOf(nodes);
    comparisons = List.copyOf(comparisons);
    whatIfs = List.copyOf(whatIfs);
  }

  /**
   * The report's numbers from a {@code replay --json} document (schema {@code apptrace.replay/1}).
   *
   * @param region the region of interest the replay projected, or null for the whole trace
   */
  public static ReportData of(JsonNode replayJson, List<WhatIf> whatIfs, String region) {
    List<NodeSummary> nodes = new ArrayList<>();
    for (JsonNode n : replayJson.get("nodes")) {
      nodes.add(new NodeSummary(n.get("node").asText(), n.get("makespan_ns").asLong(),
          n.get("measured_makespan_ns").isNull() ? -1 : n.get("measured_makespan_ns").asLong(),
          n.get("speedup_over_first").asDouble(), breakdown(n.get("breakdown_ns")), texts(n.get("advice")),
          texts(n.get("notes"))));
    }
    List<Comparison> comparisons = new ArrayList<>();
    for (JsonNode c : replayJson.path("comparisons")) {
      List<Category> cats = new ArrayList<>();
      for (JsonNode k : c.get("categories")) {
        cats.add(new Category(k.get("category").asText(), k.get("against_ns").asLong(), k.get("node_ns").asLong(),
            k.get("difference_ns").asLong()));
      }
      comparisons.add(new Comparison(c.get("node").asText(), c.get("against").asText(), c.get("speedup").asDouble(),
          cats));
    }
    return new ReportData(replayJson.get("trace").asText(), nodes, comparisons, whatIfs, region);
  }

  private static Map<String, Long> breakdown(JsonNode b) {
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("kernels", b.path("kernels").asLong());
    out.put("memsets", b.path("memsets").asLong());
    JsonNode kinds = b.path("copies_by_kind");
    if (kinds.size() > 0) {
      kinds.fields().forEachRemaining(e -> out.put("copies " + e.getKey(), e.getValue().asLong()));
    } else if (b.path("copies").asLong() > 0) {
      out.put("copies", b.path("copies").asLong());
    } // else no copy is on the path: the other nodes' copy kinds stand for "copies" in the table

    for (String k : List.of("calls", "host", "idle")) {
      out.put(k, b.path(k).asLong());
    }
    return out;
  }

  private static List<String> texts(JsonNode a) {
    List<String> out = new ArrayList<>();
    a.forEach(x -> out.add(x.asText()));
    return out;
  }
}
