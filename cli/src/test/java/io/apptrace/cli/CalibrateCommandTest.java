package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.calibrate.CalibrationCsv;
import io.apptrace.node.ApiClass;
import io.apptrace.node.HostOverheads;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.validate.MemcpyData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code apptrace calibrate --sim --quick} end to end, on a simulated runtime whose timing model
 * ({@code [timing]} of its config, docs/SIMULATED-DEVICE.md) gives every kind its own latency and
 * bandwidth, and memsets a fixed cost: the fitted L+o, bandwidth, gap and memset must come back as configured.
 * The CUDA calls' own costs are the simulator's on this machine, so only their structure is checked, and that a
 * replay prices calls by them.
 *
 * <p>JNA loads the simulated runtime into the JVM, which reads {@code APPTRACE_SIM_CONFIG} once,
 * when the runtime first starts. So calibrate runs in a child JVM with that variable set (the
 * surefire JVM's own environment is left alone: other tests start simulated programs that inherit
 * it), as a user runs it.
 */
class CalibrateCommandTest {
  @TempDir static Path tmp;

  /** What a child JVM printed. */
  record Run(int exit, String out, String err) {}

  /**
   * The timing model: two devices, every kind distinct; device 1 has no managed memory, so its
   * prefetch benchmarks fail with cudaErrorNotSupported during the run.
   */
  static final String CONFIG = """
      devices = 2
      [timing]
      h2d_pinned_latency_ns = 7000
      h2d_pinned_bandwidth_bytes_per_s = 20e9
      d2h_pinned_latency_ns = 8000
      d2h_pinned_bandwidth_bytes_per_s = 18e9
      h2d_pageable_latency_ns = 11000
      h2d_pageable_bandwidth_bytes_per_s = 9e9
      d2h_pageable_latency_ns = 13000
      d2h_pageable_bandwidth_bytes_per_s = 7e9
      d2d_latency_ns = 3000
      d2d_bandwidth_bytes_per_s = 900e9
      peer_latency_ns = 6000
      peer_bandwidth_bytes_per_s = 45e9
      h2h_latency_ns = 1500
      h2h_bandwidth_bytes_per_s = 15e9
      memset_latency_ns = 2500
      [device 1]
      managed_memory = 0
      """;

  static Run sim;
  static Path node;
  static Path csv;

