package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.DeviceInfoSource;
import io.apptrace.proto.Event;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.trace.KernelResources;
import io.apptrace.trace.SourceGpu;
import io.apptrace.trace.TraceRecord;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The GPU each import names (DeviceInfo: Kineto deviceProperties, Nsight Systems TARGET_INFO_GPU,
 * nvprof CUPTI_ACTIVITY_KIND_DEVICE) and what kernels ran with (registers, shared memory, Kineto's
 * occupancy figures on GpuActivity), on synthetic files and on every real trace in
 * ../shared/realdata that has them (skipped, saying so, where the folder is absent).
 */
class SourceDeviceImportTest {
  @TempDir Path tmp;

  private Path importFile(Path in) throws Exception {
    Path out = tmp.resolve(in.getFileName() + ".apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    return out;
  }

  private static List<DeviceInfo> devices(Path trace) throws Exception {
    return ImportedTrace.read(trace).all(Event.BodyCase.DEVICE_INFO).stream().map(Event::getDeviceInfo).toList();
  }

  private static List<GpuActivity> kernels(Path trace) throws Exception {
    return ImportedTrace.read(trace).all(Event.BodyCase.GPU).stream().map(Event::getGpu)
        .filter(g -> g.getKind() == GpuActivityKind.GPU_KERNEL).toList();
  }

  /** Two V100s described; the process's kernels ran on device 1 only. */
  private static final String KINETO = """
      {"deviceProperties": [
        {"id": 0, "name": "Tesla V100-SXM2-32GB", "totalGlobalMem": 34089730048, "computeMajor": 7,
         "computeMinor": 0, "numSms": 80},
        {"id": 1, "name": "Tesla V100-SXM2-32GB", "totalGlobalMem": 34089730048, "computeMajor": 7,
         "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
         "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
         "sharedMemPerMultiprocessor": 98304, "numSms": 80, "sharedMemPerBlockOptin": 98304}],
       "traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 100, "dur": 5,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 1, "tid": 7, "ts": 110, "dur": 20,
         "args": {"device": 1, "stream": 7, "correlation": 1, "registers per thread": 122, "shared memory": 12544,
          "blocks per SM": 5.925926, "warps per SM": 23.703703, "grid": [8, 16, 5], "block": [128, 1, 1],
          "est. achieved occupancy %": 25}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 200, "dur": 5,
         "args": {"correlation": 2}},
        {"ph": "X", "cat": "kernel", "name": "older", "pid": 1, "tid": 7, "ts": 210, "dur": 3,
         "args": {"device": 1, "stream": 7, "correlation": 2, "registers per thread": 16, "shared memory": 0,
          "grid": [1, 1, 1], "block": [32, 1, 1], "est. occupancy %": 2}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 300, "dur": 5,
         "args": {"correlation": 3}},
        {"ph": "X", "cat": "kernel", "name": "bare", "pid": 1, "tid": 7, "ts": 310, "dur": 3,
         "args": {"device": 1, "stream": 7, "correlation": 3, "grid": [2, 1, 1], "block": [64, 1, 1]}}]}
      """;

  @Test
  void kinetoNamesTheDevicesTheProcessUsedAndWhatEachKernelRanWith() throws Exception {
    Path trace = importFile(Files.writeString(tmp.resolve("v100.json"), KINETO));
    assertThat(devices(trace)).singleElement().satisfies(d -> {
      assertThat(d.getDevice()).isEqualTo(1);
      assertThat(d.getSource()).isEqualTo(DeviceInfoSource.KINETO_DEVICE_PROPERTIES);
      assertThat(d.getName()).isEqualTo("Tesla V100-SXM2-32GB");
      assertThat(List.of(d.getComputeMajor(), d.getComputeMinor(), d.getMultiprocessorCount(),
          d.getMaxThreadsPerMultiprocessor(), d.getRegistersPerMultiprocessor(), d.getMaxThreadsPerBlock(),
          d.getRegistersPerBlock(), d.getWarpSize())).containsExactly(7, 0, 80, 2048, 65536, 1024, 65536, 32);
      assertThat(List.of(d.getTotalMemoryBytes(), d.getSharedMemPerMultiprocessorBytes(),
          d.getSharedMemPerBlockBytes(), d.getSharedMemPerBlockOptinBytes()))
          .containsExactly(34089730048L, 98304L, 49152L, 98304L);
      assertThat(d.getMaxBlocksPerMultiprocessor()).as("Kineto does not give it").isZero();
    });
    List<GpuActivity> k = kernels(trace);
    assertThat(k).hasSize(3);
    GpuActivity sgemm = k.get(0);
    assertThat(sgemm.getRegistersPerThread()).isEqualTo(122);
    assertThat(sgemm.getSharedMemPerBlockBytes()).isEqualTo(12544);
    assertThat(sgemm.hasStaticSharedMemBytes()).as("Kineto gives only the sum").isFalse();
    assertThat(sgemm.getEstimatedOccupancyPct()).isEqualTo(25f);
    assertThat(sgemm.getBlocksPerSm()).isEqualTo(5.925926f);
    assertThat(sgemm.getWarpsPerSm()).isEqualTo(23.703703f);
    assertThat(k.get(1).getEstimatedOccupancyPct()).as("the older key").isEqualTo(2f);
    assertThat(k.get(1).hasSharedMemPerBlockBytes()).as("0 bytes, given").isTrue();
    assertThat(k.get(1).hasBlocksPerSm()).isFalse();
    assertThat(k.get(2).getRegistersPerThread()).isZero();
    assertThat(k.get(2).hasSharedMemPerBlockBytes() || k.get(2).hasEstimatedOccupancyPct()).isFalse();

    Dvdg g = DvdgBuilder.build(trace);
    assertThat(g.sourceGpus()).hasSize(1);
    SourceGpu v100 = g.sourceGpus().values().iterator().next().get(1);
    assertThat(v100.name()).isEqualTo("Tesla V100-SXM2-32GB");
    assertThat(v100.source()).isEqualTo(SourceGpu.Source.KINETO);
    OperationTable ops = g.operations();
    List<KernelResources> resources = java.util.stream.IntStream.range(0, ops.size())
        .filter(op -> ops.kind(op) == OpKind.KERNEL).mapToObj(ops::resources).toList();
    assertThat(resources).containsExactly(new KernelResources(122, -1, -1, 12544, 25f, 5.925926f, 23.703703f),
        new KernelResources(16, -1, -1, 0, 2f, Float.NaN, Float.NaN), null);
  }

  @Test
  void nsysNamesItsGpuAndKernelsTheirRegistersAndSharedMemoryApart() throws Exception {
    Path db = tmp.resolve("fixture.sqlite");
    NsysFixture.recent(db);
    Path trace = importFile(db);
    // the fixture's TARGET_INFO_GPU has two GPUs and few columns; its process ran on device 0
    assertThat(devices(trace)).singleElement().satisfies(d -> {
      assertThat(d.getDevice()).isZero();
      assertThat(d.getSource()).isEqualTo(DeviceInfoSource.NSYS_TARGET_INFO_GPU);
      assertThat(d.getName()).isEqualTo("NVIDIA A100-SXM4-40GB");
      assertThat(d.getPciBusId()).isEqualTo("0000:03:00.0");
      assertThat(d.getTotalMemoryBytes()).isEqualTo(42505273344L);
      assertThat(d.getMultiprocessorCount()).isEqualTo(108);
      assertThat(d.getComputeMajor()).as("a column the file lacks").isZero();
    });
    assertThat(kernels(trace)).isNotEmpty().allSatisfy(k -> {
      assertThat(k.hasStaticSharedMemBytes() && k.hasDynamicSharedMemBytes()).isTrue();
      assertThat(k.getSharedMemPerBlockBytes()).isEqualTo(k.getStaticSharedMemBytes() + k.getDynamicSharedMemBytes());
      assertThat(k.hasEstimatedOccupancyPct()).isFalse();
    });
  }

  @Test
  void nvprofNamesItsGpusAndKernelsTheirRegisters() throws Exception {
    Path db = tmp.resolve("fixture.nvvp");
    NvprofFixture.write(db);
    Path trace = importFile(db);
    List<DeviceInfo> devices = devices(trace);
    assertThat(devices).isNotEmpty().allSatisfy(d -> {
      assertThat(d.getSource()).isEqualTo(DeviceInfoSource.NVPROF_DEVICE);
      assertThat(d.getName()).isEqualTo("Tesla V100-SXM2-16GB");
      assertThat(List.of(d.getComputeMajor(), d.getComputeMinor(), d.getMultiprocessorCount(), d.getClockRateKhz(),
          d.getWarpSize())).containsExactly(7, 0, 80, 1_530_000, 32);
      assertThat(d.getMemoryBandwidthBytesPerSec()).as("kB/s in the file").isEqualTo(898_048_000_000L);
      assertThat(d.getTotalMemoryBytes()).isEqualTo(16_945_512_448L);
    });
    assertThat(kernels(trace)).isNotEmpty()
        .allSatisfy(k -> assertThat(k.getRegistersPerThread()).isEqualTo(32));
  }

  // ---- the real traces ----

  static Path realdata() {
    return RealTraceImportTest.realdata();
  }

  /** Each Kineto trace: the device its GPU work ran on, and how its deviceProperties name it. */
  static Stream<Arguments> kineto() {
    String pg509 = "NVIDIA A100-PG509-200";
    return Stream.of(
        Arguments.of("a100-sxm4-80gb_train_rank0.json.gz", 0, "NVIDIA A100-SXM4-80GB", 84990623744L, 108, 167936L),
        Arguments.of("a100_trace_diff_control_rank3.json.gz", 3, pg509, 42505273344L, 108, 167936L),
        Arguments.of("a100_alexnet_trace.json.gz", 0, pg509, 42297524224L, 108, 167936L),
        Arguments.of("a100_simple_add_trace.json.gz", 0, pg509, 42297524224L, 108, 167936L),
        Arguments.of("a100_nccl_data.json.gz", 0, pg509, 42297524224L, 108, 167936L),
        Arguments.of("a100_cuda_event_sync.json.gz", 0, pg509, 42297524224L, 108, 167936L),
        Arguments.of("a100_cuda_event_sync_multi_stream.json.gz", 0, pg509, 42297524224L, 108, 167936L),
        Arguments.of("v100-sxm2-32gb_df_index_resolver.json.gz", 1, "Tesla V100-SXM2-32GB", 34089730048L, 80, 98304L),
        Arguments.of("v100-sxm2-32gb_ns_resolution_rank0.json.gz", 0, "Tesla V100-SXM2-32GB", 34079637504L, 80,
            98304L));
  }

  @ParameterizedTest
  @MethodSource("kineto")
  void realKinetoTracesNameTheirGpu(String file, int device, String name, long memory, int sms, long smemPerSm)
      throws Exception {
    Path in = realdata().resolve("hta-kineto-traces").resolve(file);
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path trace = importFile(in);
    assertThat(devices(trace)).singleElement().satisfies(d -> {
      assertThat(d.getDevice()).isEqualTo(device);
      assertThat(d.getName()).isEqualTo(name);
      assertThat(d.getTotalMemoryBytes()).isEqualTo(memory);
      assertThat(d.getMultiprocessorCount()).isEqualTo(sms);
      assertThat(d.getSharedMemPerMultiprocessorBytes()).isEqualTo(smemPerSm);
      assertThat(d.getComputeMajor()).isEqualTo(name.startsWith("Tesla V100") ? 7 : 8);
    });
    // every kernel of these traces carries its registers, shared memory and Kineto's figures
    assertThat(kernels(trace)).isNotEmpty().allSatisfy(k -> {
      assertThat(k.hasSharedMemPerBlockBytes()).isTrue();
      assertThat(k.hasEstimatedOccupancyPct()).isTrue();
      assertThat(k.hasBlocksPerSm() && k.hasWarpsPerSm()).isTrue();
    });
    assertThat(kernels(trace)).anySatisfy(k -> assertThat(k.getRegistersPerThread()).isPositive());
  }

  /** The sampled traces have no deviceProperties: no device is named, kernels still carry resources. */
  @Test
  void realKinetoTracesWithoutDevicePropertiesNameNone() throws Exception {
    Path in = realdata().resolve("hta-kineto-traces").resolve("sampled_rank-1.json.gz");
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path trace = importFile(in);
    assertThat(devices(trace)).isEmpty();
    assertThat(kernels(trace)).isNotEmpty().allSatisfy(k -> assertThat(k.hasEstimatedOccupancyPct()).isTrue());
  }

  static Stream<Arguments> nsys() {
    return Stream.of(
        Arguments.of("perlmutter-cloverleaf-cuda.sqlite.gz", "NVIDIA A100-SXM4-80GB", "0000:c1:00.0", 84990623744L,
            2_039_040_000_000L),
        Arguments.of("saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz", "NVIDIA A100-SXM4-40GB", "0000:03:00.0",
            42297524224L, 1_555_200_000_000L));
  }

  @ParameterizedTest
  @MethodSource("nsys")
  void realNsysExportsNameTheirGpu(String file, String name, String bus, long memory, long bandwidth)
      throws Exception {
    Path in = realdata().resolve("pipit-nsys-perlmutter").resolve(file);
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path trace = importFile(in);
    assertThat(devices(trace)).singleElement().satisfies(d -> {
      assertThat(d.getDevice()).isZero();
      assertThat(d.getName()).isEqualTo(name);
      assertThat(d.getPciBusId()).isEqualTo(bus);
      assertThat(d.getTotalMemoryBytes()).isEqualTo(memory);
      assertThat(d.getMemoryBandwidthBytesPerSec()).isEqualTo(bandwidth);
      assertThat(List.of(d.getComputeMajor(), d.getComputeMinor(), d.getMultiprocessorCount(), d.getClockRateKhz(),
          d.getMaxThreadsPerMultiprocessor(), d.getMaxBlocksPerMultiprocessor(), d.getRegistersPerMultiprocessor()))
          .containsExactly(8, 0, 108, 1_410_000, 2048, 32, 65536);
      assertThat(List.of(d.getSharedMemPerMultiprocessorBytes(), d.getSharedMemPerBlockOptinBytes(),
          d.getL2CacheBytes())).containsExactly(167936L, 166912L, 41943040L);
    });
    assertThat(kernels(trace)).isNotEmpty().allSatisfy(k -> {
      assertThat(k.getRegistersPerThread()).isPositive();
      assertThat(k.hasStaticSharedMemBytes() && k.hasDynamicSharedMemBytes()).isTrue();
    });
  }

  @Test
  void realNvprofProfilesNameTheirGpu() throws Exception {
    Path in = realdata().resolve("ahead-titan").resolve("titan-profiler-bandwidth-output-dtod.nvvp.gz");
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path db = tmp.resolve("titan.nvvp");
    try (InputStream s = new GZIPInputStream(Files.newInputStream(in))) {
      Files.copy(s, db);
    }
    Path trace = importFile(db);
    Map<Integer, DeviceInfo> byPid = ImportedTrace.read(trace).trace().records().stream()
        .filter(r -> r.event().hasDeviceInfo())
        .collect(Collectors.toMap(TraceRecord::pid, r -> r.event().getDeviceInfo()));
    assertThat(byPid).hasSize(1);
    DeviceInfo k20x = byPid.values().iterator().next();
    assertThat(k20x.getName()).isEqualTo("Tesla K20X");
    assertThat(List.of(k20x.getDevice(), k20x.getComputeMajor(), k20x.getComputeMinor(), k20x.getMultiprocessorCount(),
        k20x.getClockRateKhz(), k20x.getMaxThreadsPerMultiprocessor(), k20x.getMaxBlocksPerMultiprocessor()))
        .containsExactly(0, 3, 5, 14, 732_000, 2048, 16);
    assertThat(k20x.getTotalMemoryBytes()).isEqualTo(5_977_800_704L);
    assertThat(k20x.getMemoryBandwidthBytesPerSec()).isEqualTo(249_600_000_000L);
    assertThat(k20x.getL2CacheBytes()).isEqualTo(1_572_864L);
  }
}
