package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The A100 training trace of the HolisticTraceAnalysis test data (docs/REFERENCES.md) replayed on
 * the bundled P100, V100, A100 and H100 nodes: its kernels re-timed by the kernel model, the nodes
 * come out in the order of their GPUs, and each node says what was re-timed (skipped without the
 * real data).
 */
class ReplayOtherGpuTest {
  @TempDir Path tmp;

  @Test
  void anA100TraceProjectsTheNodesInTheOrderOfTheirGpus() throws Exception {
    Path data = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("hta-kineto-traces/a100-sxm4-80gb_train_rank0.json.gz");
    assumeThat(Files.isRegularFile(data)).as("the real traces are in the realdata folder (absent here)").isTrue();
    Path trace = tmp.resolve("train.apptrace");
    Cli imp = Cli.run("import", data.toString(), "-o", trace.toString());
    assertThat(imp.exit()).as(imp.err()).isZero();
    Cli r = Cli.run("replay", trace.toString(), "--node", "dgx1", "--node", "dgx1-v100", "--node",
        "perlmutter-a100-80gb", "--node", "dgx-h100", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    Map<String, Long> makespan = new HashMap<>();
    for (JsonNode n : j.path("nodes")) {
      makespan.put(n.path("node").asText(), n.path("makespan_ns").asLong());
      if (!n.path("node").asText().equals("perlmutter-a100-80gb")) {
        assertThat(n.path("notes").toString()).as(n.path("node").asText())
            .contains("kernel(s) re-timed from NVIDIA A100-SXM4-80GB to");
      }
    }
    // the measured times score the model only on the node the trace was taken on; elsewhere they
    // are a baseline the projection is a speedup over
    for (JsonNode n : j.path("nodes")) {
      boolean own = n.path("node").asText().equals("perlmutter-a100-80gb");
      assertThat(n.path("trace_taken_here").asText()).as(n.path("node").asText()).isEqualTo(own ? "yes" : "no");
      assertThat(n.path("error").isNull()).as(n.path("node").asText()).isEqualTo(!own);
      assertThat(n.path("timeline_error").isNull()).as(n.path("node").asText()).isEqualTo(!own);
      assertThat(n.has("speedup_vs_measured_by_class")).as(n.path("node").asText()).isEqualTo(!own);
    }
    JsonNode h100 = j.path("nodes").get(3).path("speedup_vs_measured_by_class").path("kernels");
    assertThat(h100.path("speedup").asDouble()).isGreaterThan(1.0);
    Cli text = Cli.run("replay", trace.toString(), "--node", "dgx-h100");
    assertThat(text.out()).contains("against the measured times (the trace was taken on NVIDIA A100-SXM4-80GB, not on"
        + " dgx-h100's").doesNotContain("operation times against the measured ones");
    assertThat(makespan.get("dgx-h100")).isLessThan(makespan.get("perlmutter-a100-80gb"));
    assertThat(makespan.get("perlmutter-a100-80gb")).isLessThan(makespan.get("dgx1-v100"));
    assertThat(makespan.get("dgx1-v100")).isLessThan(makespan.get("dgx1"));
    // the 2016 P100 DGX-1 no longer comes out faster than the A100 the trace ran on
    Cli kept = Cli.run("replay", trace.toString(), "--node", "dgx1", "--kernel-policy", "keep");
    assertThat(kept.out()).contains("kept at their measured times: measured on NVIDIA A100-SXM4-80GB, kept on Tesla"
        + " P100-SXM2-16GB (--kernel-policy keep)");
  }
}
