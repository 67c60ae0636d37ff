package io.apptrace.trace;

import io.apptrace.proto.GpuActivity;

/**
 * What a kernel's GPU activity record says of the resources it ran with, as the profiler (or
 * CUPTI, in a capture) gave them: the inputs of an occupancy calculation.
 *
 * @param registersPerThread 0 when not given
 * @param staticSharedMemBytes shared memory the kernel declares, bytes; -1 when not given
 * @param dynamicSharedMemBytes shared memory the launch asked for, bytes; -1 when not given
 * @param sharedMemPerBlockBytes their sum (all Kineto gives), bytes; -1 when not given
 * @param estimatedOccupancyPct Kineto's "est. achieved occupancy %" (the occupancy calculator's
 *     estimate, not a hardware counter); NaN when not given
 * @param blocksPerSm Kineto's "blocks per SM" (the grid's blocks over the SM count); NaN when not
 *     given
 * @param warpsPerSm Kineto's "warps per SM"; NaN when not given
 */
public record KernelResources(int registersPerThread, long staticSharedMemBytes, long dynamicSharedMemBytes,
    long sharedMemPerBlockBytes, float estimatedOccupancyPct, float blocksPerSm, float warpsPerSm) {

  /** The resources a GPU activity record gives, or null when it gives none. */
  public static KernelResources of(GpuActivity g) {
    if (g.getRegistersPerThread() == 0 && !g.hasStaticSharedMemBytes() && !g.hasDynamicSharedMemBytes()
        && !g.hasSharedMemPerBlockBytes() && !g.hasEstimatedOccupancyPct() && !g.hasBlocksPerSm()
        && !g.hasWarpsPerSm()) {
      return null;
    }
    long total = g.hasSharedMemPerBlockBytes() ? g.getSharedMemPerBlockBytes()
        : g.hasStaticSharedMemBytes() && g.hasDynamicSharedMemBytes()
            ? g.getStaticSharedMemBytes() + g.getDynamicSharedMemBytes() : -1;
    return new KernelResources(g.getRegistersPerThread(),
        g.hasStaticSharedMemBytes() ? g.getStaticSharedMemBytes() : -1,
        g.hasDynamicSharedMemBytes() ? g.getDynamicSharedMemBytes() : -1, total,
        g.hasEstimatedOccupancyPct() ? g.getEstimatedOccupancyPct() : Float.NaN,
        g.hasBlocksPerSm() ? g.getBlocksPerSm() : Float.NaN,
        g.hasWarpsPerSm() ? g.getWarpsPerSm() : Float.NaN);
  }
}
