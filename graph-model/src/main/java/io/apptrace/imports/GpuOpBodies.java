package io.apptrace.imports;

import io.apptrace.proto.Copy;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.KindResolution;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.Memset;
import io.apptrace.proto.ParamDecode;

/**
 * What a GPU operation becomes in the trace: the body of the call that issued it (a Copy, a
 * Memset or a KernelLaunch, with a KernelInfo the first time a process launches a kernel) and the
 * GpuActivity record of its measured GPU times that follows the call.
 */
final class GpuOpBodies {
  private GpuOpBodies() {}

  /**
   * The kernel's id in the trace: one per mangled name where the source gives it (two
   * instantiations of a template can display alike), else one per display name.
   */
  static long kernelId(GpuOpRow op) {
    return (op.mangledId() >= 0 ? op.mangledId() : op.nameId()) + 1;
  }

  static KernelInfo.Builder kernelInfo(GpuOpRow op, Strings strings) {
    String name = strings.get(op.nameId());
    String mangled = op.mangledId() >= 0 ? strings.get(op.mangledId()) : name;
    return KernelInfo.newBuilder().setKernelId(kernelId(op)).setMangledName(mangled).setDemangledName(name)
        .setDecode(ParamDecode.NONE);
  }

  /** A copy's body; one between two devices is a peer copy. */
  static Copy.Builder copy(GpuOpRow op, long stream, boolean async) {
    boolean p2p = op.kindNumber() == GpuActivityKind.GPU_MEMCPY_PEER_VALUE || op.srcDevice() != op.dstDevice();
    return Copy.newBuilder().setBytes(op.bytes()).setKindCalled(op.copyKind()).setKindResolved(op.copyKind())
        .setResolution(p2p ? KindResolution.PEER_CALL : KindResolution.AS_CALLED).setStream(stream)
        .setAsync(async).setSrcDevice(host(op.srcKind()) ? -1 : op.srcDevice())
        .setDstDevice(host(op.dstKind()) ? -1 : op.dstDevice()).setDims(1).setDevice((int) op.device())
        .setSrcKind(op.srcKind()).setDstKind(op.dstKind());
  }

  static Memset.Builder memset(GpuOpRow op, long stream, boolean async) {
    return Memset.newBuilder().setBytes(op.bytes()).setValue((int) op.value()).setStream(stream).setAsync(async)
        .setDims(1).setDevice((int) op.device()).setKind(op.dstKind());
  }

  static KernelLaunch.Builder launch(GpuOpRow op, long stream) {
    return KernelLaunch.newBuilder().setKernelId(kernelId(op)).setGridX(op.gridX()).setGridY(op.gridY())
        .setGridZ(op.gridZ()).setBlockX(op.blockX()).setBlockY(op.blockY()).setBlockZ(op.blockZ())
        .setSharedMemBytes(op.sharedMemBytes()).setStream(stream).setDevice((int) op.device())
        .setDecode(ParamDecode.NONE);
  }

  /** The operation's measured GPU times and what the source says of it. */
  static GpuActivity.Builder activity(GpuOpRow op, long corr, Strings strings) {
    GpuActivityKind kind = GpuActivityKind.forNumber(op.kindNumber());
    GpuActivity.Builder ga = GpuActivity.newBuilder().setCorrelationId(corr).setKind(kind).setStartNs(op.startNs())
        .setEndNs(op.endNs()).setDevice((int) op.device()).setStreamId(op.stream()).setContext((int) op.context())
        .setCopyKind(op.copyKind()).setSrcKind(op.srcKind()).setDstKind(op.dstKind()).setBytes(op.bytes())
        .setSrcDevice(op.srcDevice()).setDstDevice(op.dstDevice()).setGridX(op.gridX()).setGridY(op.gridY())
        .setGridZ(op.gridZ()).setBlockX(op.blockX()).setBlockY(op.blockY()).setBlockZ(op.blockZ())
        .setValue((int) op.value()).setGraphId(op.graphId()).setGraphNodeId(op.graphNodeId());
    if (op.nameId() >= 0) {
      ga.setName(strings.get(op.nameId()));
    }
    if (kind == GpuActivityKind.GPU_KERNEL) {
      resources(ga, op);
    }
    return ga;
  }

  /** A kernel's registers, shared memory and Kineto's occupancy figures, as the source gave them. */
  private static void resources(GpuActivity.Builder ga, GpuOpRow op) {
    long res = op.resources();
    long sharedMem = op.sharedMemBytes();
    ga.setRegistersPerThread((int) (res & 0xffff));
    if ((res & GpuOpRow.RES_SPLIT) != 0) {
      long stat = res >>> 20;
      ga.setStaticSharedMemBytes(stat).setDynamicSharedMemBytes(sharedMem).setSharedMemPerBlockBytes(stat + sharedMem);
    } else if ((res & GpuOpRow.RES_TOTAL) != 0) {
      ga.setSharedMemPerBlockBytes(sharedMem);
    }
    if (op.hasOccupancy()) {
      ga.setEstimatedOccupancyPct(op.occupancyPct());
    }
    if (op.hasPerSm()) {
      ga.setBlocksPerSm(op.blocksPerSm()).setWarpsPerSm(op.warpsPerSm());
    }
  }

  private static boolean host(MemoryKind k) {
    return k == MemoryKind.PAGEABLE || k == MemoryKind.PINNED || k == MemoryKind.WRITE_COMBINED
        || k == MemoryKind.REGISTERED || k == MemoryKind.MAPPED;
  }
}
