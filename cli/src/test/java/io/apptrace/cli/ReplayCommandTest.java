package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code apptrace replay} on captures of real CUDA programs, as a user sees it. */
class ReplayCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  static Path pipeline;
  static Path multigpu;

  @BeforeAll
  static void capture() {
    pipeline = tmp.resolve("pipeline.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "--output=" + pipeline, Cli.cudaTest("pipeline")).exit()).isZero();
    multigpu = tmp.resolve("multigpu.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "--output=" + multigpu, Cli.cudaTest("multigpu")).exit()).isZero();
  }

  @Test
  void jsonSummaryFollowsTheContract() throws Exception {
    Cli r = Cli.run("replay", pipeline.toString(), "--node", "ac922", "--node", "dgx1", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.path("schema").asText()).isEqualTo("apptrace.replay/1");
    assertThat(j.path("nodes")).hasSize(2);
    for (JsonNode n : j.path("nodes")) {
      assertThat(n.path("makespan_ns").asLong()).isPositive();
      // a capture on the simulated device measures no GPU times
      assertThat(n.path("measured_makespan_ns").isNull()).isTrue();
      assertThat(n.path("error").isNull()).isTrue();
      JsonNode b = n.path("breakdown_ns");
      long sum = b.path("kernels").asLong() + b.path("memsets").asLong() + b.path("copies").asLong()
          + b.path("calls").asLong() + b.path("host").asLong() + b.path("idle").asLong();
      assertThat((double) sum).as("the breakdown adds up to the makespan")
          .isCloseTo(n.path("makespan_ns").asDouble(), org.assertj.core.data.Offset.offset(5.0));
      assertThat(n.path("critical_path").size()).isPositive();
      assertThat(n.path("notes").toString()).contains("lower bound");
    }
    assertThat(j.path("nodes").get(0).path("node").asText()).isEqualTo("ac922");
    assertThat(j.path("nodes").get(0).path("speedup_over_first").asDouble()).isEqualTo(1.0);
    // the fixed costs copies were priced with, as GPU time, and how each node's figure was timed
    // (docs/COST-MODEL.md, "Timing kinds"): ac922 reuses Titan's GPU times, dgx1 has its own, event-timed
    JsonNode ac = j.path("nodes").get(0).path("fixed_costs").path("pinned_h2d");
    assertThat(ac.path("timed").asText()).isEqualTo("gpu");
    assertThat(ac.path("latency_ns").asLong()).isEqualTo(960);
    JsonNode dgx = j.path("nodes").get(1).path("fixed_costs").path("pinned_h2d");
    assertThat(dgx.path("timed").asText()).isEqualTo("event");
    assertThat(dgx.path("latency_call_ns").asLong()).isEqualTo(10913);
    assertThat(dgx.path("latency_ns").asLong()).isEqualTo(1344);
    assertThat(dgx.path("conversion").asText()).startsWith("GPU time converted from 10.91 us event-timed");
  }

  @Test
  void textReportComparesTheNodes() {
    Cli r = Cli.run("replay", pipeline.toString(), "--node", "ac922", "--node", "dgx1");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("on ac922: projected makespan").contains("on dgx1: projected makespan")
        .contains("  fixed costs on the GPU (L+o; docs/COST-MODEL.md, \"Timing kinds\"):")
        .contains("    pinned_h2d         1.34 us, measured on dgx1 (pinned_h2d), event-timed: GPU time converted"
            + " from 10.91 us")
        .contains("along the critical path:").contains("critical path (").contains("(speedup over ac922)")
        .containsPattern("\\nac922 +[0-9.]+ [mu]?s .*1\\.00x\\n")
        .contains("captured on the simulated device: no GPU times were measured");
    // this pipeline copies in on four streams and out on a fifth: no stream runs the canonical
    // pattern (in, kernel, out), so no stream-count advice
    assertThat(r.out()).doesNotContain("advice: copy/compute pipeline");
  }

  /**
   * Why the second node's projection differs from the first's: the categories side by side after
   * the table, and with --diff N the N operations whose durations differ most, in the text and in
   * the JSON.
   */
  @Test
  void theNodesAreExplainedAgainstTheFirstAndDiffListsTheOperations() throws Exception {
    Cli text = Cli.run("replay", pipeline.toString(), "--node", "ac922", "--node", "dgx1", "--diff", "3");
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out()).containsPattern("\\ndgx1 against ac922 \\([0-9.]+x\\): [a-z]")
        .contains("  operations that differ most (duration on ac922 -> dgx1):");
    long listed = text.out().lines().filter(l -> l.startsWith("    op ")).count();
    assertThat(listed).isBetween(1L, 3L);
    com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
        Cli.run("replay", pipeline.toString(), "--node", "ac922", "--node", "dgx1", "--json", "--diff").out());
    com.fasterxml.jackson.databind.JsonNode c = j.path("comparisons").get(0);
    assertThat(c.path("node").asText()).isEqualTo("dgx1");
    assertThat(c.path("against").asText()).isEqualTo("ac922");
    // a capture on a loaded machine can have a critical path of host time alone, the same on both
    // nodes: then the text says so and the JSON lists no category
    boolean same = text.out().contains("dgx1 against ac922 (1.00x): the same critical path");
    assertThat(c.path("categories").isEmpty()).as(text.out()).isEqualTo(same);
    long first = same ? 0 : Math.abs(c.path("categories").get(0).path("difference_ns").asLong());
    for (com.fasterxml.jackson.databind.JsonNode k : c.path("categories")) {
      assertThat(Math.abs(k.path("difference_ns").asLong())).as("largest difference first").isLessThanOrEqualTo(first);
      assertThat(k.path("node_ns").asLong() - k.path("against_ns").asLong()).isEqualTo(k.path("difference_ns")
          .asLong());
    }
    assertThat(c.path("operations").size()).isBetween(1, 10);
    assertThat(Cli.run("replay", pipeline.toString(), "--node", "ac922", "--diff", "-1").exit()).isEqualTo(2);
  }

  /** OUT.gz holds exactly what OUT holds, compressed. */
  @Test
  void gzipNamedTimelineAndCsvAreThePlainOnesCompressed() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("gz"));
    String[] plain = {"--ops-csv", dir.resolve("ops.csv").toString(), "--timeline", dir.resolve("t.json").toString()};
    String[] gz = {"--ops-csv", dir.resolve("ops.csv.gz").toString(), "--timeline", dir.resolve("t.json.gz").toString()};
    for (String[] outputs : new String[][] {plain, gz}) {
      Cli r = Cli.run(concat(new String[] {"replay", pipeline.toString(), "--node", "ac922", "--node", "dgx1"}, outputs));
      assertThat(r.exit()).as(r.err()).isZero();
    }
    assertThat(Gzip.decompress(dir.resolve("ops.csv.gz"))).isEqualTo(Files.readAllBytes(dir.resolve("ops.csv")));
    assertThat(Gzip.decompress(dir.resolve("t.json.gz"))).isEqualTo(Files.readAllBytes(dir.resolve("t.json")));
    assertThat(Files.size(dir.resolve("t.json.gz"))).isLessThan(Files.size(dir.resolve("t.json")) / 3);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  @Test
  void opsCsvAndTimelineAreWritten() throws Exception {
    Path csv = tmp.resolve("ops.csv");
    Path timeline = tmp.resolve("timeline.json");
    Cli r = Cli.run("replay", pipeline.toString(), "--node", "ac922", "--node", "dgx1", "--ops-csv", csv.toString(),
        "--timeline", timeline.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> rows = Files.readAllLines(csv);
    assertThat(rows.get(0)).startsWith("op_id,kind,name,thread,stream,bytes,start_ns,end_ns,duration_ns,engine");
    assertThat(rows.subList(1, rows.size())).hasSize(2 * 9) // the pipeline's 9 operations on each node
        .allSatisfy(row -> assertThat(row).matches("\\d+,(copy|kernel|memset),.*,(ac922|dgx1),\\d+"));
    JsonNode t = JSON.readTree(timeline.toFile());
    List<String> names = t.path("traceEvents").findValuesAsText("name");
    assertThat(names).contains("process_name", "thread_name", "square");
    assertThat(t.path("traceEvents").toString()).contains("projected on ac922").contains("projected on dgx1")
        .contains("\"ph\":\"C\"");
  }

  @Test
  void aDeviceTheNodeLacksIsNamedAndMapWorks() throws Exception {
    Cli lacks = Cli.run("replay", multigpu.toString(), "--node", "titan");
    assertThat(lacks.exit()).isEqualTo(1);
    assertThat(lacks.err().strip()).startsWith("apptrace replay: the trace uses device 1 (")
        .contains("which titan lacks (it has only gpu0); map it with --map gpu1=gpuN").doesNotContain("\n");
    // among several nodes, the one that lacks a device reports its error in its place; the others replay
    Cli some = Cli.run("replay", multigpu.toString(), "--node", "titan", "--node", "dgx1");
    assertThat(some.exit()).isEqualTo(1);
    assertThat(some.out()).contains("on dgx1: projected makespan")
        .contains("not replayed on titan: the trace uses device 1 (");
    assertThat(some.err().strip()).startsWith("apptrace replay: titan: the trace uses device 1 (").doesNotContain("\n");
    var someJson = new com.fasterxml.jackson.databind.ObjectMapper().readTree(Cli.run("replay", multigpu.toString(),
        "--node", "titan", "--node", "dgx1", "--json").out());
    assertThat(someJson.path("nodes")).hasSize(1);
    assertThat(someJson.path("nodes").get(0).path("node").asText()).isEqualTo("dgx1");
    assertThat(someJson.path("not_replayed").get(0).asText()).startsWith("titan: the trace uses device 1");
    Cli mapped = Cli.run("replay", multigpu.toString(), "--node", "titan", "--map", "gpu1=gpu0", "--json");
    assertThat(mapped.exit()).as(mapped.err()).isZero();
    Cli bad = Cli.run("replay", multigpu.toString(), "--node", "titan", "--map", "1:0");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains("--map '1:0': write it like gpu1=gpu0");
  }

  @Test
  void unknownNodesAndSetPathsAreRefused() {
    Cli unknown = Cli.run("replay", pipeline.toString(), "--node", "cray-1");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("no bundled node named 'cray-1'; bundled: titan, summit, ac922");
    Cli badPath = Cli.run("replay", pipeline.toString(), "--node", "ac922", "--set", "gpus.gpu0.copy_engine=2");
    assertThat(badPath.exit()).isEqualTo(2);
    assertThat(badPath.err()).contains("did you mean gpus.gpu0.copy_engines?");
  }

  @Test
  void setChangesTheNodeForTheReplay() throws Exception {
    // fewer lanes on the pipeline's links: the copies slow down, nothing else changes
    JsonNode base = JSON.readTree(Cli.run("replay", pipeline.toString(), "--node", "dgx1", "--json").out());
    Cli slow = Cli.run("replay", pipeline.toString(), "--node", "dgx1", "--set", "links.plx0-gpu0.lanes=4",
        "--json");
    assertThat(slow.exit()).as(slow.err()).isZero();
    JsonNode s = JSON.readTree(slow.out()).path("nodes").get(0);
    assertThat(s.path("node_source").asText()).contains("--set links.plx0-gpu0.lanes=4");
    assertThat(s.path("breakdown_ns").path("copies").asLong())
        .isGreaterThan(base.path("nodes").get(0).path("breakdown_ns").path("copies").asLong());
  }

  @Test
  void scaleKernelsScalesKernelTimes() throws Exception {
    Path csv1 = tmp.resolve("k1.csv");
    Path csv2 = tmp.resolve("k2.csv");
    assertThat(Cli.run("replay", pipeline.toString(), "--node", "ac922", "--ops-csv", csv1.toString()).exit()).isZero();
    assertThat(Cli.run("replay", pipeline.toString(), "--node", "ac922", "--scale-kernels", "3", "--ops-csv",
        csv2.toString()).exit()).isZero();
    List<String> a = Files.readAllLines(csv1);
    List<String> b = Files.readAllLines(csv2);
    for (int i = 1; i < a.size(); i++) {
      String[] x = a.get(i).split(",");
      String[] y = b.get(i).split(",");
      if (x[1].equals("kernel")) {
        assertThat(Long.parseLong(y[8])).isCloseTo(3 * Long.parseLong(x[8]), org.assertj.core.data.Offset.offset(2L));
      }
    }
  }
}
