package io.apptrace.kernel;

import io.apptrace.node.CataloguePeak;
import io.apptrace.node.GpuSpec;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The share of its FP32 peak a GPU can sustain within its board power. A GPU's dynamic energy per
 * operation falls roughly with its process's feature size (energy = C V^2 with C proportional to
 * the feature size), so {@code x = (TDP / FP32 peak) / process_nm}, in W per TFLOP/s per nm,
 * says how much power the board allows per operation relative to what the process needs. Below a
 * threshold fitted to measurements ({@link KernelCoefficients#powerCapThreshold()}) the clocks are
 * held down: {@code fraction = min(1, x / threshold)}. The T4 (70 W) and P4 (75 W) come out capped
 * at about half their peak; every 250 W and larger data-centre GPU does not.
 */
public final class PowerCap {
  /**
   * The process node of each architecture, nm, from NVIDIA's architecture whitepapers: Kepler and
   * Maxwell TSMC 28 nm; Pascal TSMC 16 nm FinFET; Volta and Turing TSMC 12 nm FFN; Ampere TSMC 7 nm
   * (GA100; the GA10x parts are Samsung 8 nm); Ada, Hopper and Blackwell TSMC 4N / 4NP (4).
   */
  static final Map<String, Double> PROCESS_NM = Map.of("kepler", 28.0, "maxwell", 28.0, "pascal", 16.0, "volta", 12.0,
      "turing", 12.0, "ampere", 7.0, "ada", 4.0, "hopper", 4.0, "blackwell", 4.0);

  private PowerCap() {}

  /**
   * {@code x = (TDP / FP32 peak in TFLOP/s) / process_nm} of {@code gpu}; empty when the catalogue
   * lacks its TDP or FP32 peak, or the process of its architecture is not known.
   */
  public static OptionalDouble wattsPerTflopPerNm(GpuSpec gpu) {
    Double nm = PROCESS_NM.get(gpu.architecture());
    if (gpu.tdpWatts().isEmpty() || gpu.peak(CataloguePeak.FP32).isEmpty() || nm == null) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(gpu.tdpWatts().getAsDouble() / (gpu.peak(CataloguePeak.FP32).getAsDouble() / 1e12) / nm);
  }

  /** The share of the FP32 peak {@code gpu} sustains: 1 when its TDP, FP32 peak or process is unknown. */
  public static double fraction(GpuSpec gpu, double threshold) {
    OptionalDouble x = wattsPerTflopPerNm(gpu);
    return x.isEmpty() ? 1.0 : Math.min(1.0, x.getAsDouble() / threshold);
  }

  /** {@code gpu}'s FP32 peak times its power-cap fraction, FLOP/s; empty without an FP32 peak. */
  public static OptionalDouble sustainedFp32(GpuSpec gpu, double threshold) {
    OptionalDouble p = gpu.peak(CataloguePeak.FP32);
    return p.isEmpty() ? p : OptionalDouble.of(p.getAsDouble() * fraction(gpu, threshold));
  }
}
