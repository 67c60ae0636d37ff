package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.proto.Api;
import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.DeviceInfoSource;
import io.apptrace.proto.Event;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.testing.TestPaths;
import io.apptrace.trace.SourceGpu;
import io.apptrace.trace.TraceRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The devices a capture records (docs/CAPTURE.md, "The devices"): asked of the runtime at the
 * program's first runtime call, once, and with no trace of the asking in what the program sees.
 * tests/cuda/first_calls prints every result and last error it gets; traced and untraced, on the
 * simulated device and in front of NVIDIA's runtime without a driver, the output is the same.
 */
class CaptureDevicesTest {
  @TempDir Path tmp;

  /** A V100 as its runtime describes it, on two simulated devices. */
  private static final String V100 = """
      devices = 2
      [device *]
      name = "Tesla V100-SXM2-32GB"
      major = 7
      minor = 0
      multi_processor_count = 80
      total_global_mem = 34089730048
      clock_rate_khz = 1530000
      memory_clock_rate_khz = 877000
      memory_bus_width = 4096
      l2_cache_size = 6291456
      """;

  @Test
  void theConfiguredModelIsRecordedOnceForEveryDeviceBeforeTheFirstCall() throws Exception {
    Path config = Files.writeString(tmp.resolve("v100.conf"), V100);
    Captured c = Captured.runCommand(tmp.resolve("run"), List.of("env", "APPTRACE_SIM_CONFIG=" + config,
        TestPaths.cudaTest("vecadd").toString()), true);
    assertThat(c.result().exitCode()).isZero();
    List<DeviceInfo> devices = c.events(Event::hasDeviceInfo).stream().map(Event::getDeviceInfo).toList();
    assertThat(devices).extracting(DeviceInfo::getDevice).containsExactly(0, 1);
    for (DeviceInfo d : devices) {
      assertThat(d.getSource()).isEqualTo(DeviceInfoSource.CUDA_RUNTIME);
      assertThat(d.getName()).isEqualTo("Tesla V100-SXM2-32GB");
      assertThat(List.of(d.getComputeMajor(), d.getComputeMinor(), d.getMultiprocessorCount())).containsExactly(7, 0, 80);
      assertThat(d.getTotalMemoryBytes()).isEqualTo(34089730048L);
      assertThat(List.of(d.getClockRateKhz(), d.getMemoryClockRateKhz(), d.getMemoryBusWidthBits()))
          .containsExactly(1530000, 877000, 4096);
      assertThat(d.getL2CacheBytes()).isEqualTo(6291456);
      // the per-SM limits of compute capability 7.0, as a V100's runtime reports them
      assertThat(List.of(d.getMaxThreadsPerMultiprocessor(), d.getMaxBlocksPerMultiprocessor(),
          d.getRegistersPerMultiprocessor(), d.getMaxThreadsPerBlock(), d.getRegistersPerBlock(), d.getWarpSize()))
          .containsExactly(2048, 32, 65536, 1024, 65536, 32);
      assertThat(List.of(d.getSharedMemPerMultiprocessorBytes(), d.getSharedMemPerBlockBytes(),
          d.getSharedMemPerBlockOptinBytes())).containsExactly(98304L, 49152L, 98304L);
      assertThat(d.getQueryError()).isZero();
    }
    assertThat(devices).extracting(DeviceInfo::getPciBusId).containsExactly("0000:07:00.0", "0000:0f:00.0");
    // on the thread of the first call, before it; the asking itself is not recorded as calls
    List<TraceRecord> records = c.trace().records();
    int first = indexOf(records, r -> r.event().hasDeviceInfo());
    int firstCall = indexOf(records, r -> r.event().getApi() != Api.API_UNSPECIFIED
        && !r.event().getApi().name().startsWith("rt__"));
    assertThat(first).isLessThan(firstCall);
    assertThat(records.get(first).tid()).isEqualTo(records.get(firstCall).tid());
    assertThat(c.callCounts()).doesNotContainKeys("cudaGetDeviceCount", "cudaGetDeviceProperties",
        "cudaDeviceGetAttribute", "cudaPeekAtLastError").containsEntry("cudaGetLastError", 1L);

    // the graph's program model: per process, per device
    Dvdg g = DvdgBuilder.build(tmp.resolve("run/trace.apptrace"));
    int pid = records.get(first).pid();
    assertThat(g.sourceGpus()).containsOnlyKeys(pid);
    assertThat(g.sourceGpus().get(pid)).containsOnlyKeys(0, 1);
    SourceGpu v100 = g.sourceGpu(pid, 1).orElseThrow();
    assertThat(v100.name()).isEqualTo("Tesla V100-SXM2-32GB");
    assertThat(v100.computeCapability()).isEqualTo("7.0");
    assertThat(v100.source()).isEqualTo(SourceGpu.Source.CUDA_RUNTIME);
    // 877 MHz HBM2 on a 4096-bit bus: 898 GB/s, the V100's datasheet figure
    assertThat(v100.memoryBandwidthBytesPerSec()).isEqualTo(898_048_000_000L);
    assertThat(g.sourceGpu(pid, 2)).isEmpty();
  }

