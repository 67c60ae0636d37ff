package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.graph.DvdgBuilder;
import io.apptrace.imports.Importer;
import io.apptrace.node.NodeLoader;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.DeviceInfoSource;
import io.apptrace.proto.Event;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.ProcessStart;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.SourceGpu;
import io.apptrace.trace.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a replay program carries of the GPU a trace was taken on ({@link ReplayProgram#sourceDevices()})
 * and of each kernel's launch ({@link ReplayProgram.LaunchFacts}), for a kernel model of other
 * GPUs; and that carrying them changes no replay.
 */
class SourceDevicesProgramTest {
  @TempDir Path tmp;

  private static Event device(int device, String name) {
    return Event.newBuilder().setDeviceInfo(DeviceInfo.newBuilder().setDevice(device).setName(name)
        .setSource(DeviceInfoSource.CUDA_RUNTIME).setComputeMajor(8).setMultiprocessorCount(108)).build();
  }

  private static Event launch(long entryNs, long corr, int gridX, int blockX, long sharedMem) {
    return Event.newBuilder().setApi(Api.rt__cudaLaunchKernel).setEntryNs(entryNs).setDurationNs(1000)
        .setCorrelationId(corr).setLaunch(KernelLaunch.newBuilder().setKernelId(0x40).setGridX(gridX).setGridY(2)
            .setGridZ(1).setBlockX(blockX).setBlockY(1).setBlockZ(1).setSharedMemBytes(sharedMem)).build();
  }

  /**
   * A capture of two processes on device 0 (the lower pid's names it "A"), two launches of one
   * kernel; CUPTI gave the first its registers and shared memory, the second nothing.
   */
  private Path capture() throws Exception {
    Path file = tmp.resolve("capture.apptrace");
    try (TraceWriter w = TraceWriter.create(file, TraceHeader.newBuilder().setSchemaVersion(1)
        .setSourceFormat("capture").build())) {
      for (int pid : new int[] {200, 100}) {
        Batch.Builder b = Batch.newBuilder().setPid(pid).setTid(pid).setSeq(0)
            .addEvents(Event.newBuilder().setProcessStart(ProcessStart.newBuilder().setPid(pid)))
            .addEvents(device(0, pid == 100 ? "A" : "B"))
            .addEvents(Event.newBuilder().setKernelInfo(KernelInfo.newBuilder().setKernelId(0x40)
                .setMangledName("_Z1kv")))
            .addEvents(launch(1000, 1, 4, 256, 1024))
            .addEvents(Event.newBuilder().setGpu(GpuActivity.newBuilder().setCorrelationId(1)
                .setKind(GpuActivityKind.GPU_KERNEL).setStartNs(2000).setEndNs(5000).setRegistersPerThread(40)
                .setStaticSharedMemBytes(4096).setDynamicSharedMemBytes(1024).setSharedMemPerBlockBytes(5120)))
            .addEvents(launch(10_000, 2, 8, 128, 0));
        w.writeBatch(b.build());
      }
    }
    return file;
  }

  @Test
  void aCapturesProgramCarriesItsDevicesAndEachKernelsLaunchFacts() throws Exception {
    ReplayProgram p = ProgramBuilder.of(DvdgBuilder.build(capture(), true));
    assertThat(p.sourceDevices()).containsOnlyKeys(0);
    SourceGpu a = p.sourceDevices().get(0);
    assertThat(a.name()).as("the lowest pid's, where processes differ").isEqualTo("A");
    assertThat(a.source()).isEqualTo(SourceGpu.Source.CUDA_RUNTIME);
    // in time order: each process's first launch, then each one's second
    List<ReplayProgram.LaunchFacts> facts = p.ops().stream().map(ReplayProgram.Op::launch).toList();
    // 4 x 2 x 1 blocks of 256 threads; CUPTI's registers and shared memory, static and dynamic
    ReplayProgram.LaunchFacts first = new ReplayProgram.LaunchFacts(8, 256, 40, 5120, 1024, Double.NaN);
    // the launch alone: its dynamic shared memory (none asked for), nothing of the kernel's own
    ReplayProgram.LaunchFacts second = new ReplayProgram.LaunchFacts(16, 128, 0, -1, 0, Double.NaN);
    assertThat(facts).containsExactly(first, first, second, second);
    assertThat(first.knowsResources()).isTrue();
    assertThat(second.knowsResources()).isFalse();
  }

  @Test
  void operationsBuiltTheOldWayKnowNothingOfTheirLaunch() {
    ReplayProgram.Op op = new ReplayProgram.Op(0, ReplayProgram.Kind.KERNEL, "k", 0, 0, -1, null, 0, -1, -1, -1, 0, 0,
        0, 64, false);
    assertThat(op.launch()).isEqualTo(ReplayProgram.LaunchFacts.UNKNOWN);
    assertThat(new ReplayProgram(List.of(op), List.of(), List.of(), 0).sourceDevices()).isEmpty();
    assertThatThrownBy(() -> new ReplayProgram.LaunchFacts(1, 1, 0, -2, -1, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared memory -2");
  }

  /** Kineto's occupancy estimate reaches the kernel's launch facts. */
  @Test
  void anImportedKinetoTraceCarriesItsGpuAndTheOccupancyEstimate() throws Exception {
    Path in = Files.writeString(tmp.resolve("k.json"), """
        {"deviceProperties": [{"id": 0, "name": "NVIDIA A100-PG509-200", "numSms": 108, "computeMajor": 8}],
         "traceEvents": [
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 100, "dur": 5,
           "args": {"correlation": 27}},
          {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 20, "ts": 110, "dur": 123,
           "args": {"device": 0, "stream": 20, "correlation": 27, "registers per thread": 122,
            "shared memory": 12544, "blocks per SM": 5.925926, "warps per SM": 23.703703, "grid": [8, 16, 5],
            "block": [128, 1, 1], "est. achieved occupancy %": 25}}]}
        """);
    Path out = tmp.resolve("k.apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    ReplayProgram p = ProgramBuilder.of(DvdgBuilder.build(out, true));
    assertThat(p.sourceDevices().get(0).name()).isEqualTo("NVIDIA A100-PG509-200");
    assertThat(p.sourceDevices().get(0).source()).isEqualTo(SourceGpu.Source.KINETO);
    assertThat(p.ops()).singleElement().satisfies(op -> assertThat(op.launch())
        .isEqualTo(new ReplayProgram.LaunchFacts(640, 128, 122, 12544, -1, 25.0)));
  }

  /**
   * The facts change a replay only where the kernel model uses them: on the GPU the trace was
   * taken on, or with {@code --kernel-policy keep}, a replay without them is the same; on another
   * GPU the model re-times the kernels from them (and without the trace's GPU, it cannot).
   */
  @Test
  void theFactsChangeAReplayOnlyThroughTheKernelModel() throws Exception {
    Path in = ImportedSelfCheckTest.realdata().resolve("hta-kineto-traces/a100_alexnet_trace.json.gz");
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path out = tmp.resolve("alexnet.apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    ReplayProgram with = ProgramBuilder.of(DvdgBuilder.build(out, true));
    assertThat(with.sourceDevices().get(0).name()).isEqualTo("NVIDIA A100-PG509-200");
    assertThat(with.ops()).filteredOn(o -> o.kind() == ReplayProgram.Kind.KERNEL)
        .allSatisfy(o -> assertThat(o.launch().knowsResources()).isTrue());
    ReplayProgram without = new ReplayProgram(with.ops().stream().map(o -> new ReplayProgram.Op(o.id(), o.kind(),
        o.name(), o.stream(), o.device(), o.peerDevice(), o.transfer(), o.bytes(), o.numa(), o.measuredStartNs(),
        o.measuredEndNs(), o.touchedBytes(), o.mappedReadBytes(), o.mappedWriteBytes(), o.blocks(), o.synchronous()))
        .toList(), with.streams(), with.threads(), with.events(), with.provenance());
    Replayer.Options o = Replayer.Options.defaults().withSamples(false);
    Replayer.Options keep = o.withKernelPolicy(io.apptrace.cost.KernelModel.Policy.MEASURED, java.util.Optional.empty());
    for (String node : new String[] {"a100-pg509", "dgx1-v100"}) {
      ReplayResult a = Replayer.replay(with, NodeLoader.bundled(node).orElseThrow(), keep);
      ReplayResult b = Replayer.replay(without, NodeLoader.bundled(node).orElseThrow(), keep);
      assertThat(a.makespanNs()).as(node + ", kept").isEqualTo(b.makespanNs());
    }
    var same = NodeLoader.bundled("a100-pg509").orElseThrow();
    assertThat(Replayer.replay(with, same, o).makespanNs()).isEqualTo(Replayer.replay(with, same, keep).makespanNs());
    var v100 = NodeLoader.bundled("dgx1-v100").orElseThrow();
    assertThat(Replayer.replay(with, v100, o).makespanNs()).as("re-timed for the V100")
        .isNotEqualTo(Replayer.replay(with, v100, keep).makespanNs());
  }
}
