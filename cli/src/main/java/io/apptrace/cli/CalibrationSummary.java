package io.apptrace.cli;

import io.apptrace.calibrate.CalibrationResult;
import io.apptrace.calibrate.LogGpFit;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The table {@code apptrace calibrate} ends with: per benchmark and route, L+o, the bandwidth 1/G,
 * the gap g (pinned copies) and the largest spread over its sizes; then the page faults and what
 * was skipped.
 */
final class CalibrationSummary {
  private CalibrationSummary() {}

  static void print(PrintWriter out, CalibrationResult r) {
    out.printf(Locale.ROOT, "%s: %d GPU%s (%s), NUMA nodes %s, %s%n", r.machine().host(), r.machine().gpus().size(),
        r.machine().gpus().size() == 1 ? "" : "s", r.machine().gpus().get(0).name(),
        r.machine().numaNodes().toString().replaceAll("[\\[\\]]", ""), r.machine().simulated()
            ? "SIMULATED runtime " + r.machine().runtime() : "CUDA runtime " + r.machine().runtime());
    out.printf(Locale.ROOT, "%-20s %-4s %-28s %11s %13s %11s %8s%n", "kind", "dir", "route", "L+o", "bandwidth", "g",
        "spread");
    for (CalibrationResult.Series s : r.series()) {
      LogGpFit.Fit f = s.fit();
      String bw = f.secondsPerByte() > 0 ? Units.bandwidth(f.bandwidthBytesPerSec()) : "-";
      out.printf(Locale.ROOT, "%-20s %-4s %-28s %11s %13s %11s %7.1f%%%n", s.benchmark().label(),
          s.benchmark().direction(), s.target().describe(s.benchmark()), Units.time(f.latencySeconds()), bw,
          gap(r, s), 100 * s.spread());
    }
    for (CalibrationResult.PageFault f : r.faults()) {
      out.printf(Locale.ROOT, "page fault %-14s %-28s %11s%n", f.key(), f.where(), Units.time(f.latencySeconds()));
    }
    out.printf(Locale.ROOT, "spread: the largest standard deviation over the median of any size (%d repetitions)%n",
        r.sizing().reps());
    if (!r.skipped().isEmpty()) {
      out.printf(Locale.ROOT, "skipped %d benchmark%s:%n", r.skipped().size(), r.skipped().size() == 1 ? "" : "s");
      r.skipped().forEach(k -> out.printf(Locale.ROOT, "  %s %s: %s%n", k.benchmark(), k.where(), k.reason()));
    }
  }

  private static String gap(CalibrationResult r, CalibrationResult.Series s) {
    TransferKind k = s.benchmark().kind().orElse(null);
    if (k != TransferKind.PINNED_H2D && k != TransferKind.PINNED_D2H) {
      return "";
    }
    return r.gaps().stream().filter(g -> g.way() == k.way() && g.target().equals(s.target())).findFirst()
        .map(g -> Units.time(g.gapSeconds())).orElse("-");
  }
}