  /** On the simulated runtime, the program's results and last errors are those of an untraced run. */
  @ParameterizedTest
  @ValueSource(strings = {"getlast", "pending", "launch", "mixed"})
  void theProgramSeesWhatItWouldUntraced(String mode) throws Exception {
    String untraced = untraced(true, mode);
    Captured c = Captured.run(tmp, "first_calls", mode);
    assertThat(c.stdout()).isEqualTo(untraced);
    if (mode.equals("getlast")) {
      assertThat(untraced).startsWith("cudaGetLastError 0\ncudaPeekAtLastError 0\n");
    }
    if (mode.equals("pending")) {
      // the program's own error was pending at its first call that starts the runtime: the
      // devices are asked at a later call, once it has read its error
      assertThat(untraced).contains("cudaMalloc 0\ncudaGetLastError 1\n");
    }
    assertThat(c.events(Event::hasDeviceInfo)).singleElement()
        .satisfies(e -> assertThat(e.getDeviceInfo().getName()).isEqualTo("apptrace simulated A100-SXM4-40GB"));
  }

  /**
   * In front of NVIDIA's runtime without a driver (this machine: every call fails), the program
   * sees what it sees untraced, and the trace says only that the runtime could not start.
   */
  @ParameterizedTest
  @ValueSource(strings = {"getlast", "pending", "launch", "mixed"})
  void withoutADriverTheTraceSaysSoAndTheProgramSeesWhatItWouldUntraced(String mode) throws Exception {
    String untraced = untraced(false, mode);
    assumeThat(untraced).as("a CUDA driver is present here: this test is about a machine without one")
        .containsPattern("cudaErrorInsufficientDriver|\\b(35|100)\\b");
    Captured c = Captured.runCommand(tmp, List.of(TestPaths.cudaTest("first_calls").toString(), mode), false);
    assertThat(c.stdout()).isEqualTo(untraced);
    assertThat(c.events(Event::hasDeviceInfo)).singleElement().satisfies(e -> {
      assertThat(e.getDeviceInfo().getDevice()).isEqualTo(-1);
      assertThat(e.getDeviceInfo().getQueryError()).isIn(35, 100); // insufficient driver, no device
      assertThat(e.getDeviceInfo().getName()).isEmpty();
    });
  }

  /** A forked child's trace has its parent's devices; after exec it asks again. */
  @Test
  void aForkedChildHasTheDevicesToo() throws Exception {
    Captured c = Captured.run(tmp, "forkexec");
    assertThat(c.result().exitCode()).isZero();
    Set<Integer> calling = c.trace().records().stream().filter(r -> r.event().getApi() != Api.API_UNSPECIFIED)
        .map(TraceRecord::pid).collect(Collectors.toSet());
    Map<Integer, Long> described = c.trace().records().stream().filter(r -> r.event().hasDeviceInfo())
        .collect(Collectors.groupingBy(TraceRecord::pid, Collectors.counting()));
    assertThat(calling).hasSize(2);
    assertThat(described.keySet()).containsAll(calling);
  }

  private static int indexOf(List<TraceRecord> records, java.util.function.Predicate<TraceRecord> p) {
    for (int i = 0; i < records.size(); i++) {
      if (p.test(records.get(i))) {
        return i;
      }
    }
    throw new AssertionError("no such record");
  }

  /** first_calls run without apptrace, on the simulated runtime or on NVIDIA's. */
  private static String untraced(boolean simulated, String mode) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(TestPaths.cudaTest("first_calls").toString(), mode));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().remove("LD_PRELOAD");
    pb.environment().remove("APPTRACE_SIM_CONFIG");
    if (simulated) {
      pb.environment().put("LD_LIBRARY_PATH", TestPaths.nativeDir().resolve("sim").toString());
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out;
  }
}
