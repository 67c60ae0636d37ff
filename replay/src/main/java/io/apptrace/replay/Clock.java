package io.apptrace.replay;

/**
 * The replay's clock: integer nanoseconds from the first call, exact at any makespan
 * (docs/REPLAY.md, "The clock"). Only {@link ReplayLoop} moves it.
 */
final class Clock {
  private long now;

  long now() {
    return now;
  }

  void advanceTo(long t) {
    now = t;
  }

  /** The time {@code delayNs} from now, rounded to the nanosecond (never earlier than now). */
  long at(double delayNs) {
    return now + ticks(delayNs);
  }

  /** A duration in ns rounded to the clock's nanosecond; never negative, saturating far away. */
  static long ticks(double ns) {
    if (!(ns > 0)) {
      return 0;
    }
    return ns >= 0x1p62 ? Long.MAX_VALUE / 2 : Math.round(ns);
  }
}
