package io.apptrace.cli;

import io.apptrace.calibrate.CalibrationResult;
import io.apptrace.calibrate.CallCostFit;
import io.apptrace.node.ApiClass;
import io.apptrace.calibrate.LogGpFit;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The table {@code apptrace calibrate} ends with: per benchmark and route, L+o, the bandwidth 1/G,
 * the gap g (pinned copies) and the largest spread over its sizes; then the page faults, the memsets' fixed cost,
 * the CUDA calls' own costs, and what was skipped.
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
    for (CalibrationResult.MemsetSeries m : r.memsets()) {
      out.printf(Locale.ROOT, "%-25s %-28s %11s %13s %11s %7.1f%%%n", "memset", "gpu " + m.gpu(),
          Units.time(m.fixedSeconds()), "", "", 100 * m.sizes().stream().mapToDouble(z -> z.seconds().relativeSpread())
              .max().orElse(0));
    }
    calls(out, r);
    out.printf(Locale.ROOT, "spread: the largest standard deviation over the median of any size (%d repetitions)%n",
        r.sizing().reps());
    if (!r.skipped().isEmpty()) {
      out.printf(Locale.ROOT, "skipped %d benchmark%s:%n", r.skipped().size(), r.skipped().size() == 1 ? "" : "s");
      r.skipped().forEach(k -> out.printf(Locale.ROOT, "  %s %s: %s%n", k.benchmark(), k.where(), k.reason()));
    }
  }

  /** The host-overhead benchmarks: each class's fixed cost (and cost per MiB) net of the JNA call. */
  private static void calls(PrintWriter out, CalibrationResult r) {
    if (r.calls().isEmpty()) {
      return;
    }
    out.printf(Locale.ROOT, "CUDA calls (host clock, less the JNA call's own %s):%n", Units.time(r.jnaSeconds()));
    for (CalibrationResult.CallSeries c : r.calls()) {
      CallCostFit.Cost cost = c.cost(r.jnaSeconds());
      String fixed = cost.fixedSeconds() > 0 ? Units.time(cost.fixedSeconds()) : "not positive (the default)";
      String perMib = c.apiClass().perMib() && cost.sizes() > 1 ? " + " + Units.time(cost.perMibOrZero()) + "/MiB"
          : "";
      out.printf(Locale.ROOT, "  %-16s %-22s %s%s%n", c.apiClass().key(), c.call(), fixed, perMib);
    }
    out.printf(Locale.ROOT, "  %s: not measurable in a running process (the defaults)%n", String.join(", ",
        CalibrationResult.CALLS_NOT_MEASURABLE.stream().map(ApiClass::key).toList()));
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
