package io.apptrace.cli;

import io.apptrace.graph.CallSites;
import io.apptrace.graph.DotExport;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.GraphMlExport;
import io.apptrace.graph.JsonExport;
import io.apptrace.node.NodeLoader;
import io.apptrace.replay.ChromeTrace;
import io.apptrace.replay.ProgramBuilder;
import io.apptrace.replay.ReplayResult;
import io.apptrace.replay.Replayer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * The export benchmark of docs/BENCHMARKS.md: the graph of a trace written as GraphML, JSON and
 * DOT, and its replay's timeline, each plain and gzipped, through {@link ExportFile} as the
 * commands write them; ROUNDS times each, reporting bytes and seconds (and both per million events
 * of the trace). Beside them, the plain file compressed alone at gzip's levels 1 and 6 ("gz -1",
 * "gz -6"): what the compression costs and saves apart from writing the export.
 *
 * <p>Usage: ExportBench TRACE EVENTS OUT_DIR ROUNDS NODE
 */
public final class ExportBench {
  private ExportBench() {}

  public static void main(String[] args) throws Exception {
    Path trace = Path.of(args[0]);
    long events = Long.parseLong(args[1]);
    Path dir = Files.createDirectories(Path.of(args[2]));
    int rounds = Integer.parseInt(args[3]);
    String node = args[4];
    double millions = events / 1e6;
    long t0 = System.nanoTime();
    Dvdg g = DvdgBuilder.build(trace, true);
    System.out.printf(Locale.ROOT, "graph of %,d events: %,d operations, %,d values, built in %.1f s%n", events,
        g.operations().size(), g.values().size(), (System.nanoTime() - t0) / 1e9);
    t0 = System.nanoTime();
    ReplayResult r = Replayer.replay(ProgramBuilder.of(g), NodeLoader.resolve(node),
        Replayer.Options.defaults().withSamples(true));
    System.out.printf(Locale.ROOT, "replayed on %s in %.1f s%n", node, (System.nanoTime() - t0) / 1e9);
    System.out.printf(Locale.ROOT, "%-9s %-5s %12s %9s %10s %10s %8s%n", "export", "file", "bytes", "seconds",
        "MB/M ev", "s/M ev", "MB/s");
    CallSites none = CallSites.none();
    export(dir, "graphml", rounds, millions, w -> GraphMlExport.write(g, none, w));
    export(dir, "json", rounds, millions, w -> JsonExport.write(g, none, w));
    export(dir, "dot", rounds, millions, w -> DotExport.write(g, none, w));
    exportStream(dir, "timeline.json", rounds, millions, out -> ChromeTrace.write(List.of(r), out));
  }

  private static void export(Path dir, String ext, int rounds, double millions, ExportFile.Text body)
      throws IOException {
    exportStream(dir, ext, rounds, millions, out -> {
      java.io.Writer w = new Utf8Writer(out, ExportFile.BUFFER);
      body.to(w);
      w.flush();
    });
  }

  private static void exportStream(Path dir, String ext, int rounds, double millions, ExportFile.Body body)
      throws IOException {
    Path plain = dir.resolve("bench." + ext);
    for (Path out : new Path[] {plain, dir.resolve("bench." + ext + ".gz")}) {
      for (int i = 1; i <= rounds; i++) {
        long t0 = System.nanoTime();
        ExportFile.write(out, body);
        double s = (System.nanoTime() - t0) / 1e9;
        report(ext, ExportFile.gzip(out) ? ".gz" : "plain", Files.size(out), s, millions, Files.size(plain));
      }
    }
    for (int level : new int[] {1, 6}) {
      for (int i = 1; i <= rounds; i++) {
        long t0 = System.nanoTime();
        long bytes = gzip(plain, level);
        double s = (System.nanoTime() - t0) / 1e9;
        report(ext, "gz -" + level, bytes, s, millions, Files.size(plain));
      }
    }
  }

  private static void report(String ext, String kind, long bytes, double s, double millions, long plainBytes) {
    System.out.printf(Locale.ROOT, "%-9s %-5s %,12d %9.2f %10.1f %10.2f %8.1f%n", ext, kind, bytes, s,
        bytes / 1e6 / millions, s / millions, plainBytes / 1e6 / s);
  }

  /** The compressed size of FILE at a gzip level, reading it from disk (compression alone). */
  private static long gzip(Path file, int level) throws IOException {
    long[] count = {0};
    OutputStream counter = new OutputStream() {
      @Override
      public void write(int b) {
        count[0]++;
      }

      @Override
      public void write(byte[] b, int off, int len) {
        count[0] += len;
      }
    };
    try (InputStream in = Files.newInputStream(file);
        GZIPOutputStream z = new GZIPOutputStream(counter, ExportFile.BUFFER) {
          {
            def.setLevel(level);
          }
        }) {
      in.transferTo(z);
    }
    return count[0];
  }
}
