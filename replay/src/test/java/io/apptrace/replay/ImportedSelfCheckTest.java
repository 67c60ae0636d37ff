package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.graph.DvdgBuilder;
import io.apptrace.imports.Importer;
import io.apptrace.node.NodeLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The self-check of imported traces: replayed with --keep-measured on a model of the machine
 * they came from, their GPU timeline comes back (mean error of the operation start times within
 * 1% of the makespan, the bar). Real traces from ../shared/realdata (skipped, saying so,
 * where it is absent), and a trace written here that needs every rule the self-check relies on.
 */
class ImportedSelfCheckTest {
  @TempDir Path tmp;

  static Path realdata() {
    return Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"));
  }

  ReplayResult replay(Path trace, String node, boolean keepMeasured) throws Exception {
    Path out = tmp.resolve("t.apptrace");
    Importer.run(trace, out, Importer.Options.defaults().withTmpDir(tmp));
    ReplayProgram p = ProgramBuilder.of(DvdgBuilder.build(out, true));
    return Replayer.replay(p, NodeLoader.bundled(node).orElseThrow(),
        Replayer.Options.defaults().withKeepMeasured(keepMeasured).withSamples(false));
  }

  static Stream<Arguments> traces() {
    return Stream.of(
        Arguments.of("hta-kineto-traces/a100-sxm4-80gb_train_rank0.json.gz", "dgx-a100-80gb"),
        Arguments.of("hta-kineto-traces/a100_alexnet_trace.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/a100_cuda_event_sync.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/a100_cuda_event_sync_multi_stream.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/a100_nccl_data.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/a100_simple_add_trace.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/a100_trace_diff_control_rank3.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/sampled_rank-0.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/sampled_rank-1.json.gz", "a100-pg509"),
        Arguments.of("hta-kineto-traces/v100-sxm2-32gb_df_index_resolver.json.gz", "dgx1-v100"),
        Arguments.of("hta-kineto-traces/v100-sxm2-32gb_ns_resolution_rank0.json.gz", "dgx1-v100"),
        Arguments.of("pipit-nsys-perlmutter/perlmutter-cloverleaf-cuda.sqlite.gz", "perlmutter-a100-80gb"),
        Arguments.of("pipit-nsys-perlmutter/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz", "perlmutter-a100"));
  }

  @ParameterizedTest
  @MethodSource("traces")
  void keepMeasuredReproducesTheMeasuredTimeline(String file, String node) throws Exception {
    Path in = realdata().resolve(file);
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    ReplayResult r = replay(in, node, true);
    ReplayReport.TimelineError e = ReplayReport.timeline(r).orElseThrow();
    assertThat(e.ops()).isEqualTo(r.program().ops().size());
    assertThat(e.meanStartErrorPct()).as("mean start error, %% of the makespan").isLessThan(1.0);
    assertThat(Math.abs(e.makespanErrorPct())).isLessThan(1.0);
    // with modeled durations, the copy error is reported against the measured times
    ReplayResult modeled = replay(in, node, false);
    assertThat(ReplayReport.timeline(modeled)).isPresent();
    Map<String, ReplayReport.ClassError> errors = ReplayReport.errors(modeled);
    assertThat(errors).containsKey("overall");
  }

