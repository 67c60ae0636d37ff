package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --roi} on imported traces (docs/IMPORT.md, docs/REPLAY.md "Regions of interest"):
 * the profiler steps of a Kineto trace, written here and in the A100 training trace of the
 * HolisticTraceAnalysis test data (docs/REFERENCES.md; skipped, saying so, without the real data).
 */
class ImportRoiCommandTest {
  @TempDir Path tmp;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Three steps of a kernel each, numbered as a profiler that started earlier numbers them. */
  private static final String STEPS = """
      {"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#41", "pid": 10, "tid": 10, "ts": 1000, "dur": 100},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1010, "dur": 5,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1020, "dur": 50,
         "args": {"correlation": 1, "stream": 7, "device": 0, "grid": [80, 1, 1], "block": [256, 1, 1]}},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#42", "pid": 10, "tid": 10, "ts": 1100, "dur": 100},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1110, "dur": 5,
         "args": {"correlation": 2}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1120, "dur": 50,
         "args": {"correlation": 2, "stream": 7, "device": 0, "grid": [80, 1, 1], "block": [256, 1, 1]}},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#43", "pid": 10, "tid": 10, "ts": 1200, "dur": 100},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1210, "dur": 5,
         "args": {"correlation": 3}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1220, "dur": 50,
         "args": {"correlation": 3, "stream": 7, "device": 0, "grid": [80, 1, 1], "block": [256, 1, 1]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 10, "tid": 10, "ts": 1300,
         "dur": 80, "args": {"correlation": 4}}
      ]}
      """;

  @Test
  void profilerStepsOfAnImportedTraceAreRegions() throws Exception {
    Path in = tmp.resolve("steps.json");
    Files.writeString(in, STEPS);
    Path trace = tmp.resolve("steps.apptrace");
    Cli imp = Cli.run("import", in.toString(), "-o", trace.toString());
    assertThat(imp.exit()).as(imp.err()).isZero();
    assertThat(imp.out()).containsPattern("user annotations +3 +3");
    assertThat(Cli.run("stats", trace.toString()).out()).contains("NVTX ranges: 3");

    JsonNode all = replay(trace, "ProfilerStep");
    assertThat(all.path("region").asText()).contains("range 'ProfilerStep', 3 instance(s)");
    assertThat(all.path("nodes").get(0).path("operations").asInt()).isEqualTo(3);
    // Kineto's own step number, and the second step: the same step
    assertThat(replay(trace, "ProfilerStep#42").path("region").asText()).contains("range 'ProfilerStep#42'");
    JsonNode second = replay(trace, "ProfilerStep#2");
    assertThat(second.path("region").asText()).contains("range 'ProfilerStep', instance 2 of 3 (ProfilerStep#42)");
    assertThat(second.path("nodes").get(0).path("operations").asInt()).isEqualTo(1);

    Cli missing = Cli.run("replay", trace.toString(), "--node", "dgx1", "--roi", "ProfilerStep#7");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).contains("no range named 'ProfilerStep#7', and 3 instance(s) of range 'ProfilerStep'"
        + " (ProfilerStep#41 to ProfilerStep#43), not 7");
  }

  @Test
  void aStepOfTheA100TrainingTraceProjectsLessThanTheWholeTrace() throws Exception {
    Path data = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("hta-kineto-traces/a100-sxm4-80gb_train_rank0.json.gz");
    assumeThat(Files.isRegularFile(data)).as("the real traces are in the realdata folder (absent here)").isTrue();
    Path trace = tmp.resolve("train.apptrace");
    Cli imp = Cli.run("import", data.toString(), "-o", trace.toString());
    assertThat(imp.exit()).as(imp.err()).isZero();
    // every user annotation of the file: the five steps, record_function ranges, NCCL calls
    assertThat(imp.out()).containsPattern("user annotations +360 +360");

    Cli whole = Cli.run("replay", trace.toString(), "--node", "perlmutter-a100-80gb", "--json");
    assertThat(whole.exit()).as(whole.err()).isZero();
    JsonNode w = JSON.readTree(whole.out()).path("nodes").get(0);
    JsonNode all = replay(trace, "ProfilerStep", "perlmutter-a100-80gb");
    assertThat(all.path("region").asText()).contains("range 'ProfilerStep', 5 instance(s)");
    long sum = 0;
    for (int k = 1; k <= 5; k++) {
      JsonNode step = replay(trace, "ProfilerStep#" + k, "perlmutter-a100-80gb");
      assertThat(step.path("region").asText()).contains("instance " + k + " of 5 (ProfilerStep#" + (549 + k) + ")");
      JsonNode n = step.path("nodes").get(0);
      assertThat(n.path("operations").asInt()).as("step %d", k).isPositive()
          .isLessThan(w.path("operations").asInt());
      assertThat(n.path("makespan_ns").asLong()).as("step %d", k).isPositive()
          .isLessThan(w.path("makespan_ns").asLong());
      sum += n.path("operations").asInt();
    }
    // the five steps hold every operation the five together hold
    assertThat(all.path("nodes").get(0).path("operations").asInt()).isEqualTo((int) sum);
    // Kineto's own name for the third step is the same region
    assertThat(replay(trace, "ProfilerStep#552", "perlmutter-a100-80gb").path("nodes").get(0).path("operations")
        .asInt()).isEqualTo(replay(trace, "ProfilerStep#3", "perlmutter-a100-80gb").path("nodes").get(0)
        .path("operations").asInt());
  }

  private static JsonNode replay(Path trace, String roi) throws Exception {
    return replay(trace, roi, "dgx1");
  }

  private static JsonNode replay(Path trace, String roi, String node) throws Exception {
    Cli r = Cli.run("replay", trace.toString(), "--node", node, "--roi", roi, "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }
}
