package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.apptrace.proto.Api;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.Memset;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.Sync;
import org.junit.jupiter.api.Test;

/** The graph's view of an event carries each field the graph reads, from the field it names. */
class GraphEventTest {
  private static Event.Builder call() {
    return Event.newBuilder().setEntryNs(1001).setDurationNs(1002).setApi(Api.API_OTHER).setApiName("cuMemcpyHtoD")
        .setResult(3).setCallSite(0x4005).setCorrelationId(1006);
  }

  @Test
  void aCopyKeepsEveryFieldOfItsMessage() {
    Copy c = Copy.newBuilder().setDst(11).setSrc(12).setBytes(13).setKindResolved(CopyKind.DEVICE_TO_HOST)
        .setStream(14).setAsync(true).setDstDevice(15).setSrcDevice(16).setDims(2).setDpitch(17).setSpitch(18)
        .setWidth(19).setHeight(20).setDepth(21).setSrcKind(MemoryKind.PINNED).setDstKind(MemoryKind.MANAGED).build();
    GraphEvent e = GraphEvent.of(7, 8, 9, call().setCopy(c).build());
    assertThat(e).isEqualTo(new GraphEvent.CopyCall(new GraphEvent.Call(7, 8, Api.API_OTHER_VALUE, "cuMemcpyHtoD", 3,
        1001, 1002, 1006, 0x4005), 11, 12, 13, CopyKind.DEVICE_TO_HOST, 14, true, 15, 16, 2, 17, 18, 19, 20, 21,
        MemoryKind.PINNED, MemoryKind.MANAGED, null));
    assertThat(e.call().function()).isEqualTo(ApiNames.of(call().build())).isEqualTo("cuMemcpyHtoD");
    assertThat(e.call().ok()).isFalse();
    assertThat(e.call().exitNs()).isEqualTo(2003);
  }

  @Test
  void aMemsetALaunchAndGpuTimesKeepTheirFields() {
    Memset m = Memset.newBuilder().setPtr(31).setBytes(32).setStream(33).setAsync(true).setDims(3).setPitch(34)
        .setWidth(35).setHeight(36).setDepth(37).setKind(MemoryKind.DEVICE).build();
    assertThat(GraphEvent.of(1, 2, 0, call().setMemset(m).build())).isInstanceOfSatisfying(GraphEvent.MemsetCall.class,
        s -> assertThat(new long[] {s.ptr(), s.bytes(), s.stream(), s.dims(), s.pitch(), s.width(), s.height(),
            s.depth()}).containsExactly(31, 32, 33, 3, 34, 35, 36, 37));
    KernelLaunch l = KernelLaunch.newBuilder().setKernelId(41).setGridX(42).setGridY(43).setGridZ(44).setBlockX(45)
        .setBlockY(46).setBlockZ(47).setStream(48).setArgs(ByteString.copyFrom(new byte[] {1, 2, 3})).setDevice(-1)
        .setSharedMemBytes(49).build();
    assertThat(GraphEvent.of(1, 2, 0, call().setLaunch(l).build())).isInstanceOfSatisfying(
        GraphEvent.LaunchCall.class, k -> {
          assertThat(new long[] {k.kernelId(), k.gridX(), k.gridY(), k.gridZ(), k.blockX(), k.blockY(), k.blockZ(),
              k.stream(), k.device(), k.sharedMemBytes()}).containsExactly(41, 42, 43, 44, 45, 46, 47, 48, -1, 49);
          assertThat(k.args()).containsExactly(1, 2, 3);
        });
    GpuActivity g = GpuActivity.newBuilder().setCorrelationId(51).setStartNs(52).setEndNs(53).build();
    assertThat(GraphEvent.of(1, 2, 0, Event.newBuilder().setGpu(g).build()))
        .isEqualTo(new GraphEvent.GpuSpan(new GraphEvent.Call(1, 2, 0, "", 0, 0, 0, 0, 0), 51, 52, 53, null));
    GpuActivity kineto = g.toBuilder().setRegistersPerThread(48).setSharedMemPerBlockBytes(0)
        .setEstimatedOccupancyPct(7f).setBlocksPerSm(1.185185f).setWarpsPerSm(4.740741f).build();
    assertThat(GraphEvent.of(1, 2, 0, Event.newBuilder().setGpu(kineto).build())).isInstanceOfSatisfying(
        GraphEvent.GpuSpan.class, s -> assertThat(s.resources())
            .isEqualTo(new KernelResources(48, -1, -1, 0, 7f, 1.185185f, 4.740741f)));
    GpuActivity cupti = g.toBuilder().setRegistersPerThread(40).setStaticSharedMemBytes(4096)
        .setDynamicSharedMemBytes(1024).build();
    assertThat(KernelResources.of(cupti)).isEqualTo(new KernelResources(40, 4096, 1024, 5120, Float.NaN, Float.NaN,
        Float.NaN));
  }

  @Test
  void everyOtherEventIsKeptWhole() {
    Event sync = call().setApi(Api.cudaStreamSynchronize).setSync(Sync.newBuilder().setStream(5)).build();
    assertThat(GraphEvent.of(7, 8, 9, sync)).isInstanceOfSatisfying(GraphEvent.Other.class,
        o -> assertThat(o.record()).isEqualTo(new TraceRecord(7, 8, 9, sync)));
  }
}
