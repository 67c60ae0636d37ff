package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code apptrace demo}: builds the bundled example with nvcc, captures and reports it. */
class DemoCommandTest {
  @TempDir Path tmp;

  @Test
  void helpSaysTheDemoAlsoReplays() {
    Cli r = Cli.run("demo", "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("replays it on two bundled nodes");
    assertThat(Cli.run("--help").out()).containsPattern("demo +Builds, captures, graphs and replays");
  }

  @Test
  void demoBuildsCapturesAndSaysWhereTheOutputWent() {
    Cli r = Cli.run("demo", "--dir", tmp.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(Files.isExecutable(tmp.resolve("pipeline"))).isTrue();
    assertThat(Files.isRegularFile(tmp.resolve("pipeline.apptrace"))).isTrue();
    assertThat(r.out()).contains("kernel launches:").contains("scale").contains("h2d")
        .contains("the trace is " + tmp.resolve("pipeline.apptrace"))
        .contains("its graph is " + tmp.resolve("pipeline.graphml"))
        .containsPattern("\\d+ values in \\d+ allocations").contains("races: 0");
    assertThat(Files.isRegularFile(tmp.resolve("pipeline.graphml"))).isTrue();
    // the replay on two nodes, with the canonical pipeline's stream-count advice
    assertThat(r.out()).contains("on two bundled nodes, ac922 and dgx1").contains("(speedup over ac922)")
        .contains("region of interest: from 'cudaEventRecord#1' to 'cudaEventSynchronize'")
        .contains("advice on ac922: copy/compute pipeline on gpu0 over 4 streams");
    assertThat(Files.isRegularFile(tmp.resolve("pipeline-replay.json"))).isTrue();
    // and the report to look at, said where it is
    assertThat(r.out()).contains("apptrace demo: the report is " + tmp.resolve("pipeline-report.html"));
    assertThat(tmp.resolve("pipeline-report.html")).isRegularFile();
  }

  /**
   * Five captures of the demo program, on a machine whose host times vary from one capture to the
   * next, project alike on every bundled node but for the program's own host compute, and the
   * projection of the pipeline is its copies, kernels and their launches, not set-up (docs/REPLAY.md, "CUDA calls", "Host threads" and
   * "Regions of interest"; docs/ACCURACY.md, "Captures on the simulated device").
   */
  @Test
  void fiveCapturesOfTheDemoProjectAlikeOnEveryBundledNode() throws Exception {
    assertThat(Cli.run("demo", "--dir", tmp.toString()).exit()).isZero();
    List<Path> traces = new ArrayList<>(List.of(tmp.resolve("pipeline.apptrace")));
    for (int i = 1; i < 5; i++) {
      Path t = tmp.resolve("again" + i + ".apptrace");
      Cli c = Cli.run("run", "--sim", "-q", "-o", t.toString(), "--", tmp.resolve("pipeline").toString());
      assertThat(c.exit()).as(c.err()).isZero();
      traces.add(t);
    }
    List<String> nodes = io.apptrace.node.BundledNodes.names();
    Map<String, List<Double>> makespans = new TreeMap<>();
    ObjectMapper json = new ObjectMapper();
    for (Path t : traces) {
      // as projected: the capturing machine's set-up, pinning and call times are gone; what is left
      // of its host time is the program's CPU time between calls, without the time the thread was
      // off the CPU or in the collector (the gaps were 17 to 68 ms before, one stall of 29 ms)
      JsonNode asIs = replay(json, t, nodes);
      for (JsonNode n : asIs.path("nodes")) {
        assertThat(n.path("critical_path").toString()).as(n.path("node").asText()).doesNotContain("cudaMallocHost")
            .doesNotContain("cudaMalloc\"").doesNotContain("cudaStreamCreate").doesNotContain("cudaEventCreate");
        assertThat(n.path("breakdown_ns").path("host").asDouble()).as(n.path("node").asText()).isLessThan(2e6);
      }
      // with the host's compute made negligible and what is left of it on the critical path set
      // aside, everything else the projection holds (copies, kernels, the calls priced by the
      // node's model) is the same from one capture to the next
      List<String> fast = new ArrayList<>(List.of("--set", "cpu_speed_factor=100"));
      for (JsonNode n : replay(json, t, nodes, fast.toArray(String[]::new)).path("nodes")) {
        makespans.computeIfAbsent(n.path("node").asText(), k -> new ArrayList<>())
            .add(n.path("makespan_ns").asDouble() - n.path("breakdown_ns").path("host").asDouble());
      }
    }
    assertThat(makespans.keySet()).containsExactlyInAnyOrderElementsOf(nodes);
    makespans.forEach((node, m) -> assertThat(Collections.max(m) / Collections.min(m)).as("%s: %s", node, m)
        .isLessThanOrEqualTo(1.03));
  }

  /**
   * The application what-ifs on the demo's pipeline (docs/REPLAY.md, "Application what-ifs"): its
   * copies are pinned and asynchronous on four streams already, so those what-ifs say they find
   * nothing to do, and its four copy-kernel-copy runs are what graph-launch launches as graphs.
   */
  @Test
  void theWhatIfsSayWhatTheyFindToChangeInTheDemo() throws Exception {
    assertThat(Cli.run("demo", "--dir", tmp.toString()).exit()).isZero();
    JsonNode w = replay(new ObjectMapper(), tmp.resolve("pipeline.apptrace"), List.of("dgx1"), "--what-if",
        "async-copies", "--what-if", "streams=8", "--what-if", "keep-resident", "--what-if", "merge-copies",
        "--what-if", "prefetch-managed", "--what-if", "graph-launch").path("what_if");
    List<String> applied = new ArrayList<>();
    w.path("applied").forEach(a -> applied.add(a.asText()));
    assertThat(applied).hasSize(6);
    assertThat(applied.get(0)).isEqualTo("async-copies: 0 synchronous copies to a GPU made asynchronous on a copy"
        + " stream");
    assertThat(applied.get(1)).contains("kept as they were").contains("(several streams or events)");
    assertThat(applied.get(2)).startsWith("keep-resident: 0 copies not made");
    assertThat(applied.get(3)).isEqualTo("merge-copies: 0 copies merged into 0");
    assertThat(applied.get(4)).startsWith("prefetch-managed: 0 prefetch(es)");
    assertThat(applied.get(5)).startsWith("graph-launch: 4 repeated run(s) of stream work (12 operations)");
    assertThat(w.path("nodes").get(0).path("changed_ops")).hasSize(12);
  }

  private static JsonNode replay(ObjectMapper json, Path trace, List<String> nodes, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("replay", trace.toString(), "--roi-from", DemoCommand.ROI_FROM,
        "--roi-to", DemoCommand.ROI_TO, "--json"));
    nodes.forEach(n -> args.addAll(List.of("--node", n)));
    args.addAll(List.of(more));
    Cli r = Cli.run(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.err()).isZero();
    return json.readTree(r.out());
  }
}
