package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NVTX ranges and marks of tests/cuda/nvtx.cu, captured with {@code apptrace run --sim}, as
 * {@code stats} counts them and as {@code replay --roi} projects them.
 */
class NvtxCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static Path trace;

  @BeforeAll
  static void capture() {
    trace = tmp.resolve("nvtx.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("nvtx")).exit()).isZero();
  }

  @Test
  void statsCountsRangesAndMarksByName() throws Exception {
    Cli stats = Cli.run("stats", "--json", trace.toString());
    assertThat(stats.exit()).isZero();
    JsonNode p = JSON.readTree(stats.out()).path("processes").get(0);
    JsonNode ranges = p.path("nvtx_ranges");
    assertThat(ranges.path("count").asLong()).isEqualTo(12);
    assertThat(ranges.path("unclosed").asLong()).isEqualTo(1);
    Map<String, Long> byName = new TreeMap<>();
    ranges.path("by_name").properties().forEach(e -> byName.put(e.getKey(), e.getValue().asLong()));
    assertThat(byName).containsExactlyInAnyOrderEntriesOf(Map.of("setup", 1L, "io:load", 1L, "handoff", 1L,
        "wörker", 1L, "step", 3L, "inner", 3L, "cudaProfiler", 1L, "unclosed", 1L));
    JsonNode marks = p.path("nvtx_marks");
    assertThat(marks.path("count").asLong()).isEqualTo(3);
    Map<String, Long> markNames = new TreeMap<>();
    marks.path("by_name").properties().forEach(e -> markNames.put(e.getKey(), e.getValue().asLong()));
    assertThat(markNames).containsExactlyInAnyOrderEntriesOf(Map.of("start", 1L, "", 1L, "io:saved \u2713", 1L));

    // the text: counts, and the most frequent names first
    assertThat(Cli.run("stats", trace.toString()).out())
        .contains("  NVTX ranges: 12 (1 never closed: ended at their thread's last event), marks: 3\n")
        .containsPattern("\n    inner +3\n    step +3\n")
        .contains("(3 more names: stats --json lists them all)");
  }

  @Test
  void replayOfARangeProjectsOnlyItsOperations() throws Exception {
    JsonNode whole = node(Cli.run("replay", trace.toString(), "--node", "dgx1", "--json"));
    Cli steps = Cli.run("replay", trace.toString(), "--node", "dgx1", "--roi", "step", "--json");
    assertThat(steps.exit()).as(steps.err()).isZero();
    JsonNode all3 = node(steps);
    // 3 steps of 4 kernels each; the set-up copies and the other kernels are left out
    assertThat(all3.path("operations").asInt()).isEqualTo(12);
    assertThat(whole.path("operations").asInt()).isEqualTo(2 + 1 + 12 + 5 + 1);
    assertThat(all3.path("makespan_ns").asLong()).isPositive().isLessThan(whole.path("makespan_ns").asLong());
    assertThat(JSON.readTree(steps.out()).path("region").asText()).contains("range 'step', 3 instance(s)");

    JsonNode second = node(Cli.run("replay", trace.toString(), "--node", "dgx1", "--roi", "step#2", "--json"));
    assertThat(second.path("operations").asInt()).isEqualTo(4);
    assertThat(second.path("makespan_ns").asLong()).isPositive().isLessThan(all3.path("makespan_ns").asLong());

    // a range of a named domain, and the profiler's range
    assertThat(node(Cli.run("replay", trace.toString(), "--node", "dgx1", "--roi", "io:load", "--json"))
        .path("operations").asInt()).isEqualTo(1);
    assertThat(node(Cli.run("replay", trace.toString(), "--node", "dgx1", "--roi", "cudaProfiler", "--json"))
        .path("operations").asInt()).isEqualTo(5);
    // from a mark
    assertThat(node(Cli.run("replay", trace.toString(), "--node", "dgx1", "--roi-from", "io:saved \u2713", "--json"))
        .path("operations").asInt()).isEqualTo(5 + 1);

    Cli missing = Cli.run("replay", trace.toString(), "--node", "dgx1", "--roi", "step#4");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).contains("the trace has 3 instance(s) of range 'step', not 4");
  }

  private static JsonNode node(Cli c) throws Exception {
    assertThat(c.exit()).as(c.err()).isZero();
    JsonNode nodes = JSON.readTree(c.out()).path("nodes");
    assertThat(nodes).hasSize(1);
    return nodes.get(0);
  }
}
