package io.apptrace.cli;

import io.apptrace.node.Units;
import io.apptrace.stats.Counts;
import io.apptrace.stats.NvtxCounts;
import io.apptrace.trace.CudaErrors;
import io.apptrace.trace.Direction;
import io.apptrace.trace.SourceGpu;
import io.apptrace.stats.ProcessStats;
import io.apptrace.stats.ThreadStats;
import io.apptrace.stats.TraceStats;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
        s.totals().events(), Units.time(s.totals().wallTimeNs() * 1e-9));
    out.printf(Locale.ROOT, "records dropped: %d, batches lost: %d, truncated: %s%n",
        s.droppedRecords(), s.lostBatches(), s.truncation()
            .map(t -> "yes, at byte " + t.byteOffset() + " (" + t.reason() + ")").orElse("no"));
    if (io.apptrace.graph.DvdgBuilder.isImported(s.header())) {
      out.printf("imported from %s by %s: API calls with their CPU times and GPU work with its measured GPU"
          + " times; no addresses (the graph has one value per copy endpoint, ordered by streams and"
          + " synchronization)%n", String.join(" ", s.header().getCommandList()), s.header().getProducer());
    }
    if (s.processes().size() != 1) { // with one process, its block is the totals
      out.println();
      out.println("Totals");
      counts(s.totals(), "  ");
    }
    for (ProcessStats p : s.processes()) {
      out.println();
      out.printf(Locale.ROOT, "Process %d (parent %d): %s%n", p.pid(), p.ppid(), String.join(" ", p.argv()));
      if (!io.apptrace.graph.DvdgBuilder.isImported(s.header())) { // imports do not say how a process ended
        out.printf(Locale.ROOT, "  ended: %s%s%n",
            p.exitCode().map(c -> "exit code " + c).orElse(p.signal() != 0 ? SignalNames.describe(p.signal()) : "unknown"),
            p.clean() ? "" : " (without a clean end: the last events may be missing)");
      }
      gpus(p);
      counts(p.counts(), "  ");
      nvtx(p.nvtx());
      for (ThreadStats t : p.threads()) {
        out.printf(Locale.ROOT, "  thread %d %s: %,d events, %,d API calls, %s%n", t.tid(),
            t.name().isEmpty() ? "" : "(" + t.name() + ")", t.counts().events(),
            t.counts().totalCalls(), Units.time(t.counts().wallTimeNs() * 1e-9));
      }
    }
    for (String n : s.notes()) {
      out.println("note: " + n);
    }
  }

  /** Ranges named in the text: the most frequent ones. */
  private static final int TOP_RANGES = 5;

  /** The ranges and marks the process named: counts, and the most frequent range names. */
  private void nvtx(NvtxCounts n) {
    if (n.ranges() == 0 && n.marks() == 0) {
      return;
    }
    out.printf(Locale.ROOT, "  NVTX ranges: %,d%s, marks: %,d%n", n.ranges(),
        n.unclosed() > 0 ? String.format(Locale.ROOT, " (%,d never closed: ended at their thread's last event)",
            n.unclosed()) : "", n.marks());
    List<Map.Entry<String, Long>> top = new ArrayList<>(n.rangeNames().entrySet());
    top.sort(Map.Entry.<String, Long>comparingByValue().reversed()); // stable: ties stay in name order
    Map<String, Long> shown = new LinkedHashMap<>();
    top.subList(0, Math.min(TOP_RANGES, top.size())).forEach(e -> shown.put(e.getKey(), e.getValue()));
    table(shown, "    ");
    if (top.size() > TOP_RANGES) {
      out.printf(Locale.ROOT, "    (%,d more names: stats --json lists them all)%n", top.size() - TOP_RANGES);
    }
  }

  /** The process's GPUs as its trace describes them, with where that came from. */
  private void gpus(ProcessStats p) {
    for (SourceGpu g : p.gpus()) {
      StringBuilder b = new StringBuilder(g.name().isEmpty() ? "(no name)" : g.name());
      if (!g.computeCapability().isEmpty()) {
        b.append(", compute capability ").append(g.computeCapability());
      }
      if (g.multiprocessors() > 0) {
        b.append(", ").append(g.multiprocessors()).append(" SMs");
      }
      if (g.totalMemoryBytes() > 0) {
        b.append(", ").append(Units.size(g.totalMemoryBytes()));
      }
      if (g.queryError() != 0) {
        b.append(", incomplete: ").append(CudaErrors.name(g.queryError()));
      }
      out.printf(Locale.ROOT, "  GPU %d: %s (%s%s)%n", g.device(), b, g.source().label(),
          p.simulatedDevice() ? ", simulated device" : "");
    }
    if (p.gpus().isEmpty() && p.gpuQueryError() != 0) {
      out.printf(Locale.ROOT, "  GPUs: not known: the CUDA runtime could not start (%s)%n",
          CudaErrors.name(p.gpuQueryError()));
    }
  }

  private void counts(Counts c, String in) {
    out.printf(Locale.ROOT, "%sAPI calls: %,d (%,d failed), wall time %s%n", in, c.totalCalls(),
        c.failedCalls(), Units.time(c.wallTimeNs() * 1e-9));
    calls(c, in + "  ");
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
            kinds.append(kinds.length() == 0 ? "" : ", ").append(k).append(' ').append(Units.size(b)));
        out.printf(Locale.ROOT, "%s  %-4s %12s in %,d cop%s (%s)%n", in, d.key(), Units.size(c.bytesCopied().get(d)),
            n, n == 1 ? "y" : "ies", kinds);
      }
    }
    if (c.memsets() > 0) {
      out.printf(Locale.ROOT, "%smemsets: %,d, %s%n", in, c.memsets(), Units.size(c.memsetBytes()));
    }
    if (c.graphs() > 0 || c.graphLaunches() > 0 || c.capturedCalls() > 0) {
      long nodes = c.graphNodes().values().stream().mapToLong(Long::longValue).sum();
      StringBuilder kinds = new StringBuilder();
      c.graphNodes().forEach((k, n) -> kinds.append(kinds.length() == 0 ? "" : ", ").append(n).append(' ').append(k));
      out.printf(Locale.ROOT, "%sCUDA graphs: %,d executable graph%s, %,d node%s%s, %,d launch%s%n", in, c.graphs(),
          c.graphs() == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", nodes > 0 ? " (" + kinds + ")" : "",
          c.graphLaunches(), c.graphLaunches() == 1 ? "" : "es");
      if (c.capturedCalls() > 0) {
        out.printf(Locale.ROOT, "%s  %,d calls captured into graphs (nodes, not work)%n",
            in, c.capturedCalls());
      }
    }
    if (!c.gpuWork().isEmpty()) {
      out.printf("%sGPU work (measured GPU times):%n", in);
      c.gpuWork().forEach((kind, v) -> out.printf(Locale.ROOT, "%s  %-11s %,10d  %12s%s%n", in, kind, v[0],
          Units.time(v[1] * 1e-9), v[2] > 0 && v[1] > 0 ? String.format(Locale.ROOT, "  %10s at %s", Units.size(v[2]),
              Units.bandwidth(v[2] / (v[1] * 1e-9))) : ""));
    }
    if (!c.allocations().isEmpty()) {
      out.printf("%sallocations:%n", in);
      c.allocations().forEach((k, v) ->
          out.printf(Locale.ROOT, "%s  %-15s %,8d  %s%n", in, k, v[0], Units.size(v[1])));
    }
  }

  /** Calls by function: how many, and the time spent in them (entry to exit, on the host). */
  private void calls(Counts c, String in) {
    int width = Math.min(NAME_COLUMN, c.apiCalls().keySet().stream().mapToInt(String::length).max().orElse(0));
    c.apiCalls().forEach((k, v) -> out.printf(Locale.ROOT, "%s%-" + Math.max(width, 1) + "s %,10d  %12s%n", in, k, v,
        Units.time(c.apiTimeNs().getOrDefault(k, 0L) * 1e-9)));
  }

  /** Names wider than this (long C++ kernel names) overflow their column rather than widen it. */
  private static final int NAME_COLUMN = 60;

  private void table(Map<String, Long> m, String in) {
    int width = Math.min(NAME_COLUMN, m.keySet().stream().mapToInt(String::length).max().orElse(0));
    m.forEach((k, v) -> out.printf(Locale.ROOT, "%s%-" + Math.max(width, 1) + "s %,10d%n", in, k, v));
  }
}