  /**
   * Two host threads, three streams (the legacy one, a non-blocking and a blocking one), an event
   * carrying order across streams, a pageable copy whose call returns before its DMA, launch
   * latencies, concurrent kernels, GPU work with no traced call, and a stream synchronization
   * whose stream the trace does not name.
   */
  static String pipeline() {
    StringBuilder s = new StringBuilder("{\"traceEvents\": [\n");
    String[] events = {
      rt(1, "cudaMemcpy", 0, 60, 1), gpu("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 45, 30, 7, 1,
          "\"bytes\": 4194304"),
      rt(1, "cudaLaunchKernel", 70, 5, 2), gpu("kernel", "a", 84, 200, 7, 2, "\"grid\": [216, 1, 1]"),
      rt(1, "cudaEventRecord", 80, 2, 3),
      rt(1, "cudaStreamWaitEvent", 85, 2, 4), sync("Stream Wait Event", 4, 13, 7, 3),
      rt(1, "cudaLaunchKernel", 90, 5, 5), gpu("kernel", "b", 290, 50, 13, 5, "\"grid\": [4, 1, 1]"),
      rt(2, "cudaLaunchKernel", 100, 6, 6), gpu("kernel", "c", 110, 100, 14, 6, "\"grid\": [8, 1, 1]"),
      rt(2, "cudaMemcpyAsync", 110, 6, 7), gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 215, 20, 14, 7,
          "\"bytes\": 1048576"),
      gpu("kernel", "untraced", 236, 10, 14, 99, "\"grid\": [1, 1, 1]"),
      rt(2, "cudaStreamSynchronize", 120, 131, 8),
      rt(1, "cudaDeviceSynchronize", 100, 245, 9), sync("Context Sync", 9, -1, -1, -1),
    };
    for (int i = 0; i < events.length; i++) {
      s.append(i == 0 ? "" : ",\n").append(events[i]);
    }
    return s.append("\n]}\n").toString();
  }

  static String rt(int tid, String name, long ts, long dur, int corr) {
    return "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" + name + "\", \"pid\": 9, \"tid\": " + tid
        + ", \"ts\": " + (1000 + ts) + ", \"dur\": " + dur + ", \"args\": {\"correlation\": " + corr + "}}";
  }

  static String gpu(String cat, String name, long ts, long dur, int stream, int corr, String more) {
    return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name + "\", \"pid\": 0, \"tid\": " + stream
        + ", \"ts\": " + (1000 + ts) + ", \"dur\": " + dur + ", \"args\": {\"correlation\": " + corr
        + ", \"stream\": " + stream + ", \"device\": 0, " + more + "}}";
  }

  static String sync(String kind, int corr, int stream, int waitStream, int recordCorr) {
    return "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"" + kind + "\", \"pid\": 0, \"tid\": " + stream
        + ", \"ts\": 1000, \"dur\": 1, \"args\": {\"cuda_sync_kind\": \"" + kind + "\", \"stream\": " + stream
        + ", \"wait_on_stream\": " + waitStream + ", \"wait_on_cuda_event_record_corr_id\": " + recordCorr
        + ", \"correlation\": " + corr + ", \"device\": 0}}";
  }

  @Test
  void aPipelineComesBackExactly() throws Exception {
    Path in = tmp.resolve("pipeline.json");
    Files.writeString(in, pipeline());
    ReplayResult r = replay(in, "dgx-a100", true);
    ReplayProgram p = r.program();
    long first = p.firstEntryNs();
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = p.ops().get(t.op());
      assertThat(t.startNs()).as("start of %s", op.name()).isEqualTo(op.measuredStartNs() - first, within(0.5));
      assertThat(t.endNs()).as("end of %s", op.name()).isEqualTo(op.measuredEndNs() - first, within(0.5));
    }
    assertThat(r.makespanNs()).isEqualTo(p.measuredMakespanNs(), within(0.5));
    assertThat(ReplayReport.timeline(r).orElseThrow().meanStartErrorNs()).isLessThan(0.5);
    // the breakdown of the critical path still adds up to the makespan
    double sum = 0;
    for (String k : new String[] {"kernels", "memsets", "copies", "calls", "host", "idle"}) {
      sum += r.breakdown().getOrDefault(k, 0.0);
    }
    assertThat(sum).isEqualTo(r.makespanNs(), within(1.0));
  }

  @Test
  void durationsAloneStartNoOperationBeforeItsDependenciesAllow() throws Exception {
    Path in = tmp.resolve("pipeline.json");
    Files.writeString(in, pipeline());
    Path out = tmp.resolve("t.apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    ReplayProgram p = ProgramBuilder.of(DvdgBuilder.build(out, true));
    ReplayResult r = Replayer.replay(p, NodeLoader.bundled("dgx-a100").orElseThrow(),
        Replayer.Options.defaults().withKeepMeasured(true).withKeepDelays(false).withSamples(false));
    Map<String, Double> startOf = new java.util.HashMap<>();
    for (ReplayResult.OpTimes t : r.ops()) {
      startOf.put(p.ops().get(t.op()).name(), t.startNs());
      ReplayProgram.Op op = p.ops().get(t.op());
      assertThat(t.endNs() - t.startNs()).as("%s keeps its measured duration", op.name())
          .isEqualTo(op.measuredDurationNs(), within(0.5));
    }
    // b waits for a through the event; the copy out of stream 14 follows kernel c
    double aEnd = r.ops().stream().filter(t -> p.ops().get(t.op()).name().equals("a")).findFirst().orElseThrow().endNs();
    assertThat(startOf.get("b")).isGreaterThanOrEqualTo(aEnd);
    // without the measured dispatch delays the timeline is earlier, never later
    assertThat(ReplayReport.timeline(r).orElseThrow().makespanErrorPct()).isLessThanOrEqualTo(0.0);
  }

  private static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }
}
