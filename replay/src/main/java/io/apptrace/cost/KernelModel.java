package io.apptrace.cost;

import io.apptrace.node.Precision;
import io.apptrace.node.Node;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What a kernel costs on a node (docs/COST-MODEL.md). A policy says how a kernel's time on the node a
 * trace was taken on becomes its time on the target node.
 */
public final class KernelModel {
  /** How to project a kernel's time (chosen with a flag). */
  public enum Policy {
    /**
     * The cross-GPU kernel model on a GPU other than the trace's (the default; io.apptrace.kernel,
     * docs/COST-MODEL.md "Kernels on another GPU").
     */
    MODEL("model"),
    /** Keep the measured time. */
    MEASURED("keep"),
    /** Scale the measured time by the ratio of the GPUs' memory bandwidths (memory-bound kernels). */
    SCALE_BANDWIDTH("scale-bandwidth"),
    /** Scale the measured time by the ratio of the GPUs' peak FLOP/s (compute-bound kernels). */
    SCALE_FLOPS("scale-flops"),
    /** The quantitative roofline from the kernel's FLOPs and DRAM bytes (Choi et al. 2020, sec. 1.1). */
    ROOFLINE("roofline");

    private final String key;

    Policy(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }

    public static Optional<Policy> of(String key) {
      if ("measured".equals(key)) {
        return Optional.of(MEASURED); // the name before the kernel model: still accepted
      }
      for (Policy p : values()) {
        if (p.key.equals(key)) {
          return Optional.of(p);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * A kernel's projected time and how it was reached.
   *
   * @param lowerBound true when no measured time existed and the time is the stated lower bound of
   *     docs/COST-MODEL.md (bytes over memory bandwidth plus launch overhead), never a measurement
   */
  public record KernelEstimate(double seconds, String method, boolean lowerBound) {}

  private KernelModel() {}

  /**
   * The quantitative roofline, Choi et al. 2020, sec. 1.1: {@code t = max(flops / peak_flops, dram_bytes /
   * memory_BW)}.
   */
  public static double roofline(double flops, double dramBytes, double peakFlops, double memoryBandwidth) {
    return Math.max(flops / peakFlops, dramBytes / memoryBandwidth);
  }

  /**
   * The estimate for a kernel with no measured time (a trace taken on the simulated device),
   * docs/COST-MODEL.md: the bytes its pointer arguments cover over the memory bandwidth, plus the
   * launch overhead. A lower bound.
   */
  public static double lowerBound(double bytes, Node.Gpu gpu) {
    return bytes / gpu.memoryBandwidth() + gpu.launchOverheadSeconds();
  }

  /**
   * A kernel's time on {@code target}.
   *
   * @param measuredSeconds its time where the trace was taken, when measured
   * @param from the GPU it was measured on (for the scaling policies)
   * @param flops its floating-point operations, when known (roofline)
   * @param bytes the DRAM bytes it moves, or for the lower bound the bytes its pointer arguments
   *     cover
   * @param precision which peak FLOP/s applies
   */
  public static KernelEstimate estimate(Policy policy, OptionalDouble measuredSeconds, Optional<Node.Gpu> from,
      Node.Gpu target, OptionalDouble flops, double bytes, Precision precision) {
    if (policy == Policy.ROOFLINE && flops.isPresent()) {
      Double peak = target.peakFlops().get(precision);
      if (peak != null) {
        return new KernelEstimate(roofline(flops.getAsDouble(), bytes, peak, target.memoryBandwidth()),
            "roofline (Choi et al. 2020, sec. 1.1)", false);
      }
    }
    if (measuredSeconds.isEmpty()) {
      return new KernelEstimate(lowerBound(bytes, target), "lower bound: bytes / memory bandwidth + launch overhead",
          true);
    }
    double t = measuredSeconds.getAsDouble();
    if (from.isPresent()) {
      Node.Gpu src = from.get();
      if (policy == Policy.SCALE_BANDWIDTH) {
        return new KernelEstimate(t * src.memoryBandwidth() / target.memoryBandwidth(),
            "measured, scaled by memory bandwidth " + src.model() + " -> " + target.model(), false);
      }
      Double a = src.peakFlops().get(precision);
      Double b = target.peakFlops().get(precision);
      if (policy == Policy.SCALE_FLOPS && a != null && b != null) {
        return new KernelEstimate(t * a / b, "measured, scaled by peak " + precision + " FLOP/s", false);
      }
    }
    return new KernelEstimate(t, "measured", false);
  }

  /**
   * The performance bounds of van Werkhoven et al. 2014, sec. III-A, in FLOP/s: with full overlap of transfers and
   * computation {@code min(peak, memory_BW * OI, link_BW * DI)}; with none
   * {@code flops / (bytes_transferred / link_BW + flops / RM)}; with mapped memory
   * {@code min(peak, link_BW * OI)}. OI is the operational intensity (FLOPs per DRAM byte), DI the
   * data intensity (FLOPs per byte moved between host and device), RM the kernel's in-memory rate.
   */
  public record Bounds(double fullOverlap, double zeroOverlap, double mapped) {
    public static Bounds of(double peak, double memoryBandwidth, double linkBandwidth, double flops,
        double dramBytes, double transferredBytes, double inMemoryRate) {
      double oi = flops / dramBytes;
      double di = flops / transferredBytes;
      return new Bounds(Math.min(peak, Math.min(memoryBandwidth * oi, linkBandwidth * di)),
          flops / (transferredBytes / linkBandwidth + flops / inMemoryRate),
          Math.min(peak, linkBandwidth * oi));
    }
  }

  /** The whole-iteration form, Choi et al. 2020, sec. 2.1: {@code overhead + sum(kernels) + communication}. */
  public static double iteration(double overhead, double[] kernels, double communication) {
    double t = overhead + communication;
    for (double k : kernels) {
      t += k;
    }
    return t;
  }
}
