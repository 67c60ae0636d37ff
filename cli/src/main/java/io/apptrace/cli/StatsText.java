package io.apptrace.cli;

import io.apptrace.stats.Counts;
import io.apptrace.trace.Direction;
import io.apptrace.stats.ProcessStats;
import io.apptrace.stats.ThreadStats;
import io.apptrace.stats.TraceStats;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/** The text form of {@code apptrace stats}. */
final class StatsText {
  private final PrintWriter out;

  StatsText(PrintWriter out) {
    this.out = out;
  }

  void print(TraceStats s, String file) {
    int threads = s.processes().stream().mapToInt(p -> p.threads().size()).sum();
    out.printf(Locale.ROOT, "%s: %s%s, %d process%s, %d thread%s, %,d events, %s of wall time%n",
        file, s.header().getSourceFormat().isEmpty() ? "trace" : s.header().getSourceFormat(),
        s.header().getSimulatedDevice() ? " on the simulated device" : "",
        s.processes().size(), s.processes().size() == 1 ? "" : "es", threads, threads == 1 ? "" : "s",
        s.totals().events(), Sizes.duration(s.totals().wallTimeNs()));
    out.printf(Locale.ROOT, "records dropped: %d, batches lost: %d, truncated: %s%n",
        s.droppedRecords(), s.lostBatches(), s.truncation()
            .map(t -> "yes, at byte " + t.byteOffset() + " (" + t.reason() + ")").orElse("no"));
    if (io.apptrace.graph.DvdgBuilder.isImported(s.header())) {
      out.printf("imported from %s by %s: API calls with their CPU times and GPU work with its measured GPU"
          + " times; no addresses (the graph has one value per copy endpoint, ordered by streams and"
          + " synchronization)%n", String.join(" ", s.header().getCommandList()), s.header().getProducer());
    }
    out.println();
    out.println("Totals");
    counts(s.totals(), "  ");
    for (ProcessStats p : s.processes()) {
      out.println();
      out.printf(Locale.ROOT, "Process %d (parent %d): %s%n", p.pid(), p.ppid(), String.join(" ", p.argv()));
      if (!io.apptrace.graph.DvdgBuilder.isImported(s.header())) { // imports do not say how a process ended
        out.printf(Locale.ROOT, "  ended: %s%s%n",
            p.exitCode().map(c -> "exit code " + c).orElse(p.signal() != 0 ? SignalNames.describe(p.signal()) : "unknown"),
            p.clean() ? "" : " (without a clean end: the last events may be missing)");
      }
      counts(p.counts(), "  ");
      for (ThreadStats t : p.threads()) {
        out.printf(Locale.ROOT, "  thread %d %s: %,d events, %,d API calls, %s%n", t.tid(),
            t.name().isEmpty() ? "" : "(" + t.name() + ")", t.counts().events(),
            t.counts().totalCalls(), Sizes.duration(t.counts().wallTimeNs()));
      }
    }
    for (String n : s.notes()) {
      out.println("note: " + n);
    }
  }

  private void counts(Counts c, String in) {
    out.printf(Locale.ROOT, "%sAPI calls: %,d (%,d failed), wall time %s%n", in, c.totalCalls(),
        c.failedCalls(), Sizes.duration(c.wallTimeNs()));
    table(c.apiCalls(), in + "  ");
    if (!c.kernelLaunches().isEmpty()) {
      out.printf("%skernel launches:%n", in);
      table(c.kernelLaunches(), in + "  ");
    }
    boolean anyCopy = c.copies().values().stream().anyMatch(n -> n > 0);
    if (anyCopy) {
      out.printf("%sbytes copied:%n", in);
      for (Direction d : Direction.values()) {
        long n = c.copies().get(d);
        if (n == 0) {
          continue;
        }
        StringBuilder kinds = new StringBuilder();
        c.bytesByMemory().getOrDefault(d, Map.of()).forEach((k, b) ->
            kinds.append(kinds.length() == 0 ? "" : ", ").append(k).append(' ').append(Sizes.human(b)));
        out.printf(Locale.ROOT, "%s  %-4s %12s in %,d cop%s (%s)%n", in, d.key(), Sizes.human(c.bytesCopied().get(d)),
            n, n == 1 ? "y" : "ies", kinds);
      }
    }
    if (c.memsets() > 0) {
      out.printf(Locale.ROOT, "%smemsets: %,d, %s%n", in, c.memsets(), Sizes.human(c.memsetBytes()));
    }
    if (!c.allocations().isEmpty()) {
      out.printf("%sallocations:%n", in);
      c.allocations().forEach((k, v) ->
          out.printf(Locale.ROOT, "%s  %-15s %,8d  %s%n", in, k, v[0], Sizes.human(v[1])));
    }
  }

  /** Names wider than this (long C++ kernel names) overflow their column rather than widen it. */
  private static final int NAME_COLUMN = 60;

  private void table(Map<String, Long> m, String in) {
    int width = Math.min(NAME_COLUMN, m.keySet().stream().mapToInt(String::length).max().orElse(0));
    m.forEach((k, v) -> out.printf(Locale.ROOT, "%s%-" + Math.max(width, 1) + "s %,10d%n", in, k, v));
  }
}
