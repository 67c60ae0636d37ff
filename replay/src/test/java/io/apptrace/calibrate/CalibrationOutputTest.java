package io.apptrace.calibrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.calibrate.CalibrationResult.Series;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import io.apptrace.node.ApiClass;
import io.apptrace.node.HostOverheads;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.validate.MemcpyData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node file and CSV of a calibration, from a synthetic result whose every copy follows
 * {@code T(n) = L + o + n G} exactly (docs/COST-MODEL.md): they read back with the node loader and the
 * CSV reader of {@code apptrace validate transfers}, with the parameters put in.
 */
class CalibrationOutputTest {
  @TempDir Path tmp;

  /** Two GPUs on one NUMA node; pinned H2D 9 us + 12.5 GB/s, staged 20 us + 6 GB/s, h2h 1 us + 8 GB/s. */
  private static CalibrationResult result(boolean simulated) {
    CalibrationMachine m = new CalibrationMachine("node-7", "/x/libcudart.so.13", simulated,
        simulated ? "--sim" : "", List.of(0), "no libnuma", "Test CPU", List.of(gpu(0), gpu(1)),
        List.of(List.of(false, true), List.of(true, false)));
    Sizing s = Sizing.quick();
    List<Series> series = new ArrayList<>();
    series.add(series(Benchmark.PINNED_TO_GPU, Target.host(0, 0), s, 9e-6, 12.5e9));
    series.add(series(Benchmark.GPU_TO_GPU_STAGED, Target.gpus(0, 0, 1), s, 20e-6, 6e9));
    series.add(series(Benchmark.HOST_TO_PINNED, Target.hosts(0, 0), s, 1e-6, 8e9));
    var gap = new CalibrationResult.Gap(TransferKind.Way.H2D, Target.host(0, 0), 65536, List.of(1, 2),
        List.of(Stats.of(1), Stats.of(2)), 2.5e-6);
    return new CalibrationResult(m, s, series, List.of(gap), List.of(), List.of(new CalibrationResult.Skipped(
        "peer", "gpu 0 -> gpu 1", "because")));
  }

  private static CalibrationMachine.Gpu gpu(int i) {
    return new CalibrationMachine.Gpu(i, "Tesla Test-16GB", 16L << 30, 900e9, 2, 80, 1.4e9, "0000:0" + i + ":00.0",
        -1, 3, 16, true);
  }

  private static Series series(Benchmark b, Target t, Sizing s, double latency, double bandwidth) {
    List<SizeStats> sizes = new ArrayList<>();
    for (long k : s.sizes()) {
      double time = latency + k / bandwidth;
      sizes.add(new SizeStats(k, 3, s.iterations(k), Stats.of(time * 0.99, time, time * 1.01)));
    }
    return new Series(b, t, sizes);
  }

  @Test
  void aSkeletonNodeLoadsWithTheFittedParameters() throws Exception {
    CalibrationResult r = result(true);
    String text = CalibratedNode.text(r, Optional.empty(), "sim-node-7", "made by a test.");
    Path file = tmp.resolve("sim-node-7.yaml");
    Files.writeString(file, text);
    Node n = NodeLoader.load(file);
    assertThat(text).startsWith("# SIMULATED").contains("NOT REAL");
    assertThat(n.measured().simulated()).isTrue();
    assertThat(n.gpus()).hasSize(2);
    assertThat(n.cpus().get(0).memoryBandwidth()).isCloseTo(8e9, within(8e9 * 1e-5)); // 1/G of h2h
    // the 1-byte copy takes L + 1 byte's G; the file keeps six significant digits
    assertThat(n.measured().latency().get(TransferKind.PINNED_H2D)).isCloseTo(9e-6 + 1 / 12.5e9, within(1e-11));
    assertThat(n.measured().bandwidth().get(TransferKind.PINNED_H2D)).isCloseTo(12.5e9, within(12.5e9 * 1e-5));
    assertThat(n.measured().latency().get(TransferKind.STAGED_P2P)).isCloseTo(20e-6 + 1 / 6e9, within(5e-11));
    assertThat(n.measured().gapH2d().getAsDouble()).isEqualTo(2.5e-6);
    assertThat(n.measured().curves().get(TransferKind.PINNED_H2D).points()).isEqualTo(r.sizing().sizes().size());
    assertThat(n.links()).anySatisfy(l -> assertThat(l.id()).isEqualTo("cpu0-gpu1"));
  }

