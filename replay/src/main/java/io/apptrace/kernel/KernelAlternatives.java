package io.apptrace.kernel;

import io.apptrace.node.CataloguePeak;
import io.apptrace.node.GpuSpec;
import java.util.OptionalDouble;

/**
 * What the kernel model is measured against (docs/ACCURACY.md): the datasheet ratios (the
 * baselines) and the other ways a measured time could be carried to another GPU. None of them is
 * fitted; each is NaN where a figure it needs is missing.
 */
public final class KernelAlternatives {
  private KernelAlternatives() {}

  /** Baseline: the measured time times the ratio of memory bandwidths, {@code t * BW_from / BW_to}. */
  public static double bandwidthRatio(double measuredSeconds, GpuSpec from, GpuSpec to) {
    if (from.memoryBandwidth().isEmpty() || to.memoryBandwidth().isEmpty()) {
      return Double.NaN;
    }
    return measuredSeconds * from.memoryBandwidth().getAsDouble() / to.memoryBandwidth().getAsDouble();
  }

  /** Baseline: the measured time times the ratio of datasheet FP32 peaks, {@code t * P32_from / P32_to}. */
  public static double fp32Ratio(double measuredSeconds, GpuSpec from, GpuSpec to) {
    if (from.peak(CataloguePeak.FP32).isEmpty() || to.peak(CataloguePeak.FP32).isEmpty()) {
      return Double.NaN;
    }
    return measuredSeconds * from.peak(CataloguePeak.FP32).getAsDouble() / to.peak(CataloguePeak.FP32).getAsDouble();
  }

  /**
   * Habitat's wave scaling (Yu et al. 2021, sec. 3), with the floor kept and the power-capped FP32
   * peaks: {@code t_to = floor + w * (BW_from / BW_to)^g * R_c^(1 - g)}, where the compute ratio
   * {@code R_c = (B_to / (P_to / SMs_to)) / (B_from / (P_from / SMs_from))} takes each GPU's blocks
   * per SM over the whole grid ({@link WaveScaling#blocksPerSm}, the last wave counted full) at its
   * per-SM throughput (the plain ratio of sustained peaks when the launch is unknown), and {@code g}
   * is how memory-bound the kernel is on the source, {@code (bytes / BW) / (bytes / BW + flops / P)}
   * when both are known, else 1 for memory-bound classes and 0 for GEMMs and convolutions. The same
   * kernel is assumed to run on both GPUs.
   */
  public static double habitatWaves(KernelFacts facts, GpuSpec from, GpuSpec to, double powerCapThreshold) {
    OptionalDouble pf = PowerCap.sustainedFp32(from, powerCapThreshold);
    OptionalDouble pt = PowerCap.sustainedFp32(to, powerCapThreshold);
    if (facts.measuredSeconds().isEmpty() || pf.isEmpty() || pt.isEmpty() || from.memoryBandwidth().isEmpty()
        || to.memoryBandwidth().isEmpty()) {
      return Double.NaN;
    }
    double t = facts.measuredSeconds().getAsDouble();
    double floor = Math.min(facts.floorSeconds().orElse(KernelTimeModel.DEFAULT_FLOOR_SECONDS), t);
    double rm = from.memoryBandwidth().getAsDouble() / to.memoryBandwidth().getAsDouble();
    double rc = pf.getAsDouble() / pt.getAsDouble();
    OptionalDouble bf = WaveScaling.blocksPerSm(facts, from);
    OptionalDouble bt = WaveScaling.blocksPerSm(facts, to);
    if (bf.isPresent() && bt.isPresent()) {
      rc = (bt.getAsDouble() / (pt.getAsDouble() / to.sms().getAsInt()))
          / (bf.getAsDouble() / (pf.getAsDouble() / from.sms().getAsInt()));
    }
    double g;
    if (facts.flops().isPresent() && facts.bytes().isPresent()) {
      double tm = facts.bytes().getAsDouble() / from.memoryBandwidth().getAsDouble();
      double tc = facts.flops().getAsDouble() / pf.getAsDouble();
      g = tm / (tm + tc);
    } else {
      KernelClass k = facts.kernelClass();
      g = k == KernelClass.GEMM || k == KernelClass.CONVOLUTION ? 0 : 1;
    }
    return floor + (t - floor) * Math.pow(rm, g) * Math.pow(rc, 1 - g);
  }

  /**
   * The ratio of quantitative rooflines (Choi et al. 2020, sec. 1.1) with the floor kept: {@code
   * t_to = floor + w * R_to / R_from}, {@code R = max(flops / (P32 * cap), bytes / BW)}; NaN
   * without FLOPs and bytes.
   */
  public static double rooflineRatio(KernelFacts facts, GpuSpec from, GpuSpec to, double powerCapThreshold) {
    if (facts.measuredSeconds().isEmpty() || facts.flops().isEmpty() || facts.bytes().isEmpty()) {
      return Double.NaN;
    }
    OptionalDouble a = KernelTimeModel.roofline(facts, from, powerCapThreshold);
    OptionalDouble b = KernelTimeModel.roofline(facts, to, powerCapThreshold);
    if (a.isEmpty() || b.isEmpty()) {
      return Double.NaN;
    }
    double t = facts.measuredSeconds().getAsDouble();
    double floor = Math.min(facts.floorSeconds().orElse(KernelTimeModel.DEFAULT_FLOOR_SECONDS), t);
    return floor + (t - floor) * b.getAsDouble() / a.getAsDouble();
  }
}
