package io.apptrace.kernel;

import io.apptrace.node.CataloguePeak;
import io.apptrace.node.GpuSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * A kernel's time on one catalogued GPU from what a trace knows of it on another
 * (docs/COST-MODEL.md, "Kernels on another GPU"). Every time is a fixed floor plus work:
 * {@code t = floor + w}. The floor (launch; in event-timed data the host's dispatch too) scales
 * with neither bandwidth nor FLOP/s and is kept; the work is priced by the kernel's class:
 *
 * <ul>
 *   <li>GEMM with its FLOPs known: {@code w = flops / (P32 * cap * e_gemm(log10(flops / SMs)))} on the
 *       target, P32 its FP32 peak, cap its {@link PowerCap} share, e_gemm the fitted efficiency;
 *       without FLOPs, and convolutions: the measured work times the ratio of {@code P32 * cap}
 *       (convolutions with their own fitted power-cap threshold);
 *   <li>elementwise, reduction and copy kernels with their bytes known: {@code w = bytes / (BW *
 *       e_class(log2(bytes / L2) + 20))} on the target; without bytes, the measured work times the
 *       ratio of memory bandwidths;
 *   <li>other kernels: the measured work times the ratio of the quantitative rooflines {@code
 *       max(flops / (P32 * cap), bytes / BW)} (Choi et al. 2020) when both are known, else of the
 *       bandwidths;
 *   <li>GEMMs and convolutions whose name says another precision ({@link KernelPrecision}: FP16,
 *       BF16, TF32 tensor cores, INT8, FP64): the measured work times the ratio of the two GPUs'
 *       power-capped peaks for it;
 *   <li>communication (NCCL) kernels, and any kernel on the GPU it was measured on: kept.
 * </ul>
 *
 * A figure the target or source lacks makes the model fall back to the next ratio it can form,
 * and the prediction's notes say which figure and which ratio. The direct forms use nothing of the
 * source GPU but the floor: on the data of docs/ACCURACY.md they beat every ratio of the
 * measurement, because which kernel cuBLAS picks, and how well it runs, differs between GPUs.
 */
public final class KernelTimeModel {
  /**
   * The floor assumed when the facts give none: an empty kernel's GPU time as CUPTI measures it is
   * of this order (an assumption, not a measurement of ours).
   */
  public static final double DEFAULT_FLOOR_SECONDS = 2e-6;

  /** The GEMM table's feature and bins. */
  public static final String GEMM_FEATURE = "log10(flops / sms)";
  public static final double GEMM_START = 3.0;
  public static final double GEMM_STEP = 0.25;
  public static final int GEMM_BINS = 36;
  /** The memory tables' feature and bins. */
  public static final String MEMORY_FEATURE = "log2(bytes / l2_cache) + 20";
  public static final double MEMORY_START = 10.0;
  public static final double MEMORY_STEP = 0.5;
  public static final int MEMORY_BINS = 52;

  private static volatile KernelTimeModel bundled;

  private final KernelCoefficients coefficients;

  public KernelTimeModel(KernelCoefficients coefficients) {
    this.coefficients = Objects.requireNonNull(coefficients, "coefficients");
  }

  /** The model with the bundled coefficients. */
  public static KernelTimeModel bundled() {
    KernelTimeModel m = bundled;
    if (m == null) {
      bundled = m = new KernelTimeModel(KernelCoefficients.bundled());
    }
    return m;
  }

  public KernelCoefficients coefficients() {
    return coefficients;
  }

  /** The GEMM feature of {@code flops} on {@code gpu}: {@code log10(flops / SMs)}. */
  static double gemmFeature(double flops, int sms) {
    return Math.log10(flops / sms);
  }

  /** The memory feature of {@code bytes} on a GPU with {@code l2Bytes} of L2: {@code log2(bytes / L2) + 20}. */
  static double memoryFeature(double bytes, double l2Bytes) {
    return Math.log(bytes / l2Bytes) / Math.log(2) + 20;
  }

  /**
   * The kernel's time on {@code to}, measured (or not) on {@code from}.
   *
   * @param facts what the trace knows of the kernel; without a measured time the model predicts
   *     from its FLOPs or bytes alone, or gives a lower bound
   * @param from the GPU it was measured on
   * @param to the GPU to predict its time on
   */
  public Prediction predict(KernelFacts facts, GpuSpec from, GpuSpec to) {
    Objects.requireNonNull(facts, "facts");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    KernelClass k = facts.kernelClass();
    List<String> notes = new ArrayList<>();
    OptionalDouble measured = facts.measuredSeconds();
    if (measured.isPresent() && k == KernelClass.COMMUNICATION) {
      notes.add("communication (NCCL): kept; its time belongs to the links");
      return new Prediction(measured.getAsDouble(), Prediction.Method.KEPT, k, false, notes);
    }
    if (measured.isPresent() && from.name().equals(to.name())) {
      return new Prediction(measured.getAsDouble(), Prediction.Method.KEPT, k, false, notes);
    }
    double floor = Math.min(facts.floorSeconds().orElse(DEFAULT_FLOOR_SECONDS), measured.orElse(Double.MAX_VALUE));
    double work = measured.isPresent() ? Math.max(measured.getAsDouble() - floor, 0) : Double.NaN;
    if (measured.isPresent() && (k == KernelClass.GEMM || k == KernelClass.CONVOLUTION)) {
      Prediction p = otherPrecision(facts, from, to, floor, work, k, notes);
      if (p != null) {
        return p;
      }
    }
    Prediction direct = switch (k) {
      case GEMM -> gemm(facts, to, floor, k, notes);
      case ELEMENTWISE, REDUCTION, COPY -> memory(facts, to, floor, k, notes);
      default -> null;
    };
    if (direct != null) {
      return direct;
    }
    if (measured.isEmpty()) {
      return lowerBound(facts, to, floor, k, notes);
    }
    List<Prediction.Method> order = switch (k) {
      case GEMM, CONVOLUTION -> List.of(Prediction.Method.SUSTAINED_FP32_RATIO, Prediction.Method.BANDWIDTH_RATIO);
      case ELEMENTWISE, REDUCTION, COPY -> List.of(Prediction.Method.BANDWIDTH_RATIO,
          Prediction.Method.SUSTAINED_FP32_RATIO);
      default -> facts.flops().isPresent() && facts.bytes().isPresent()
          ? List.of(Prediction.Method.ROOFLINE_RATIO, Prediction.Method.BANDWIDTH_RATIO,
              Prediction.Method.SUSTAINED_FP32_RATIO)
          : List.of(Prediction.Method.BANDWIDTH_RATIO, Prediction.Method.SUSTAINED_FP32_RATIO);
    };
    double th = k == KernelClass.CONVOLUTION ? coefficients.convPowerCapThreshold()
        : coefficients.powerCapThreshold();
    for (Prediction.Method m : order) {
      OptionalDouble r = ratio(m, facts, from, to, th, notes);
      if (r.isPresent()) {
        if (m != order.get(0)) {
          notes.add("scaled by the " + m.key() + " instead");
        }
        return new Prediction(floor + work * r.getAsDouble(), m, k, false, notes);
      }
    }
    notes.add("no figure to scale by: the measured time kept");
    return new Prediction(measured.getAsDouble(), Prediction.Method.KEPT, k, false, notes);
  }

  /**
   * A GEMM or convolution whose name says it runs another precision than FP32 ({@link
   * KernelPrecision}: FP16, BF16 or TF32 on tensor cores, INT8, FP64): the measured work times the
   * ratio of the two GPUs' power-capped peaks for that precision (the fitted GEMM table is FP32's);
   * null for FP32, or when either GPU has no peak for it (the FP32 forms then apply, noted).
   */
  private Prediction otherPrecision(KernelFacts facts, GpuSpec from, GpuSpec to, double floor, double work,
      KernelClass k, List<String> notes) {
    KernelPrecision p = KernelPrecision.of(facts.name().orElse(null));
    if (p == KernelPrecision.FP32) {
      return null;
    }
    double th = k == KernelClass.CONVOLUTION ? coefficients.convPowerCapThreshold() : coefficients.powerCapThreshold();
    OptionalDouble a = p.sustainedPeak(from, th);
    OptionalDouble b = p.sustainedPeak(to, th);
    if (a.isEmpty() || b.isEmpty()) {
      notes.add((a.isEmpty() ? from : to).name() + " lacks a " + p.key() + " peak: priced as FP32");
      return null;
    }
    String n = p.key() + " on " + from.name() + " at its " + p.peakKey(from).orElseThrow() + ", on " + to.name()
        + " at its " + p.peakKey(to).orElseThrow();
    if (!notes.contains(n)) {
      notes.add(n);
    }
    capNote(from, notes);
    capNote(to, notes);
    return new Prediction(floor + work * a.getAsDouble() / b.getAsDouble(), Prediction.Method.SUSTAINED_PEAK_RATIO, k,
        false, notes);
  }

  /** FLOPs over the target's sustained FP32 times the fitted GEMM efficiency; null if it cannot. */
  private Prediction gemm(KernelFacts facts, GpuSpec to, double floor, KernelClass k, List<String> notes) {
    EfficiencyTable t = coefficients.tables().get(KernelClass.GEMM);
    if (facts.flops().isEmpty() || t == null) {
      return null;
    }
    if (to.peak(CataloguePeak.FP32).isEmpty() || to.sms().isEmpty()) {
      notes.add(to.name() + " lacks " + (to.sms().isEmpty() ? "sms" : "peak_flops.fp32") + " (GEMM efficiency)");
      return null;
    }
    capNote(to, notes);
    double f = facts.flops().getAsDouble();
    double e = t.efficiency(gemmFeature(f, to.sms().getAsInt()));
    double w = f / (PowerCap.sustainedFp32(to, coefficients.powerCapThreshold()).getAsDouble() * e);
    return new Prediction(floor + w, Prediction.Method.GEMM_EFFICIENCY, k, false, notes);
  }

  /** Bytes over the target's bandwidth times the class's fitted efficiency; null if it cannot. */
  private Prediction memory(KernelFacts facts, GpuSpec to, double floor, KernelClass k, List<String> notes) {
    EfficiencyTable t = coefficients.tables().get(k == KernelClass.REDUCTION ? k : KernelClass.ELEMENTWISE);
    if (facts.bytes().isEmpty() || t == null) {
      return null;
    }
    if (to.memoryBandwidth().isEmpty() || to.l2Bytes().isEmpty()) {
      notes.add(to.name() + " lacks " + (to.l2Bytes().isEmpty() ? "l2_cache" : "memory_bandwidth")
          + " (memory efficiency)");
      return null;
    }
    double b = facts.bytes().getAsDouble();
    double e = t.efficiency(memoryFeature(b, to.l2Bytes().getAsDouble()));
    return new Prediction(floor + b / (to.memoryBandwidth().getAsDouble() * e), Prediction.Method.MEMORY_EFFICIENCY, k,
        false, notes);
  }

  private static Prediction lowerBound(KernelFacts facts, GpuSpec to, double floor, KernelClass k,
      List<String> notes) {
    if (facts.bytes().isPresent() && to.memoryBandwidth().isPresent()) {
      return new Prediction(floor + facts.bytes().getAsDouble() / to.memoryBandwidth().getAsDouble(),
          Prediction.Method.LOWER_BOUND, k, true, notes);
    }
    notes.add("no measured time and nothing to price: the floor alone");
    return new Prediction(floor, Prediction.Method.LOWER_BOUND, k, true, notes);
  }

  /**
   * {@code to}'s time over {@code from}'s for the work, by the ratio {@code m} with the power-cap
   * threshold {@code th}; empty when a figure is missing.
   */
  private static OptionalDouble ratio(Prediction.Method m, KernelFacts facts, GpuSpec from, GpuSpec to, double th,
      List<String> notes) {
    // '|', not '||': both GPUs are checked, so that the notes name every missing figure
    switch (m) {
      case BANDWIDTH_RATIO -> {
        if (lacks(from, "memory_bandwidth", from.memoryBandwidth(), notes)
            | lacks(to, "memory_bandwidth", to.memoryBandwidth(), notes)) {
          return OptionalDouble.empty();
        }
        return OptionalDouble.of(from.memoryBandwidth().getAsDouble() / to.memoryBandwidth().getAsDouble());
      }
      case SUSTAINED_FP32_RATIO -> {
        if (lacks(from, "peak_flops.fp32", from.peak(CataloguePeak.FP32), notes) | lacks(to, "peak_flops.fp32", to.peak(CataloguePeak.FP32),
            notes)) {
          return OptionalDouble.empty();
        }
        capNote(from, notes);
        capNote(to, notes);
        return OptionalDouble.of(PowerCap.sustainedFp32(from, th).getAsDouble()
            / PowerCap.sustainedFp32(to, th).getAsDouble());
      }
      case ROOFLINE_RATIO -> {
        OptionalDouble a = roofline(facts, from, th);
        OptionalDouble b = roofline(facts, to, th);
        if (a.isEmpty() || b.isEmpty()) {
          notes.add((a.isEmpty() ? from : to).name() + " lacks peak_flops.fp32 or memory_bandwidth (roofline)");
          return OptionalDouble.empty();
        }
        return OptionalDouble.of(b.getAsDouble() / a.getAsDouble());
      }
      default -> throw new IllegalArgumentException("not a ratio: " + m);
    }
  }

  /**
   * The quantitative roofline of Choi et al. 2020 (sec. 1.1) with the power-capped FP32 peak:
   * {@code max(flops / (P32 * cap), bytes / BW)}.
   */
  static OptionalDouble roofline(KernelFacts facts, GpuSpec gpu, double threshold) {
    OptionalDouble p = PowerCap.sustainedFp32(gpu, threshold);
    if (p.isEmpty() || gpu.memoryBandwidth().isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(Math.max(facts.flops().getAsDouble() / p.getAsDouble(),
        facts.bytes().getAsDouble() / gpu.memoryBandwidth().getAsDouble()));
  }

  private static boolean lacks(GpuSpec g, String key, OptionalDouble v, List<String> notes) {
    if (v.isPresent()) {
      return false;
    }
    String n = g.name() + " lacks " + key;
    if (!notes.contains(n)) {
      notes.add(n);
    }
    return true;
  }

  private static void capNote(GpuSpec g, List<String> notes) {
    if (PowerCap.wattsPerTflopPerNm(g).isEmpty() && g.peak(CataloguePeak.FP32).isPresent()) {
      String n = g.name() + " lacks tdp: no power cap assumed";
      if (!notes.contains(n)) {
        notes.add(n);
      }
    }
  }
}