  @Test
  void aBaseNodeKeepsEverythingButItsNameAndMeasuredSection() throws Exception {
    CalibratedNode.Base base = CalibratedNode.base("s822lc");
    CalibrationMachine m = result(false).machine();
    CalibrationResult r = result(false);
    List<CalibrationMachine.Gpu> four = List.of(gpu(0), gpu(1), gpu(2), gpu(3));
    List<List<Boolean>> peer = List.of(List.of(false, true, false, false), List.of(true, false, false, false),
        List.of(false, false, false, true), List.of(false, false, true, false));
    r = new CalibrationResult(new CalibrationMachine(m.host(), m.runtime(), false, "", m.numaNodes(), m.numaNote(),
        m.cpuModel(), four, peer), r.sizing(), r.series(), r.gaps(), r.faults(), r.skipped());
    String text = CalibratedNode.text(r, Optional.of(base), "node-7", "made by a test.");
    Node n = NodeLoader.parse("node-7.yaml", text, "node-7");
    Node s822lc = NodeLoader.bundled("s822lc").orElseThrow();
    assertThat(n.name()).isEqualTo("node-7");
    assertThat(n.links()).isEqualTo(s822lc.links());
    assertThat(n.aliases()).isEqualTo(s822lc.aliases());
    assertThat(n.measured().simulated()).isFalse();
    assertThat(n.measured().pageFaults().cpuToGpu()).isEmpty(); // the base's measured section is gone
    assertThat(n.measured().bandwidth()).containsOnlyKeys(TransferKind.PINNED_H2D, TransferKind.STAGED_P2P);
    String before = base.text().substring(0, base.text().indexOf("\nmeasured:")).replaceFirst("name: s822lc", "");
    assertThat(text.replaceFirst("name: node-7", "")).contains(before.substring(before.indexOf('\n')));
  }

  @Test
  void aBaseWithAnotherNumberOfGpusIsRefused() throws Exception {
    assertThatThrownBy(() -> CalibratedNode.text(result(false), Optional.of(CalibratedNode.base("dgx1")), "x", "."))
        .isInstanceOf(CalibrationException.class).hasMessage("--base dgx1 has 8 GPUs, this machine 2; give a node that"
            + " describes this machine, or no --base");
  }

  @Test
  void theCsvIsReadByTheValidationReader() throws Exception {
    Path csv = tmp.resolve("c.csv");
    Files.writeString(csv, CalibrationCsv.text(result(true), "sim-node-7"));
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo(CalibrationCsv.HEADER);
    assertThat(lines.get(1)).isEqualTo("sim-node-7,NUMA_Memcpy_PinnedToGPU,pinned,device,,0,,,0,,,1,0,3,10,9000.080,"
        + "9000.080,90.001,8910.079,9090.081,0.0001,sim-node-7-NUMA_Memcpy_PinnedToGPU-0-0");
    MemcpyData.Data d = MemcpyData.read(csv);
    int sizes = Sizing.quick().sizes().size();
    assertThat(d.rows()).hasSize(2 * sizes);
    assertThat(d.rows()).filteredOn(x -> x.kind() == TransferKind.STAGED_P2P)
        .allSatisfy(x -> assertThat(List.of(x.numa(), x.srcGpu(), x.dstGpu())).containsExactly(0, 0, 1));
    assertThat(d.skipped()).containsEntry("NUMA_Memcpy_HostToPinned (not a transfer kind the model prices)", sizes);
  }

  @Test
  void measuredBandwidthIsCheckedAsLatencyIs() throws Exception {
    String good = io.apptrace.node.TestNodes.GOOD;
    Node n = NodeLoader.parse("t.yaml", good.replace("gap: {h2d: \"2.5 us\"}",
        "gap: {h2d: \"2.5 us\"}\n  bandwidth: {pinned_h2d: \"12.5 GB/s\", d2d: \"700 GB/s\"}"), "t.yaml");
    assertThat(n.measured().bandwidth()).containsEntry(TransferKind.PINNED_H2D, 12.5e9)
        .containsEntry(TransferKind.D2D, 700e9);
    assertThatThrownBy(() -> NodeLoader.parse("t.yaml", good.replace("gap: {h2d: \"2.5 us\"}",
        "gap: {h2d: \"2.5 us\"}\n  bandwidth: {pinned_h2dd: \"12 GB/s\"}"), "t.yaml"))
        .hasMessageContaining("unknown transfer kind 'pinned_h2dd'");
    assertThatThrownBy(() -> NodeLoader.parse("t.yaml", good.replace("gap: {h2d: \"2.5 us\"}",
        "gap: {h2d: \"2.5 us\"}\n  bandwidth: {pinned_h2d: \"12\"}"), "t.yaml"))
        .hasMessageContaining("measured.bandwidth.pinned_h2d").hasMessageContaining("has no unit");
  }

