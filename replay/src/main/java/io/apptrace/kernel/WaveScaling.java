package io.apptrace.kernel;

import io.apptrace.node.GpuSpec;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Occupancy and waves of a launch on a GPU, after Habitat's wave scaling (Yu et al. 2021, sec. 3):
 * how many of a kernel's thread blocks one SM holds at once, from the launch and the per-SM
 * limits, and how many rounds ("waves") of the whole GPU the grid takes.
 */
public final class WaveScaling {
  private WaveScaling() {}

  /**
   * Thread blocks resident per SM: the least of the per-SM block limit, threads per SM over
   * threads per block, registers per SM over the block's registers (when known; allocation
   * granularity ignored) and shared memory per SM over the block's (when known and not zero); at
   * least 1. Empty when the GPU has no per-SM limits in the catalogue.
   */
  public static OptionalInt occupancy(GpuSpec gpu, long threadsPerBlock, OptionalInt registersPerThread,
      OptionalDouble sharedMemoryBytes) {
    if (gpu.perSm().isEmpty()) {
      return OptionalInt.empty();
    }
    GpuSpec.PerSm s = gpu.perSm().get();
    long blocks = Math.min(s.blocks(), s.threads() / Math.max(1, threadsPerBlock));
    if (registersPerThread.isPresent() && registersPerThread.getAsInt() > 0) {
      blocks = Math.min(blocks, s.registers() / (registersPerThread.getAsInt() * threadsPerBlock));
    }
    if (sharedMemoryBytes.isPresent() && sharedMemoryBytes.getAsDouble() > 0) {
      blocks = Math.min(blocks, (long) (s.sharedMemoryBytes() / sharedMemoryBytes.getAsDouble()));
    }
    return OptionalInt.of((int) Math.max(1, blocks));
  }

  /** Waves of a grid of {@code blocks} blocks: {@code ceil(blocks / (occupancy * SMs))}. */
  public static long waves(long blocks, int occupancy, int sms) {
    long perWave = (long) occupancy * sms;
    return (blocks + perWave - 1) / perWave;
  }

  /**
   * The blocks one SM works through for the whole grid, counting the last wave as full: {@code waves
   * * occupancy}. A compute-bound kernel's time on a GPU is this times a block's time at that
   * GPU's per-SM throughput; its ratio between two GPUs is Habitat's wave-scaling factor.
   * Empty when the launch or the GPU's SMs or per-SM limits are unknown.
   */
  public static OptionalDouble blocksPerSm(KernelFacts facts, GpuSpec gpu) {
    if (facts.grid().isEmpty() || facts.block().isEmpty() || gpu.sms().isEmpty()) {
      return OptionalDouble.empty();
    }
    OptionalInt occ = occupancy(gpu, facts.block().get().count(), facts.registersPerThread(),
        facts.sharedMemoryBytes());
    if (occ.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((double) waves(facts.grid().get().count(), occ.getAsInt(), gpu.sms().getAsInt())
        * occ.getAsInt());
  }
}
