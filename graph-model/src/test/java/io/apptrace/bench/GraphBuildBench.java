package io.apptrace.bench;

import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The graph-building benchmark of docs/BENCHMARKS.md: builds the DVDG of a synthetic trace
 * ({@link SyntheticTrace}) and reports events per second and the peak heap (run it with the heap
 * limit under test, -Xmx1536m). Usage: GraphBuildBench EVENTS [TRACE_FILE] [ROUNDS]
 */
public final class GraphBuildBench {
  private GraphBuildBench() {}

  public static void main(String[] args) throws Exception {
    long events = Long.parseLong(args[0]);
    Path file = args.length > 1 ? Path.of(args[1]) : Files.createTempFile("apptrace-bench", ".apptrace");
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    if (!Files.exists(file) || Files.size(file) == 0) {
      long t0 = System.nanoTime();
      long n = SyntheticTrace.write(file, events);
      System.out.printf(Locale.ROOT, "wrote %,d events (%,d MiB) in %.1f s%n", n, Files.size(file) >> 20,
          (System.nanoTime() - t0) / 1e9);
    }
    for (int r = 0; r < rounds; r++) {
      resetPeaks();
      long cpu0 = processCpuNs();
      long main0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      Dvdg g = DvdgBuilder.build(file);
      int edges = g.graph().edgeSet().size();
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "round %d: %,d operations, %,d values, %,d edges, %d races in %.2f s:"
          + " %,.0f events/s; peak heap %,d MiB (limit %,d MiB); CPU %.2f s (builder thread %.2f s)%n", r + 1,
          g.operations().size(), g.values().size(), edges, g.races().size(), s, events / s, peakHeapMiB(),
          Runtime.getRuntime().maxMemory() >> 20, (processCpuNs() - cpu0) / 1e9,
          (THREADS.getCurrentThreadCpuTime() - main0) / 1e9);
    }
  }

  private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** CPU time of the whole process (every thread, the JIT's and GC's included). */
  private static long processCpuNs() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
  }

  /** Sum of the heap pools' peaks since the last reset. */
  private static long peakHeapMiB() {
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    return peak >> 20;
  }
}