  private static final long MIB = 1L << 20;

  /**
   * {@code r} with memsets (2.5 us + 1 ns per byte on GPU 0) and the host-overhead benchmarks: a JNA call of 0.5 us;
   * cudaMalloc 8 us; cudaHostAlloc exactly 100 us + 50 us per MiB at three sizes; cudaGetLastError 0.4 us, less than
   * the JNA call (every time as measured, the JNA call included).
   */
  private static CalibrationResult withCalls(CalibrationResult r) {
    List<SizeStats> memset = new ArrayList<>();
    for (long k : r.sizing().sizes()) {
      double t = 2.5e-6 + k * 1e-9;
      memset.add(new SizeStats(k, 3, r.sizing().iterations(k), Stats.of(t, t, t)));
    }
    double jna = 0.5e-6;
    List<SizeStats> hostAlloc = new ArrayList<>();
    for (long k : List.of(4096L, MIB, 4 * MIB)) {
      double t = jna + 100e-6 + 50e-6 * k / MIB;
      hostAlloc.add(new SizeStats(k, 5, 1, Stats.of(t * 0.9, t, t, t, t * 1.1)));
    }
    List<CalibrationResult.CallSeries> calls = List.of(
        new CalibrationResult.CallSeries(ApiClass.DEVICE_ALLOC, "cudaMalloc", List.of(new SizeStats(MIB, 3, 1,
            Stats.of(7e-6, 8e-6, 9e-6)))),
        new CalibrationResult.CallSeries(ApiClass.HOST_ALLOC, "cudaHostAlloc", hostAlloc),
        new CalibrationResult.CallSeries(ApiClass.OTHER, "cudaGetLastError", List.of(new SizeStats(0, 3, 1,
            Stats.of(0.4e-6, 0.4e-6, 0.4e-6)))));
    return new CalibrationResult(r.machine(), r.sizing(), r.series(), r.gaps(), r.faults(),
        List.of(new CalibrationResult.MemsetSeries(0, memset)), Optional.of(new SizeStats(0, 3, 1,
            Stats.of(0.4e-6, jna, 0.6e-6))), calls, r.skipped());
  }

  @Test
  void theHostOverheadsSectionHoldsEachClassNetOfTheJnaCall() throws Exception {
    String text = CalibratedNode.text(withCalls(result(true)), Optional.empty(), "sim-node-7", "made by a test.");
    Node n = NodeLoader.parse("sim-node-7.yaml", text, "sim-node-7");
    HostOverheads h = n.hostOverheads();
    assertThat(h.overridden()).containsExactlyInAnyOrder(ApiClass.DEVICE_ALLOC, ApiClass.HOST_ALLOC);
    assertThat(h.costNs(ApiClass.DEVICE_ALLOC, 0)).isEqualTo(7_500); // the median, 8 us, less the JNA call's 0.5 us
    assertThat(h.costNs(ApiClass.HOST_ALLOC, 0)).isEqualTo(100_000);
    assertThat(h.costNs(ApiClass.HOST_ALLOC, 2 * MIB)).isEqualTo(200_000);
    // what calibrate cannot time, what did not run, and a call cheaper than the JNA call stay the defaults
    for (ApiClass c : List.of(ApiClass.CONTEXT_CREATE, ApiClass.MODULE, ApiClass.STREAM_CREATE, ApiClass.OTHER)) {
      assertThat(h.costNs(c, 0)).as(c.key()).isEqualTo(HostOverheads.defaults().costNs(c, 0));
    }
    assertThat(h.source()).startsWith("apptrace calibrate on node-7 (SIMULATED").contains("less the JNA call's own"
        + " 0.5 us (libc getpagesize)");
    assertThat(text).contains("  # not measurable in a running process, the defaults: context_create,"
        + " module_registration").contains("  # other: cudaGetLastError, median of 3: -0.1 us net of the JNA call,"
        + " not positive: the default");
    // the memset's fixed cost: the 1-byte memset's median, timed by events as the copies are
    assertThat(n.measured().memsetSeconds().getAsDouble()).isCloseTo(2.5e-6 + 1e-9, within(1e-15));
  }

