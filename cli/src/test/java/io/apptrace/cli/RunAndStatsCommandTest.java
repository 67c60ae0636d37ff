package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code apptrace run} and {@code apptrace stats} as a user sees them: output and exit codes. */
class RunAndStatsCommandTest {
  @TempDir Path tmp;

  @Test
  void statsJsonOfTheVectorAddFollowsTheContract() throws Exception {
    Path trace = tmp.resolve("vecadd.apptrace");
    Cli run = Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("vecadd"));
    assertThat(run.exit()).isZero();
    Cli stats = Cli.run("stats", "--json", trace.toString());
    assertThat(stats.exit()).isZero();
    JsonNode j = new ObjectMapper().readTree(stats.out());
    assertThat(j.path("schema").asText()).isEqualTo("apptrace.stats/1");
    JsonNode totals = j.path("totals");
    assertThat(totals.path("api_calls").path("cudaMalloc").asLong()).isEqualTo(3);
    assertThat(totals.path("api_calls").path("cudaMemcpy").asLong()).isEqualTo(3);
    assertThat(totals.path("api_calls").path("__cudaLaunchKernel").asLong()).isEqualTo(1);
    assertThat(totals.path("kernel_launches").path("vector_add").asLong()).isEqualTo(1);
    assertThat(totals.path("bytes_copied").path("h2d").asLong()).isEqualTo(8192);
    assertThat(totals.path("bytes_copied").path("d2h").asLong()).isEqualTo(4096);
    for (String k : new String[] {"d2d", "p2p", "h2h"}) {
      assertThat(totals.path("bytes_copied").path(k).asLong()).as(k).isZero();
    }
    assertThat(totals.path("bytes_copied_by_memory").path("h2d").path("pageable->device").asLong()).isEqualTo(8192);
    assertThat(totals.path("allocations").path("device").path("count").asLong()).isEqualTo(3);
    assertThat(totals.path("dropped_records").asLong()).isZero();
    assertThat(totals.path("truncated").asBoolean()).isFalse();
    assertThat(j.path("processes")).hasSize(1);
    assertThat(j.path("processes").get(0).path("exit_code").asInt()).isZero();
    assertThat(j.path("processes").get(0).path("threads")).hasSize(1);
    // the simulated device's bundled model, as the runtime described it at the first call
    JsonNode gpus = j.path("processes").get(0).path("gpus");
    assertThat(gpus).hasSize(1);
    JsonNode gpu = gpus.get(0);
    assertThat(gpu.path("device").asInt()).isZero();
    assertThat(gpu.path("name").asText()).isEqualTo("apptrace simulated A100-SXM4-40GB");
    assertThat(gpu.path("compute_capability").asText()).isEqualTo("8.0");
    assertThat(gpu.path("multiprocessors").asInt()).isEqualTo(108);
    assertThat(gpu.path("memory_bytes").asLong()).isEqualTo(42505273344L);
    // 1215 MHz HBM2 on a 5120-bit bus: the A100-SXM4-40GB's 1555 GB/s
    assertThat(gpu.path("memory_bandwidth_bytes_per_sec").asLong()).isEqualTo(1_555_200_000_000L);
    assertThat(gpu.path("max_threads_per_multiprocessor").asInt()).isEqualTo(2048);
    assertThat(gpu.path("shared_mem_per_multiprocessor_bytes").asLong()).isEqualTo(167936);
    assertThat(gpu.path("pci_bus_id").asText()).isEqualTo("0000:07:00.0");
    assertThat(gpu.path("source").asText()).isEqualTo("cuda-runtime");
    assertThat(j.path("processes").get(0).path("gpu_query_error").isNull()).isTrue();
    assertThat(Cli.run("stats", trace.toString()).out()).contains("  GPU 0: apptrace simulated A100-SXM4-40GB,"
        + " compute capability 8.0, 108 SMs, 39.6 GiB (cudaGetDeviceProperties, simulated device)\n");
  }

  @Test
  void statsTextNamesKernelsAndDirections() throws Exception {
    Path trace = tmp.resolve("copies.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("copies")).exit()).isZero();
    Cli stats = Cli.run("stats", trace.toString());
    assertThat(stats.exit()).isZero();
    assertThat(stats.out()).contains("on the simulated device")
        .contains("h2d")
        .contains("pinned->device 34 KiB")
        .contains("write_combined->device 8 KiB")
        .contains("registered->device 16 KiB")
        .contains("records dropped: 0, batches lost: 0, truncated: no")
        // one process: its block is the totals, printed once, with the time spent in each call
        .doesNotContain("Totals")
        .containsPattern("cudaHostAlloc +2 +[0-9.]+ (ns|us|ms|s)\n");
  }

  @Test
  void runExitsWithTheProgramsCodeAndSignal() {
    Path trace = tmp.resolve("t.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("exit_thread")).exit())
        .isEqualTo(3);
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("segv"), "10").exit())
        .isEqualTo(139);
  }

  /** `return -1` is exit status 255, not signal 127: run, stats and dump all say so. */
  @Test
  void anExitStatusOver128IsNotASignal() throws Exception {
    Path trace = tmp.resolve("ret.apptrace");
    Cli run = Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("exit_status"), "return", "-1");
    assertThat(run.exit()).isEqualTo(255);
    JsonNode p = new ObjectMapper().readTree(Cli.run("stats", "--json", trace.toString()).out()).path("processes").get(0);
    assertThat(p.path("exit_code").asInt()).isEqualTo(255);
    assertThat(p.path("signal").asInt()).isZero();
    assertThat(Cli.run("stats", trace.toString()).out()).contains("ended: exit code 255\n");
    assertThat(Cli.run("dump", trace.toString()).out().lines().filter(l -> l.contains("process_exit")))
        .singleElement().asString().contains("exit_code: 255").doesNotContain("signal");
  }

  /** SIGKILL: run exits 137 as a shell would, and the trace has signal 9 and no exit status. */
  @Test
  void aSignalIsNotAnExitStatus() throws Exception {
    Path trace = tmp.resolve("kill.apptrace");
    Cli run = Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("exit_status"), "kill", "9");
    assertThat(run.exit()).isEqualTo(137);
    JsonNode p = new ObjectMapper().readTree(Cli.run("stats", "--json", trace.toString()).out()).path("processes").get(0);
    assertThat(p.path("exit_code").isNull()).isTrue();
    assertThat(p.path("signal").asInt()).isEqualTo(9);
    assertThat(Cli.run("stats", trace.toString()).out()).contains("ended: signal 9 (SIGKILL)");
  }

  /** Plain shell commands, traced or not, end as the kernel says: exit(200) and SIGTERM. */
  @Test
  void commandsWithoutCudaExitTruthfullyToo() {
    Path trace = tmp.resolve("sh.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), "sh", "-c", "exit 200").exit()).isEqualTo(200);
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), "sh", "-c", "kill -TERM $$").exit())
        .isEqualTo(143);
  }

  @Test
  void programArgumentsAreThePrograms() {
    Path trace = tmp.resolve("segv.apptrace");
    // "-o" after the program's name is the program's, not apptrace's; segv reads argv[1]
    Cli r = Cli.run("run", "--sim", "-q", "-o", trace.toString(), "--", Cli.cudaTest("segv"), "5");
    assertThat(r.exit()).isEqualTo(139);
    Cli stats = Cli.run("stats", "--json", trace.toString());
    assertThat(stats.out()).contains("\"cudaMemsetAsync\" : 5");
  }

  @Test
  void missingCommandExits127NamingIt() {
    Cli r = Cli.run("run", "--sim", "-o", tmp.resolve("x.apptrace").toString(), "no-such-command-xyz");
    assertThat(r.exit()).isEqualTo(127);
    assertThat(r.err()).contains("apptrace run: command not found: no-such-command-xyz");
  }

  @Test
  void aFileThatIsNotExecutableExits126() throws Exception {
    Path script = Files.writeString(tmp.resolve("not-executable"), "#!/bin/sh\nexit 0\n");
    Cli r = Cli.run("run", "--sim", "-o", tmp.resolve("x.apptrace").toString(), script.toString());
    assertThat(r.exit()).isEqualTo(126);
    assertThat(r.err()).contains("apptrace run: cannot execute " + script + ": permission denied");
    assertThat(tmp.resolve("x.apptrace")).doesNotExist();
  }

  /** A script without "#!" runs with /bin/sh, as a shell (and execvp) would run it. */
  @Test
  void aScriptWithoutInterpreterLineRunsWithTheShell() throws Exception {
    Path script = Files.writeString(tmp.resolve("plain-script"), "exit 7\n");
    Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    assertThat(Cli.run("run", "--sim", "-q", "-o", tmp.resolve("s.apptrace").toString(), script.toString()).exit())
        .isEqualTo(7);
  }

  /**
   * Without --sim on a machine with no GPU (no driver here: the real runtime fails every call),
   * the summary says how many calls failed, with which error, and what to do.
   */
  @Test
  void withoutAGpuTheSummarySaysSoAndPointsToTheSimulatedDevice() {
    Cli r = Cli.run("run", "-o", tmp.resolve("nogpu.apptrace").toString(), Cli.cudaTest("vecadd"));
    assertThat(r.err()).containsPattern("apptrace: \\d+ of \\d+ CUDA calls failed \\((cudaErrorInsufficientDriver|"
        + "cudaErrorNoDevice)[^)]*\\): no usable GPU here; to capture on the simulated device use `apptrace run --sim`");
    assertThat(Cli.run("stats", tmp.resolve("nogpu.apptrace").toString()).out())
        .containsPattern("  GPUs: not known: the CUDA runtime could not start \\((cudaErrorInsufficientDriver|"
            + "cudaErrorNoDevice)\\)\n");
    Cli help = Cli.run("run", "--help");
    assertThat(help.out()).contains("APPTRACE_SIM_DEVICES").contains("APPTRACE_SIM_CONFIG")
        .contains("APPTRACE_SIM_REALTIME").contains("APPTRACE_SIM_QUIET");
  }

  /** On the simulated device, the summary names the calls it does not support. */
  @Test
  void onTheSimulatedDeviceTheSummaryNamesWhatItDoesNotSupport() {
    String program = java.nio.file.Path.of(System.getProperty("apptrace.cuda.tests.dir")).resolveSibling("sim-tests")
        .resolve("sim_errors").toString();
    Cli r = Cli.run("run", "--sim", "-o", tmp.resolve("unsupported.apptrace").toString(), program);
    assertThat(r.err()).contains("CUDA calls failed (").contains("cudaErrorNotSupported")
        .containsPattern("the simulated device does not support [^\\n]*cudaMallocArray");
  }

  @Test
  void unwritableOutputIsBadInput() {
    Cli r = Cli.run("run", "--sim", "-o", tmp.resolve("nope/x.apptrace").toString(), Cli.cudaTest("nocuda"));
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("apptrace run: cannot write " + tmp.resolve("nope/x.apptrace")
        + ": its folder does not exist");
  }

  @Test
  void statsOfAMissingFileIsBadInput() {
    Cli r = Cli.run("stats", tmp.resolve("missing.apptrace").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("apptrace stats: cannot read " + tmp.resolve("missing.apptrace")
        + ": no such file");
  }

  @Test
  void statsOfANewerSchemaNamesBothVersions() throws Exception {
    Path newer = tmp.resolve("newer.apptrace");
    TraceWriter.create(newer, TraceHeader.newBuilder().setSchemaVersion(7).build()).close();
    Cli r = Cli.run("stats", newer.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("schema version 7").contains("versions up to 1").doesNotContain("Exception");
  }

  @Test
  void badUsageExits2WithUsage() {
    Cli r = Cli.run("stats");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("apptrace stats: Missing required parameter").contains("Usage:");
    assertThat(Cli.run("run", "--sim", "--malloc-threshold", "lots", "true").exit()).isEqualTo(2);
  }

  @Test
  void versionAndHelp() {
    assertThat(Cli.run("--version").out()).startsWith("apptrace 0.1.0");
    Cli help = Cli.run("help", "run");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("--sim").contains("CMD");
  }

  @Test
  void dumpPrintsOneLinePerEvent() throws Exception {
    Path trace = tmp.resolve("v.apptrace");
    Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("vecadd"));
    Cli dump = Cli.run("dump", trace.toString());
    assertThat(dump.exit()).isZero();
    assertThat(dump.out().lines().filter(l -> l.contains(" cudaMalloc "))).hasSize(3);
    assertThat(Files.size(trace)).isGreaterThan(0);
  }
}