  static Run calibrate(Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dapptrace.native.dir=" + System.getProperty("apptrace.native.dir"), "-cp",
        System.getProperty("java.class.path"), "io.apptrace.cli.Main", "calibrate"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(tmp, "out", ".txt");
    Path err = Files.createTempFile(tmp, "err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectOutput(out.toFile())
        .redirectError(err.toFile());
    pb.environment().remove("APPTRACE_SIM_CONFIG");
    pb.environment().remove("APPTRACE_SIM_DEVICES");
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("calibrate did not end in 300 s: " + Files.readString(err));
    }
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @BeforeAll
  static void calibrateTheSimulatedRuntime() throws Exception {
    Path conf = tmp.resolve("timing.conf");
    Files.writeString(conf, CONFIG, StandardCharsets.UTF_8);
    node = tmp.resolve("sim.yaml");
    csv = tmp.resolve("sim.csv");
    sim = calibrate(Map.of("APPTRACE_SIM_CONFIG", conf.toString()), "--sim", "--quick", "-o", node.toString());
  }

  @Test
  void theFittedParametersAreTheConfiguredOnes() throws Exception {
    assertThat(sim.exit()).as(sim.err()).isZero();
    Node n = NodeLoader.load(node);
    assertThat(n.measured().simulated()).isTrue();
    assertThat(Files.readString(node)).startsWith("# SIMULATED").contains("NOT REAL");
    // L+o: the 1-byte copy takes L + 1/bandwidth ns, which the simulator rounds to a whole ns: L
    // 1/G: the simulator rounds each copy's time to a whole ns (up to 1 ns off, three sizes above
    // 1 MiB: at most 3e-5 of the 98 us the fastest kind, d2d, spends on them) and the file keeps six
    // significant digits (5e-6): within 5e-5 of the configured bandwidth
    Map<TransferKind, double[]> expected = Map.of(
        TransferKind.PINNED_H2D, new double[] {7000, 20e9},
        TransferKind.PINNED_D2H, new double[] {8000, 18e9},
        TransferKind.PAGEABLE_H2D, new double[] {11000, 9e9},
        TransferKind.PAGEABLE_D2H, new double[] {13000, 7e9},
        TransferKind.WRITE_COMBINED_H2D, new double[] {7000, 20e9}, // write-combined memory is pinned memory there
        TransferKind.WRITE_COMBINED_D2H, new double[] {8000, 18e9},
        TransferKind.D2D, new double[] {3000, 900e9},
        TransferKind.PEER, new double[] {6000, 45e9},
        // staged: the simulator times a device-to-host then a host-to-device pinned copy
        TransferKind.STAGED_P2P, new double[] {8000 + 7000, 1 / (1 / 18e9 + 1 / 20e9)},
        TransferKind.PREFETCH_H2D, new double[] {7000, 20e9}); // a prefetch is a pinned copy there
    expected.forEach((kind, v) -> {
      assertThat(n.measured().latency().get(kind) * 1e9).as(kind.key()).isCloseTo(v[0], within(1.0));
      assertThat(n.measured().bandwidth().get(kind)).as(kind.key()).isCloseTo(v[1], within(v[1] * 5e-5));
    });
    assertThat(n.measured().latency().get(TransferKind.PREFETCH_D2H) * 1e9).isCloseTo(8000, within(1.0));
    // g (van Werkhoven et al. 2014, sec. V): the simulator overlaps nothing, so each back-to-back copy pays its full
    // L+o.
    // g is a slope over runs of 64 KiB chunks less their byte time; the chunks' rounding to whole
    // ns moves it by a few ns: within 0.1%. The gate's host function ends no earlier than it really
    // returns, so a loaded machine's delays in issuing the chunks cannot enter (they did: 49 ns off)
    assertThat(n.measured().gapH2d().getAsDouble() * 1e9).isCloseTo(7000, within(7.0));
    assertThat(n.measured().gapD2h().getAsDouble() * 1e9).isCloseTo(8000, within(8.0));
    // the host memory's bandwidth of the skeleton: one thread's host-to-host copy, 1/G
    assertThat(n.cpus().get(0).memoryBandwidth()).isCloseTo(15e9, within(15e9 * 5e-5));
    assertThat(n.gpus()).hasSize(2);
    assertThat(n.measured().curves().get(TransferKind.PINNED_H2D).points()).isEqualTo(11); // 1 B, 256 B..64 MiB
    assertThat(sim.out()).contains("SIMULATED").contains("pinned_h2d           h2d  numa 0 -> gpu 0");
  }

  @Test
  void theMemsetsFixedCostIsTheConfiguredOne() throws Exception {
    assertThat(sim.exit()).as(sim.err()).isZero();
    // a 1-byte memset lasts memset_latency_ns + 1 byte / the device's memory bandwidth, rounded to a whole ns
    assertThat(NodeLoader.load(node).measured().memsetSeconds().getAsDouble() * 1e9).isCloseTo(2500, within(1.0));
    // a row per size on each GPU
    assertThat(Files.readAllLines(csv)).filteredOn(l -> l.contains("," + CalibrationCsv.MEMSET + ",")).hasSize(2 * 11);
    assertThat(sim.out()).containsPattern("memset +gpu 1 +2\\.50 us");
  }

  /** The CSV's rows of a benchmark, split into columns. */
  private static List<String[]> rows(String benchmark) throws IOException {
    return Files.readAllLines(csv).stream().map(l -> l.split(",", -1)).filter(f -> f[1].equals(benchmark)).toList();
  }

  private static double medianNs(String[] row) {
    return Double.parseDouble(row[15]);
  }

  @Test
  void theHostOverheadsAreTheMediansOfTheCallsMadeLessTheJnaCall() throws Exception {
    assertThat(sim.exit()).as(sim.err()).isZero();
    String text = Files.readString(node);
    assertThat(text).contains("\nhost_overheads:").contains("  # not measurable in a running process, the defaults:"
        + " context_create, module_registration");
    HostOverheads h = NodeLoader.load(node).hostOverheads();
    assertThat(h.source()).startsWith("apptrace calibrate on ").contains("SIMULATED: the simulated CUDA runtime's own"
        + " call costs on this host, not a GPU's");
    assertThat(h.overridden()).contains(ApiClass.DEVICE_ALLOC, ApiClass.STREAM_CREATE)
        .doesNotContain(ApiClass.CONTEXT_CREATE, ApiClass.MODULE);
    assertThat(h.costNs(ApiClass.CONTEXT_CREATE, 0)).isEqualTo(HostOverheads.defaults().costNs(ApiClass.CONTEXT_CREATE,
        0));
    // every class but those two was timed: in the file, or in a comment saying why not
    for (ApiClass c : ApiClass.values()) {
      if (c != ApiClass.CONTEXT_CREATE && c != ApiClass.MODULE) {
        assertThat(text).as(c.key()).containsPattern("\n  (# )?" + c.key() + ": ");
      }
    }
    // one JNA call row and a row per class and size, each the median of the calls made (--quick: 31; 5 of each
    // pinning size, 4 KiB, 1 MiB, 4 MiB)
    List<String[]> jna = rows(CalibrationCsv.JNA_CALL);
    assertThat(jna).hasSize(1);
    assertThat(jna.get(0)[13]).isEqualTo("31");
    List<String[]> malloc = rows(CalibrationCsv.CALL_PREFIX + "cudaMalloc");
    assertThat(malloc).hasSize(1);
    assertThat(malloc.get(0)[11]).isEqualTo(Long.toString(1L << 20));
    assertThat(malloc.get(0)[13]).isEqualTo("31");
    assertThat(rows(CalibrationCsv.CALL_PREFIX + "cudaHostAlloc")).extracting(f -> f[11] + " x " + f[13])
        .containsExactly("4096 x 5", "1048576 x 5", "4194304 x 5");
    assertThat(rows(CalibrationCsv.CALL_PREFIX + "cudaHostRegister")).hasSize(3);
    for (String call : List.of("cudaFree", "cudaMallocManaged", "cudaFreeHost", "cudaHostUnregister",
        "cudaStreamCreate", "cudaStreamDestroy", "cudaEventCreate", "cudaEventDestroy", "cudaEventRecord",
        "cudaStreamSynchronize", "cudaGetLastError")) {
      assertThat(rows(CalibrationCsv.CALL_PREFIX + call)).as(call).isNotEmpty()
          .allSatisfy(f -> assertThat(medianNs(f)).isPositive());
    }
    // a class of one size costs its median less the JNA call's (the file keeps six significant digits)
    assertThat((double) h.costNs(ApiClass.DEVICE_ALLOC, 0)).isCloseTo(medianNs(malloc.get(0)) - medianNs(jna.get(0)),
        within(1.0));
    assertThat((double) h.costNs(ApiClass.STREAM_CREATE, 0)).isCloseTo(medianNs(rows(CalibrationCsv.CALL_PREFIX
        + "cudaStreamCreate").get(0)) - medianNs(jna.get(0)), within(1.0));
    assertThat(sim.out()).contains("CUDA calls (host clock, less the JNA call's own ")
        .containsPattern("  device_alloc +cudaMalloc +[0-9.]+ [nu]s");
  }

  /** A trace from the simulated device is priced by its node's host-overhead model: here, the calibrated one. */
  @Test
  void aReplayOnTheCalibratedNodePricesCallsByItsHostOverheads() throws Exception {
    assertThat(sim.exit()).as(sim.err()).isZero();
    Path trace = tmp.resolve("pipeline.apptrace");
    Cli run = Cli.run("run", "--sim", "-q", "--output=" + trace, Cli.cudaTest("pipeline"));
    assertThat(run.exit()).as(run.err()).isZero();
    Path timeline = tmp.resolve("pipeline.json");
    Cli r = Cli.run("replay", trace.toString(), "--node", node.toString(), "--timeline", timeline.toString(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    Node n = NodeLoader.load(node);
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    assertThat(json.readTree(r.out()).path("nodes").get(0).path("notes").toString())
        .contains("priced by " + n.name() + "'s host-overhead model (apptrace calibrate on ");
    Map<String, Long> ownNs = Map.of("cudaMalloc", n.hostOverheads().costNs(ApiClass.DEVICE_ALLOC, 0),
        "cudaStreamCreateWithFlags", n.hostOverheads().costNs(ApiClass.STREAM_CREATE, 0),
        "cudaEventCreateWithFlags", n.hostOverheads().costNs(ApiClass.EVENT_CREATE, 0));
    int seen = 0;
    for (var e : json.readTree(timeline.toFile()).path("traceEvents")) {
      Long ns = ownNs.get(e.path("name").asText());
      if (ns != null && e.path("ph").asText().equals("X")) {
        assertThat(e.path("dur").asDouble() * 1e3).as(e.path("name").asText()).isCloseTo(ns, within(0.5));
        seen++;
      }
    }
    assertThat(seen).as("the pipeline's cudaMalloc, stream and event creations").isGreaterThanOrEqualTo(3);
  }

  @Test
  void validateTransfersReadsTheCsv() throws Exception {
    assertThat(sim.exit()).as(sim.err()).isZero();
    assertThat(Files.readAllLines(csv).get(0)).isEqualTo(CalibrationCsv.HEADER);
    Cli r = Cli.run("validate", "transfers", "--node", node.toString(), "--data", csv.toString(), "--setting",
        "measured", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    var j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    // 11 sizes: 6 host kinds x 2 GPUs, d2d x 2, peer and staged x 2 pairs, prefetch both ways on GPU 0 only
    assertThat(j.path("rows").asInt()).isEqualTo(11 * (12 + 2 + 4 + 2));
    assertThat(j.path("skipped").path("NUMA_Memcpy_HostToPinned (not a transfer kind the model prices)").asInt())
        .isEqualTo(11);
    // the node's own curves price its own local host copies exactly (docs/COST-MODEL.md, Choice)
    assertThat(j.path("wmape_pct").path("pinned_h2d").asDouble()).isZero();
    assertThat(j.path("wmape_pct").path("pageable_d2h").asDouble()).isZero();
  }

  /**
   * The check calibrate suggests, run as printed: the same setting as model and replay use by
   * default (measured), and the figure says it is in-sample, since the node was fitted to it.
   */
  @Test
  void theSuggestedCheckRunsInTheDefaultSettingAndSaysItIsInSample() throws Exception {
    assertThat(sim.exit()).as(sim.err()).isZero();
    String suggested = sim.out().lines().filter(l -> l.contains("check them: ")).findFirst().orElseThrow()
        .replaceAll(".*check them: apptrace (.*)\\)$", "$1");
    Cli r = Cli.run(suggested.split(" "));
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("measured setting").contains("in-sample");
    Cli j = Cli.run((suggested + " --json").split(" "));
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(j.out());
    assertThat(json.path("setting").asText()).isEqualTo("measured");
    assertThat(json.path("in_sample").asBoolean()).isTrue();
    assertThat(json.path("wmape_pct").path("pinned_h2d").asDouble()).isZero();
    // the node against a file it was not fitted to (here the same rows, another file) is not in-sample
    Path other = tmp.resolve("other.csv");
    Files.writeString(other, Files.readString(csv) + "\n", StandardCharsets.UTF_8);
    var out = new com.fasterxml.jackson.databind.ObjectMapper().readTree(Cli.run("validate", "transfers", "--node",
        node.toString(), "--data", other.toString(), "--json").out());
    assertThat(out.path("in_sample").asBoolean()).isFalse();
  }

  @Test
  void aBenchmarkThatFailsIsReportedAndSkippedWhileTheRestComplete() throws Exception {
    assertThat(sim.exit()).as(sim.err()).isZero();
    String failed = "prefetch_h2d numa 0 -> gpu 1: cudaMallocManaged: operation not supported (cudaErrorNotSupported)";
    assertThat(sim.err()).contains("apptrace calibrate: skipped " + failed);
    assertThat(sim.out()).contains("  " + failed).contains("  prefetch_d2h gpu 1 -> numa 0: cudaMallocManaged");
    // the simulated runtime loads no kernels: the page-fault benchmark of a GPU stops at its first call
    assertThat(sim.out()).contains("  page fault cpu_to_gpu numa 0 -> gpu 0: cudaLibraryLoadData: operation not"
        + " supported (cudaErrorNotSupported)");
    MemcpyData.Data d = MemcpyData.read(csv);
    assertThat(d.rows()).filteredOn(m -> m.kind() == TransferKind.PREFETCH_H2D).allSatisfy(m ->
        assertThat(m.srcGpu()).isZero()).hasSize(11);
    // every benchmark after the failed ones ran: host-to-host copies and both gaps
    assertThat(d.skipped()).containsKey("NUMA_Memcpy_HostToPinned (not a transfer kind the model prices)");
    assertThat(NodeLoader.load(node).measured().gapD2h()).isPresent();
  }

  @Test
  void withoutAGpuItSaysSoAndCalibratesTheSimulatedRuntime() throws Exception {
    assumeThat(Path.of("/dev/nvidia0")).as("a machine with a GPU calibrates it for real").doesNotExist();
    Path out = tmp.resolve("fallback.yaml");
    Run r = calibrate(Map.of(), "--quick", "-o", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).containsPattern("apptrace calibrate: no CUDA GPU here \\(.+\\): calibrating the simulated"
        + " runtime instead; the numbers are not real");
    assertThat(NodeLoader.load(out).measured().simulated()).isTrue();
    assertThat(Files.readString(out)).contains("# SIMULATED: measured on apptrace's simulated CUDA runtime (no CUDA"
        + " GPU here (");
    assertThat(r.out()).contains("SIMULATED: no CUDA GPU here (");
  }

  @Test
  void badUsageAndBadFilesAreOneLineErrors() {
    Cli notYaml = Cli.run("calibrate", "--sim", "-o", tmp.resolve("x.txt").toString());
    assertThat(notYaml.exit()).isEqualTo(2);
    assertThat(notYaml.err()).startsWith("apptrace calibrate: -o " + tmp.resolve("x.txt") + ": a node file's name"
        + " ends in .yaml");
    Cli noDir = Cli.run("calibrate", "--sim", "-o", "/no/such/dir/x.yaml");
    assertThat(noDir.exit()).isEqualTo(1);
    assertThat(noDir.err().strip()).isEqualTo("apptrace calibrate: cannot write /no/such/dir/x.yaml: its folder does"
        + " not exist");
    Cli base = Cli.run("calibrate", "--sim", "--base", "cray-1");
    assertThat(base.exit()).isEqualTo(1);
    assertThat(base.err().strip()).startsWith("apptrace calibrate: --base: no bundled node named 'cray-1'")
        .doesNotContain("\n");
  }
}