  @Test
  void onABaseTheHostOverheadsSectionIsReplaced() throws Exception {
    CalibratedNode.Base s822lc = CalibratedNode.base("s822lc");
    String mine = s822lc.text().replace("\nmeasured:", "\nhost_overheads:\n  source: \"by hand\"\n"
        + "  device_alloc: \"99 us\"\n  stream_create: \"77 us\"\nmeasured:");
    CalibratedNode.Base base = new CalibratedNode.Base("mine", mine, NodeLoader.parse("mine.yaml", mine, "mine"));
    assertThat(base.node().hostOverheads().costNs(ApiClass.DEVICE_ALLOC, 0)).isEqualTo(99_000);
    CalibrationResult r = withCalls(result(false));
    CalibrationMachine m = r.machine();
    List<CalibrationMachine.Gpu> four = List.of(gpu(0), gpu(1), gpu(2), gpu(3));
    List<List<Boolean>> peer = List.of(List.of(false, true, false, false), List.of(true, false, false, false),
        List.of(false, false, false, true), List.of(false, false, true, false));
    r = new CalibrationResult(new CalibrationMachine(m.host(), m.runtime(), false, "", m.numaNodes(), m.numaNote(),
        m.cpuModel(), four, peer), r.sizing(), r.series(), r.gaps(), r.faults(), r.memsets(), r.jnaCall(), r.calls(),
        r.skipped());
    String text = CalibratedNode.text(r, Optional.of(base), "node-7", "made by a test.");
    assertThat(text.split("\nhost_overheads:", -1)).hasSize(2);
    assertThat(text).doesNotContain("by hand").contains("Everything but the measured and host_overheads sections");
    HostOverheads h = NodeLoader.parse("node-7.yaml", text, "node-7").hostOverheads();
    assertThat(h.source()).startsWith("apptrace calibrate on node-7: ");
    assertThat(h.costNs(ApiClass.DEVICE_ALLOC, 0)).isEqualTo(7_500);
    assertThat(h.costNs(ApiClass.STREAM_CREATE, 0)).isEqualTo(2_000); // the base's 77 us went with its section
    // a base without the section gets it at its end
    String added = CalibratedNode.withSection("name: x\nmeasured:\n  a: 1\n", "host_overheads",
        List.of("host_overheads:", "  other: \"1 us\""));
    assertThat(added).isEqualTo("name: x\nmeasured:\n  a: 1\nhost_overheads:\n  other: \"1 us\"\n");
  }

  @Test
  void theCsvHasARowPerMemsetSizeAndPerCallSize() throws Exception {
    Path csv = tmp.resolve("calls.csv");
    Files.writeString(csv, CalibrationCsv.text(withCalls(result(true)), "sim-node-7"));
    List<String> lines = Files.readAllLines(csv);
    int sizes = Sizing.quick().sizes().size();
    assertThat(lines).filteredOn(l -> l.startsWith("sim-node-7,CUDA_Memset,,device,,,,,0,,,")).hasSize(sizes);
    assertThat(lines).contains("sim-node-7,JNA_Call_getpagesize,,,,0,,,0,,,0,,3,1,500.000,500.000,100.000,400.000,"
        + "600.000,,sim-node-7-JNA_Call_getpagesize-0-0");
    assertThat(lines).filteredOn(l -> l.startsWith("sim-node-7,CUDA_Call_cudaHostAlloc,")).hasSize(3)
        .anySatisfy(l -> assertThat(l).contains(",1048576,20,5,1,150500.000,"));
    MemcpyData.Data d = MemcpyData.read(csv);
    assertThat(d.rows()).hasSize(2 * sizes); // the copies alone
    assertThat(d.skipped()).containsEntry("CUDA_Memset (not a transfer kind the model prices)", sizes)
        .containsEntry("CUDA_Call_cudaHostAlloc (not a transfer kind the model prices)", 3);
  }

  @Test
  void theCsvHeaderIsPearsonsWhereHisDataIs() throws Exception {
    Path data = PearsonFitTest.data();
    org.assertj.core.api.Assumptions.assumeThat(Files.isRegularFile(data))
        .as("Pearson's data is in ../shared/realdata (absent here)").isTrue();
    assertThat(Files.readAllLines(data).get(0)).isEqualTo(CalibrationCsv.HEADER);
  }
}
