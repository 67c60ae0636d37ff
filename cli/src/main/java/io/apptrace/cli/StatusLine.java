package io.apptrace.cli;

import java.io.PrintWriter;

/**
 * A line on stderr that a long command rewrites in place to show its progress, on a terminal only
 * (elsewhere it prints nothing), and takes away before anything else is printed.
 */
final class StatusLine {
  private final PrintWriter err;
  private final boolean live;
  private boolean shown;

  StatusLine(PrintWriter err, boolean live) {
    this.err = err;
    this.live = live;
  }

  /** Whether the line is shown at all (stderr is a terminal). */
  boolean live() {
    return live;
  }

  /** Replaces the line with {@code text}. */
  synchronized void show(String text) {
    if (live) {
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
