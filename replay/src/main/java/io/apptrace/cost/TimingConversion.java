package io.apptrace.cost;

import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;

/**
 * The rule that converts a fixed cost between the ways it can be timed (docs/COST-MODEL.md,
 * "Timing kinds"): a copy's span on the GPU, and the duration of the blocking call around it
 * (CUDA events or the host clock: <b>Choice</b>, the two are converted alike, since events
 * recorded on either side of a synchronous call bracket the call).
 *
 * <p>Both figures are measured on the data that holds both a copy's GPU time and its call's
 * duration, copies of at most 4 KiB from or to pageable memory (their call blocks until the copy
 * is done): per trace the medians, then the median over the traces ({@code apptrace validate
 * timing}, docs/ACCURACY.md, "Fixed costs measured two ways": AHEAD's Titan traces, the Kineto and
 * Nsight traces of docs/REFERENCES.md). In that data a small copy's GPU time varies little from one
 * machine to another (0.93-4.0 us, most of it 1-2 us) while its call's host-side part varies
 * several-fold (3.0-18.7 us host to device), so:
 *
 * <ul>
 *   <li>call to GPU: {@code L_gpu = min(L_call, SMALL_COPY_GPU)}: the call's time says little about
 *       the GPU's part of it;
 *   <li>GPU to call: {@code L_call = L_gpu + BLOCKING_CALL_HOST}.
 * </ul>
 */
public final class TimingConversion {
  /** The median GPU time of a small host-to-device copy in the data with both times, seconds. */
  public static final double SMALL_COPY_GPU_H2D = 1.344e-6;

  /**
   * The same for copies out of the GPU (device to host; device-to-device and GPU-to-GPU kinds
   * take it too, as their L+o falls back to device to host's), seconds.
   */
  public static final double SMALL_COPY_GPU_D2H = 2.0e-6;

  /**
   * The median host-side overhead of a blocking copy call (its duration minus its copy's GPU
   * time), from host-to-device copies: a device-to-host call in an application's trace also waits
   * for the work queued before it, seconds.
   */
  public static final double BLOCKING_CALL_HOST = 9.5e-6;

  private TimingConversion() {}

  /** The GPU time of a small copy of this kind's direction. */
  static double smallCopyGpu(TransferKind kind) {
    return kind.way() == TransferKind.Way.H2D ? SMALL_COPY_GPU_H2D : SMALL_COPY_GPU_D2H;
  }

  /** A fixed cost timed as {@code timed}, as GPU time. */
  public static double toGpu(double seconds, Timing timed, TransferKind kind) {
    return timed.includesCall() ? Math.min(seconds, smallCopyGpu(kind)) : seconds;
  }

  /** A fixed cost timed as {@code timed}, as the duration of the call around the copy. */
  public static double toCall(double seconds, Timing timed) {
    return timed.includesCall() ? seconds : seconds + BLOCKING_CALL_HOST;
  }

  /** A fixed cost timed as {@code from}, as a figure of kind {@code to}. */
  public static double convert(double seconds, Timing from, Timing to, TransferKind kind) {
    if (from.includesCall() == to.includesCall()) {
      return seconds;
    }
    return to == Timing.GPU ? toGpu(seconds, from, kind) : toCall(seconds, from);
  }

  /** What was done to a figure, for outputs: {@code converted from 10.91 us event-timed (docs/...)}. */
  static String describe(double seconds, Timing from) {
    return "converted from " + Units.time(seconds) + " " + from.adjective() + " (docs/COST-MODEL.md, \"Timing kinds\")";
  }
}
