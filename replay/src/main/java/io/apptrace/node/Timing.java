package io.apptrace.node;

import java.util.Optional;

/**
 * How a measured time was taken (docs/NODE-FORMAT.md, {@code measured.timed}). A copy's span on
 * the GPU and the duration of the call that issued it differ by the call's host-side overhead,
 * which for a copy of a few bytes is most of the call (docs/COST-MODEL.md, "Timing kinds").
 */
public enum Timing {
  /** The copy's span on the GPU, as CUPTI, nvprof and Nsight record it. */
  GPU("gpu", "GPU time"),
  /** CUDA events recorded around a synchronous call. */
  EVENT("event", "event-timed"),
  /** The host clock around the call. */
  WALL("wall", "wall-clock-timed");

  private final String key;
  private final String adjective;

  Timing(String key, String adjective) {
    this.key = key;
    this.adjective = adjective;
  }

  /** The name node files and {@code --json} outputs use. */
  public String key() {
    return key;
  }

  /** How a figure of this kind is described in outputs: {@code GPU time}, {@code event-timed}. */
  public String adjective() {
    return adjective;
  }

  /** Whether the time includes the host's side of the call (events and host clocks bracket the call). */
  public boolean includesCall() {
    return this != GPU;
  }

  public static Optional<Timing> of(String key) {
    for (Timing t : values()) {
      if (t.key.equals(key)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** {@code gpu, event, wall}. */
  public static String keys() {
    StringBuilder b = new StringBuilder();
    for (Timing t : values()) {
      b.append(b.length() == 0 ? "" : ", ").append(t.key);
    }
    return b.toString();
  }
}
