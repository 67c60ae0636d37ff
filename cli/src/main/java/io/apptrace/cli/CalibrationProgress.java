package io.apptrace.cli;

import io.apptrace.calibrate.Calibration;
import io.apptrace.calibrate.CalibrationResult;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * What {@code apptrace calibrate} shows while it runs, on stderr: a progress bar on a terminal,
 * otherwise a line for each benchmark as it starts; skipped benchmarks and warnings as lines.
 */
final class CalibrationProgress implements Calibration.Listener {
  private static final int WIDTH = 30;
  private final PrintWriter err;
  private final StatusLine bar;
  private String last = "";

  CalibrationProgress(PrintWriter err, boolean live) {
    this.err = err;
    this.bar = new StatusLine(err, live);
  }

  @Override
  public synchronized void progress(double fraction, String what) {
    int pct = (int) Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
    if (bar.live()) {
      int filled = (int) Math.round(Math.min(1, fraction) * WIDTH);
      bar.show(String.format(Locale.ROOT, "[%s%s] %3d%% %s", "#".repeat(filled), "-".repeat(WIDTH - filled), pct, what));
    } else if (!what.equals(last) && !what.equals("done")) {
      err.printf(Locale.ROOT, "apptrace calibrate: %3d%% %s%n", pct, what);
      err.flush();
    }
    last = what;
  }

  @Override
  public synchronized void skipped(CalibrationResult.Skipped s) {
    line("skipped " + s.benchmark() + " " + s.where() + ": " + s.reason());
  }

  @Override
  public synchronized void warn(String message) {
    line(message);
  }

  private void line(String text) {
    clear();
    err.println("apptrace calibrate: " + text);
    err.flush();
  }

  /** Takes the bar off the terminal. */
  synchronized void clear() {
    bar.clear();
  }
}
