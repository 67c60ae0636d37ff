package io.apptrace.cli;

import io.apptrace.replay.BusyShare;
import io.apptrace.node.Units;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayReport;
import io.apptrace.replay.ReplayResult;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The text report of {@code apptrace replay} (and the demo's comparison). */
final class ReplayText {
  /** Critical-path segments printed in the text report. */
  private static final int PATH_SHOWN = 12;

  /** Engines and links shown per node, busiest first. */
  private static final int BUSY_SHOWN = 5;

  /** Categories shown per comparison of two nodes. */
  private static final int WHY_SHOWN = 4;

  private final PrintWriter out;
  private final int diffOps;

  ReplayText(PrintWriter out) {
    this(out, 0);
  }

  /** @param diffOps how many operations to list per comparison of two nodes ({@code --diff}; 0: none) */
  ReplayText(PrintWriter out, int diffOps) {
    this.out = out;
    this.diffOps = diffOps;
  }

  /**
   * The fixed costs the replay priced copies and memsets with, each as GPU time and how the node's
   * figure was timed (docs/COST-MODEL.md, "Timing kinds").
   */
  private void fixedCosts(ReplayResult r) {
    Map<String, io.apptrace.cost.TransferModel.Latency> costs = io.apptrace.replay.FixedCostReport.of(r);
    if (costs.isEmpty()) {
      return;
    }
    out.println("  fixed costs on the GPU (L+o; docs/COST-MODEL.md, \"Timing kinds\"):");
    costs.forEach((k, l) -> out.printf(Locale.ROOT, "    %-18s %s%n", k, l.measured()
        ? Units.time(l.seconds()) + ", " + l.source() + ", " + l.timed().adjective() + (l.timed().includesCall()
            ? ": GPU time converted from " + Units.time(l.callSeconds()) : "")
        : Units.time(l.seconds()) + ", " + l.source()));
  }

  void report(List<ReplayResult> results, String file) {
    report(results, file, List.of());
  }

  /**
   * The report, with {@code nodeLines.get(i)} printed under the makespan of node {@code i} (where
   * its L+o came from; {@code nodeLines} may be empty).
   */
  void report(List<ReplayResult> results, String file, List<List<String>> nodeLines) {
    ReplayProgram p = results.get(0).program();
    long measured = p.measuredMakespanNs();
    int calls = p.threads().stream().mapToInt(t -> t.calls().size()).sum();
    out.printf(Locale.ROOT, "%s: %,d operations, %,d API calls from %d host thread%s%s%n", file, p.ops().size(), calls,
        p.threads().size(), p.threads().size() == 1 ? "" : "s", measured >= 0
            ? ", measured makespan " + Units.time(measured * 1e-9)
            : p.provenance().simulated() ? " (captured on the simulated device: no GPU times were measured)"
            : " (no GPU times measured)");
    for (int i = 0; i < results.size(); i++) {
      ReplayResult r = results.get(i);
      out.println();
      out.printf(Locale.ROOT, "on %s: projected makespan %s%s%n", r.node().source().equals(r.node().name())
          ? r.node().name() : r.node().source(), Units.time(r.makespanNs() * 1e-9), measured >= 0
          ? String.format(Locale.ROOT, " (%.2fx the measured %s)", measured / Math.max(1.0, r.makespanNs()),
              Units.time(measured * 1e-9)) : "");
      if (i < nodeLines.size()) {
        nodeLines.get(i).forEach(l -> out.println("  " + l));
      }
      fixedCosts(r);
      Map<String, Double> b = ReplayReport.orderedBreakdown(r);
      StringBuilder line = new StringBuilder("  along the critical path:");
      for (String k : List.of("kernels", "memsets", "copies", "calls", "host", "idle")) {
        double v = b.get(k);
        line.append(String.format(Locale.ROOT, " %s %s (%.0f%%),", label(k), Units.time(v * 1e-9),
            100 * v / Math.max(1.0, r.makespanNs())));
      }
      line.setLength(line.length() - 1);
      out.println(line);
      b.forEach((k, v) -> {
        if (k.startsWith("copies ") && v > 0) {
          out.printf(Locale.ROOT, "    %-28s %s%n", k, Units.time(v * 1e-9));
        }
      });
      b.forEach((k, v) -> {
        if (k.startsWith("calls ") && v > 0) {
          out.printf(Locale.ROOT, "    %-28s %s%n", label(k), Units.time(v * 1e-9));
        }
      });
      busiest(r);
      List<ReplayResult.Segment> path = r.criticalPath();
      out.printf(Locale.ROOT, "  critical path (%d segment%s%s):%n", path.size(), path.size() == 1 ? "" : "s",
          path.size() > PATH_SHOWN ? ", the longest " + PATH_SHOWN + " in order" : "");
      List<ReplayResult.Segment> shown = new ArrayList<>(path);
      if (shown.size() > PATH_SHOWN) {
        List<ReplayResult.Segment> longest = new ArrayList<>(shown);
        longest.sort((x, y) -> Double.compare(y.endNs() - y.startNs(), x.endNs() - x.startNs()));
        java.util.Set<ReplayResult.Segment> keep = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        keep.addAll(longest.subList(0, PATH_SHOWN));
        shown.removeIf(s -> !keep.contains(s));
      }
      for (ReplayResult.Segment s : shown) {
        out.printf(Locale.ROOT, "    %12s - %-12s %-7s %s%n", Units.time(s.startNs() * 1e-9), Units.time(s.endNs() * 1e-9),
            s.what(), s.label());
      }
      io.apptrace.replay.SourceNodeMatch.Result source = io.apptrace.replay.SourceNodeMatch.of(r);
      boolean other = source.verdict() == io.apptrace.replay.SourceNodeMatch.Verdict.OTHER;
      Map<String, ReplayReport.ClassSpeedup> speedups = other ? ReplayReport.speedups(r) : Map.of();
      if (!speedups.isEmpty()) {
        out.println("  against the measured times (" + source.why() + ": a baseline, not a reference; no error"
            + " table here):");
        speedups.forEach((k, v) -> out.printf(Locale.ROOT, "    %-20s %6d ops  measured %s, projected %s: %.2fx%n", k,
            v.operations(), Units.time(v.measuredNs() * 1e-9), Units.time(v.projectedNs() * 1e-9), v.speedup()));
      }
      (other ? java.util.Optional.<ReplayReport.TimelineError>empty() : ReplayReport.timeline(r)).ifPresent(te -> out.printf(Locale.ROOT,
          "  timeline against the measured one: operations start %s from their measured start on average"
              + " (%.3f%% of the measured makespan; worst %s), makespan %+.2f%%%n",
          Units.time(te.meanStartErrorNs() * 1e-9), te.meanStartErrorPct(), Units.time(te.maxStartErrorNs() * 1e-9),
          te.makespanErrorPct()));
      Map<String, ReplayReport.ClassError> errors = other ? Map.of() : ReplayReport.errors(r);
      if (!errors.isEmpty()) {
        out.println("  operation times against the measured ones (WMAPE / MAPE):");
        errors.forEach((k, e) -> out.printf(Locale.ROOT, "    %-20s %6d ops  %6.1f%% / %6.1f%%%s%n", k, e.model().count(),
            e.model().wmapePct(), e.model().mapePct(), e.peakBw().count() > 0 ? String.format(Locale.ROOT,
                "   (Peak BW %.1f%% / %.1f%%, back-of-envelope %.1f%% / %.1f%%)", e.peakBw().wmapePct(),
                e.peakBw().mapePct(), e.backOfEnvelope().wmapePct(), e.backOfEnvelope().mapePct()) : ""));
      }
      for (String n : r.notes()) {
        out.println("  note: " + n);
      }
      for (String a : ReplayReport.advice(r)) {
        out.println("  advice: " + a);
      }
    }
    if (results.size() > 1) {
      out.println();
      comparison(results);
    }
  }

  /**
   * Per node after the first, why its projection differs: the categories of the critical path
   * whose times differ most, and with {@code --diff} the operations that do.
   */
  private void why(List<io.apptrace.replay.NodeComparison> comparisons) {
    for (io.apptrace.replay.NodeComparison c : comparisons) {
      StringBuilder line = new StringBuilder();
      int shown = 0;
      for (io.apptrace.replay.NodeComparison.Category k : c.categories()) {
        if (shown++ == WHY_SHOWN) {
          break;
        }
        line.append(line.length() == 0 ? "" : "; ").append(label(k.name())).append(' ')
            .append(signed(k.differenceNs())).append(" (").append(Units.time(k.baseNs() * 1e-9)).append(" -> ")
            .append(Units.time(k.otherNs() * 1e-9)).append(')');
      }
      out.printf(Locale.ROOT, "%s against %s (%.2fx): %s%n", c.other().node().name(), c.base().node().name(),
          c.speedup(), line.length() == 0 ? "the same critical path" : line);
      if (!c.ops().isEmpty()) {
        out.println("  operations that differ most (duration on " + c.base().node().name() + " -> "
            + c.other().node().name() + "):");
        for (io.apptrace.replay.NodeComparison.Op o : c.ops()) {
          ReplayProgram.Op op = c.base().program().ops().get(o.op());
          out.printf(Locale.ROOT, "    op %-6d %-7s %-36s %12s -> %-12s %s%n", o.op(),
              op.kind().name().toLowerCase(Locale.ROOT), abbreviate(op.name(), 36), Units.time(o.baseNs() * 1e-9),
              Units.time(o.otherNs() * 1e-9), signed(o.differenceNs()));
        }
      }
    }
  }

  private static String signed(double ns) {
    return (ns < 0 ? "-" : "+") + Units.time(Math.abs(ns) * 1e-9);
  }

  private static String abbreviate(String s, int n) {
    return s.length() <= n ? s : s.substring(0, n - 3) + "...";
  }

  /** How the per-node breakdown line names a class. */
  private static String label(String klass) {
    return switch (klass) {
      case "calls" -> "CUDA calls";
      case "host" -> "host compute";
      default -> klass.startsWith("calls ") ? "CUDA " + klass : klass;
    };
  }

  /**
   * The table of makespans and breakdowns, with each node's speedup over the first, then why each
   * node after the first differs from it.
   */
  void comparison(List<ReplayResult> results) {
    {
      ReplayResult first = results.get(0);
      out.printf(Locale.ROOT, "%-22s %12s %12s %12s %12s %12s %12s %10s%n", "node", "makespan", "kernels", "copies",
          "cuda calls", "host", "idle", "speedup");
      for (ReplayResult r : results) {
        Map<String, Double> b = r.breakdown();
        out.printf(Locale.ROOT, "%-22s %12s %12s %12s %12s %12s %12s %9.2fx%n", r.node().name(),
            Units.time(r.makespanNs() * 1e-9), Units.time(b.get("kernels") * 1e-9),
            Units.time(b.get("copies") * 1e-9), Units.time(b.get("calls") * 1e-9), Units.time(b.get("host") * 1e-9),
            Units.time(b.get("idle") * 1e-9), first.makespanNs() / Math.max(1.0, r.makespanNs()));
      }
      out.println("(speedup over " + first.node().name() + ")");
    }
    why(io.apptrace.replay.NodeComparison.againstFirst(results, diffOps));
  }

  /** The engines and links that bound the makespan ({@link BusyShare}), busiest first. */
  private void busiest(ReplayResult r) {
    List<BusyShare.Resource> all = BusyShare.of(r);
    if (all.isEmpty()) {
      return;
    }
    StringBuilder line = new StringBuilder("  busy, share of the makespan:");
    for (BusyShare.Resource x : all.subList(0, Math.min(BUSY_SHOWN, all.size()))) {
      line.append(String.format(Locale.ROOT, " %s%s %.0f%%%s,", x.link() && !x.name().endsWith(" memory") ? "link " : "", x.name(), 100 * x.share(),
          x.onCriticalPath() ? " (critical path)" : ""));
    }
    line.setLength(line.length() - 1);
    out.println(line);
  }
}
