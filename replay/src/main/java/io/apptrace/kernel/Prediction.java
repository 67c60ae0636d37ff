package io.apptrace.kernel;

import java.util.List;
import java.util.Objects;

/**
 * A kernel's predicted time on the target GPU and how it was reached.
 *
 * @param seconds the predicted time
 * @param method which part of the model gave it
 * @param kernelClass the kernel's class, from its name
 * @param lowerBound true when no measured time existed and the time is a lower bound (the bytes
 *     over the target's bandwidth plus the floor), never a measurement's projection
 * @param notes what the model lacked or assumed, one short sentence each: a catalogue figure it
 *     needed and did not find (and the ratio it fell back to), a kernel kept unchanged, ...
 */
public record Prediction(double seconds, Method method, KernelClass kernelClass, boolean lowerBound,
    List<String> notes) {

  public Prediction {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(kernelClass, "kernelClass");
    notes = List.copyOf(notes);
  }

  /** Which part of the kernel model gave a time (docs/COST-MODEL.md, "Kernels on another GPU"). */
  public enum Method {
    /** FLOPs over the target's power-capped FP32 peak times the fitted GEMM efficiency. */
    GEMM_EFFICIENCY("gemm-efficiency"),
    /** Bytes over the target's memory bandwidth times the fitted efficiency of the class. */
    MEMORY_EFFICIENCY("memory-efficiency"),
    /** The measured time above the floor, scaled by the ratio of power-capped FP32 peaks. */
    SUSTAINED_FP32_RATIO("sustained-fp32-ratio"),
    /**
     * The measured time above the floor, scaled by the ratio of power-capped peaks of the precision
     * the kernel's name says (FP16, BF16, TF32 tensor cores, INT8, FP64; {@link KernelPrecision}).
     */
    SUSTAINED_PEAK_RATIO("sustained-peak-ratio"),
    /** The measured time above the floor, scaled by the ratio of memory bandwidths. */
    BANDWIDTH_RATIO("bandwidth-ratio"),
    /** The measured time above the floor, scaled by the ratio of the GPUs' quantitative rooflines. */
    ROOFLINE_RATIO("roofline-ratio"),
    /** The measured time, unchanged: the same GPU, a communication kernel, or no figure to scale by. */
    KEPT("kept"),
    /** No measured time: the bytes over the target's bandwidth plus the floor. */
    LOWER_BOUND("lower-bound");

    private final String key;

    Method(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }
  }
}
