package io.apptrace.cli;

import java.io.PrintWriter;

/**
 * A line on stderr that a long command rewrites in place to show its progress, on a terminal only
 * (elsewhere it prints nothing), from its first second on (a quick command shows none), and takes
 * away before anything else is printed.
 */
final class StatusLine {
  /** A job shorter than this shows no progress at all. */
  static final long QUIET_NS = 1_000_000_000L;

  private final PrintWriter err;
  private final boolean live;
  private final java.util.function.LongSupplier clock;
  private final long started;
  private boolean shown;

  StatusLine(PrintWriter err, boolean live) {
    this(err, live, System::nanoTime);
  }

  /** With the clock it reads (ns), for tests. */
  StatusLine(PrintWriter err, boolean live, java.util.function.LongSupplier clock) {
    this.err = err;
    this.live = live;
    this.clock = clock;
    this.started = clock.getAsLong();
  }

  /** Seconds since the line was made: for rates. */
  double seconds() {
    return (clock.getAsLong() - started) * 1e-9;
  }

  /** Whether the line is shown at all (stderr is a terminal). */
  boolean live() {
    return live;
  }

  /** Replaces the line with {@code text}. */
  synchronized void show(String text) {
    if (live && clock.getAsLong() - started >= QUIET_NS) {
      err.print("\r\033[K" + text);
      err.flush();
      shown = true;
    }
  }

  /** Takes the line off the terminal. */
  synchronized void clear() {
    if (shown) {
      err.print("\r\033[K");
      err.flush();
      shown = false;
    }
  }
}
