package io.apptrace.bench;

import io.apptrace.graph.DvdgBuilder;
import io.apptrace.trace.GraphEvent;
import io.apptrace.trace.TimeOrderedReader;
import io.apptrace.trace.TraceReader;
import java.nio.file.Path;
import java.util.Locale;

/** Times the phases of graph building on one trace: reading in file order, in time order, building. */
public final class PhaseBench {
  private PhaseBench() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    for (int round = 0; round < 3; round++) {
      long t0 = System.nanoTime();
      long n = 0;
      try (TraceReader r = TraceReader.open(file)) {
        while (r.hasNext()) {
          r.next();
          n++;
        }
      }
      long t1 = System.nanoTime();
      try (TimeOrderedReader<GraphEvent> r = TimeOrderedReader.open(file, GraphEvent.DECODER)) {
        long t1b = System.nanoTime();
        System.out.printf(Locale.ROOT, "  index pass %.2f s%n", (t1b - t1) / 1e9);
        while (r.hasNext()) {
          r.next();
        }
      }
      long t2 = System.nanoTime();
      DvdgBuilder.build(file);
      long t3 = System.nanoTime();
      System.out.printf(Locale.ROOT, "%,d events: file order %.2f s, time order %.2f s, graph %.2f s%n", n,
          (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9);
    }
  }
}
