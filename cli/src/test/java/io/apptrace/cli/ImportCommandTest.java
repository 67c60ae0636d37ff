package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code apptrace import}, then stats, graph and replay on what it wrote, as a user sees them. */
class ImportCommandTest {
  @TempDir Path tmp;

  /** A small Kineto trace: a pinned copy in, a kernel, a pageable copy out, a synchronization. */
  Path kineto() throws Exception {
    Path in = tmp.resolve("small.json");
    Files.writeString(in, """
        {"deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "numSms": 108}],
         "traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 5, "tid": 5, "ts": 100, "dur": 8,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 104,
         "dur": 90, "args": {"correlation": 1, "stream": 7, "device": 0, "bytes": 2097152}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 110, "dur": 5,
         "args": {"correlation": 2}},
        {"ph": "X", "cat": "kernel", "name": "scale", "pid": 0, "tid": 7, "ts": 195, "dur": 300,
         "args": {"correlation": 2, "stream": 7, "device": 0, "grid": [1024, 1, 1], "block": [256, 1, 1]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 5, "tid": 5, "ts": 120, "dur": 480,
         "args": {"correlation": 3}},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 500,
         "dur": 95, "args": {"correlation": 3, "stream": 7, "device": 0, "bytes": 2097152}}
        ]}
        """);
    return in;
  }

  @Test
  void importThenStatsGraphAndReplay() throws Exception {
    Path in = kineto();
    Path out = tmp.resolve("small.apptrace");
    Cli r = Cli.run("import", in.toString(), "-o", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("(kineto-json) into " + out)
        .contains("GPU 0: NVIDIA A100-SXM4-40GB, 108 SMs")
        .containsPattern("API calls +3 +3")
        .containsPattern("kernels +1 +1")
        .containsPattern("memcpys +2 +2")
        .contains("the file has no addresses")
        .contains("next: apptrace replay " + out + " --node dgx-a100 --keep-measured");
    assertThat(out).isRegularFile();

    Cli stats = Cli.run("stats", out.toString());
    assertThat(stats.exit()).as(stats.err()).isZero();
    assertThat(stats.out()).contains("kineto-json").contains("imported from " + in.toAbsolutePath())
        .contains("no addresses").doesNotContain("without a clean end")
        .contains("  GPU 0: NVIDIA A100-SXM4-40GB, 108 SMs (Kineto deviceProperties)\n");

    Cli graph = Cli.run("graph", out.toString(), "--summary");
    assertThat(graph.exit()).as(graph.err()).isZero();
    assertThat(graph.out()).contains("4 values in 4 allocations (4 implicit), 3 operations (2 copies, 0 memsets, 1 kernel)")
        .contains("imported from kineto-json: the trace has no addresses, so each copy endpoint is a value of its"
            + " own");

    Cli self = Cli.run("replay", out.toString(), "--node", "dgx-a100", "--keep-measured");
    assertThat(self.exit()).as(self.err()).isZero();
    assertThat(self.out()).contains("timeline against the measured one: operations start 0 s from their measured"
        + " start on average (0.000% of the measured makespan; worst 0 s), makespan +0.00%");

    Cli modeled = Cli.run("replay", out.toString(), "--node", "dgx-a100", "--json");
    assertThat(modeled.exit()).as(modeled.err()).isZero();
    JsonNode n = new ObjectMapper().readTree(modeled.out()).path("nodes").get(0);
    assertThat(n.path("timeline_error").path("operations").asInt()).isEqualTo(3);
    assertThat(n.path("error").path("pinned_h2d").path("operations").asInt()).isEqualTo(1);
    assertThat(n.path("error").path("pageable_d2h").path("operations").asInt()).isEqualTo(1);
  }

  @Test
  void jsonOutputAndTheDefaultName() throws Exception {
    Path in = kineto();
    Cli r = Cli.run("import", in.toString(), "--json", "-o", tmp.resolve("x.apptrace").toString());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.path("schema").asText()).isEqualTo("apptrace.import/1");
    assertThat(j.path("format").asText()).isEqualTo("kineto-json");
    assertThat(j.path("counts").path("kernels").path("source").asLong()).isEqualTo(1);
    assertThat(j.path("counts").path("kernels").path("imported").asLong()).isEqualTo(1);
    assertThat(j.path("suggested_node").asText()).isEqualTo("dgx-a100");
    assertThat(ImportCommand.defaultName("rank0.json.gz")).isEqualTo("rank0.apptrace");
    assertThat(ImportCommand.defaultName("report.sqlite")).isEqualTo("report.apptrace");
    assertThat(ImportCommand.defaultName("trace")).isEqualTo("trace.apptrace");
  }

  @Test
  void badInputIsOneLineAndExitOne() throws Exception {
    Path json = tmp.resolve("config.json");
    Files.writeString(json, "{\"model\": \"resnet\"}");
    Cli r = Cli.run("import", json.toString(), "-o", tmp.resolve("o.apptrace").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("apptrace import: " + json + ": a JSON file that is not a Kineto trace: expected"
        + " a JSON object with \"traceEvents\" (a Kineto trace), found an object with keys model\n");
    assertThat(tmp.resolve("o.apptrace")).doesNotExist();

    Cli missing = Cli.run("import", tmp.resolve("nope.sqlite").toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).isEqualTo("apptrace import: cannot read " + tmp.resolve("nope.sqlite")
        + ": no such file\n");

    Cli usage = Cli.run("import");
    assertThat(usage.exit()).isEqualTo(2);
    assertThat(usage.err()).startsWith("apptrace import: Missing required parameter: 'FILE'");

    Cli dir = Cli.run("import", kineto().toString(), "-o", tmp.toString());
    assertThat(dir.exit()).isEqualTo(1);
    assertThat(dir.err()).contains("it is a folder");
  }
}
