package io.apptrace.cost;

import io.apptrace.kernel.KernelClass;
import io.apptrace.kernel.KernelTimeModel;

/**
 * A copy within one GPU's memory (docs/COST-MODEL.md, "Each kind of transfer"): it reads and
 * writes every byte, at the fraction of the memory's bandwidth that streaming kernels reach once
 * their data is far larger than the L2 cache. That fraction is the kernel model's elementwise
 * efficiency at 64 times the L2 (docs/COST-MODEL.md, "Kernels on another GPU"; fitted to NeuSight's
 * kernel times, none of them a copy, on GPUs whose memory runs with ECC on where it has it):
 * {@code T = (L+o)_d2d + 2n / (GPU_memory_BW * e_dram)}. Abdelhafez et al. 2019, sec. IV-C price it
 * at the theoretical bandwidth, moving each byte once; that is the Peak-BW baseline.
 */
final class DeviceCopy {
  /** The memory feature of data 64 times the L2 ({@code log2(64) + 20}). */
  static final double FAR_BEYOND_L2 = 26;

  /** {@link #dramEfficiency()}, read from the bundled coefficients once (0 until then). */
  private static volatile double dram;

  private DeviceCopy() {}

  /** The fraction of the memory bandwidth a streaming copy reaches from DRAM. */
  static double dramEfficiency() {
    double e = dram;
    if (e == 0) {
      dram = e = KernelTimeModel.bundled().coefficients().tables().get(KernelClass.ELEMENTWISE)
          .efficiency(FAR_BEYOND_L2);
    }
    return e;
  }

  /** The seconds writing {@code bytes} takes (a memset) on a GPU of {@code memoryBandwidth}. */
  static double writeSeconds(double bytes, double memoryBandwidth) {
    return bytes / (memoryBandwidth * dramEfficiency());
  }

  /** The seconds the data part of a copy of {@code bytes} takes on a GPU of {@code memoryBandwidth}. */
  static double dataSeconds(double bytes, double memoryBandwidth) {
    return 2 * bytes / (memoryBandwidth * dramEfficiency());
  }
}
