package io.apptrace.cli;

import io.apptrace.node.Units;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgSummary;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.graph.Race;
import io.apptrace.trace.Direction;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The text form of {@code apptrace graph --summary}. */
final class GraphSummaryText {
  private static final int RACES_SHOWN = 10;
  private final PrintWriter out;

  GraphSummaryText(PrintWriter out) {
    this.out = out;
  }

  void print(Dvdg g, DvdgSummary s, String file) {
    out.printf(Locale.ROOT, "%s: %s in %s (%d implicit), %s (%s, %s, %s), %s%n", file,
        count(s.values(), "value", "values"), count(s.allocations(), "allocation", "allocations"),
        s.implicitAllocations(), count(s.operations().values().stream().mapToInt(Integer::intValue).sum(),
            "operation", "operations"),
        count(s.operations().getOrDefault(OpKind.COPY, 0), "copy", "copies"),
        count(s.operations().getOrDefault(OpKind.MEMSET, 0), "memset", "memsets"),
        count(s.operations().getOrDefault(OpKind.KERNEL, 0), "kernel", "kernels"),
        count(s.edges(), "edge", "edges"));
    if (io.apptrace.graph.DvdgBuilder.isImported(g.header())) {
      out.printf("imported from %s: the trace has no addresses, so each copy endpoint is a value of its own and"
          + " the order of operations comes from streams and synchronization alone%n",
          g.header().getSourceFormat());
    }
    io.apptrace.graph.GraphLaunchTable gl = g.graphLaunches();
    if (gl.executables() > 0 || !gl.launches().isEmpty() || gl.undescribedLaunches() > 0) {
      out.printf(Locale.ROOT, "CUDA graphs: %s, %s running %s (each a node's operation, ordered by the graph's"
          + " edges)%s%n", count(gl.executables(), "executable graph", "executable graphs"),
          count(gl.launches().size(), "launch", "launches"), count((int) gl.nodeOperations(), "operation",
              "operations"), gl.undescribedLaunches() == 0 ? "" : String.format(Locale.ROOT,
                  "; %d launch(es) of graphs the trace does not describe", gl.undescribedLaunches()));
    }
    g.truncation().ifPresent(t -> out.printf(Locale.ROOT,
        "the trace is cut short at byte %d (%s): the graph holds what came before%n", t.byteOffset(), t.reason()));
    if (!s.bytesMoved().isEmpty()) {
      out.println("bytes moved:");
      for (Direction d : Direction.values()) {
        Map<String, Long> m = s.bytesMoved().get(d);
        if (m != null) {
          m.forEach((mem, b) -> out.printf(Locale.ROOT, "  %-4s %-26s %12s%n", d.key(), mem, Units.size(b)));
        }
      }
    }
    traffic("largest producers (bytes written):", s.producers());
    traffic("largest consumers (bytes read):", s.consumers());
    races(g, s);
    kernels(s);
    if (!s.warnings().isEmpty()) {
      out.println("warnings:");
      g.warnings().counts().forEach((k, n) -> out.printf(Locale.ROOT, "  %s: %d (first: %s)%n", k, n,
          g.warnings().examples().get(k)));
    }
  }

  /**
   * "races: C certain, P possible (guesses)", then the first races, certain ones first: a
   * possible race rests on a guess about a kernel's footprint or a pointer, and is no fact.
   */
  private void races(Dvdg g, DvdgSummary s) {
    long possible = s.possibleRaces();
    String guesses = s.raceGuesses().stream().map(Race.Guess::text).collect(Collectors.joining("; "));
    out.printf(Locale.ROOT, "races: %d certain, %d possible%s%n", s.certainRaces(), possible,
        possible == 0 ? "" : " (" + guesses + ")");
    if (s.races().isEmpty()) {
      return;
    }
    out.println("  (a value written in one stream read in another with no event or synchronization between)");
    List<Race> shown = new ArrayList<>(s.races());
    shown.sort(Comparator.comparing((Race r) -> !r.certain()));
    OperationTable ops = g.operations();
    for (Race r : shown.subList(0, Math.min(RACES_SHOWN, shown.size()))) {
      out.printf(Locale.ROOT, "  %s: op %d %s (stream 0x%x) writes alloc %d; op %d %s (stream 0x%x) reads it%n",
          r.confidence(), r.writer(), ops.name(r.writer()), ops.stream(r.writer()), g.values().allocation(r.value()),
          r.reader(), ops.name(r.reader()), ops.stream(r.reader()));
    }
    if (shown.size() > RACES_SHOWN) {
      out.printf(Locale.ROOT, "  ... and %d more%n", shown.size() - RACES_SHOWN);
    }
  }

  /** Kernels whose memory accesses are missing, and kernels whose code could not be read. */
  private void kernels(DvdgSummary s) {
    Map<String, Integer> none = s.kernelsWithoutAccess();
    if (!none.isEmpty()) {
      out.printf(Locale.ROOT, "%s with no known memory access: their reads and writes are missing from the graph%n",
          count(none.size(), "kernel", "kernels"));
      new TreeMap<>(none).forEach((k, n) -> out.printf(Locale.ROOT, "  %s (%s)%n", k, count(n, "launch", "launches")));
    }
    Map<String, String> unread = s.kernelsNotAnalysed();
    if (!unread.isEmpty()) {
      out.printf(Locale.ROOT, "%s not analysed for read-only parameters (their non-const pointers are taken to be"
          + " written):%n", count(unread.size(), "kernel", "kernels"));
      List<String> names = new ArrayList<>(new TreeMap<>(unread).keySet());
      for (String k : names.subList(0, Math.min(RACES_SHOWN, names.size()))) {
        out.printf(Locale.ROOT, "  %s: %s%n", k, unread.get(k));
      }
      if (names.size() > RACES_SHOWN) {
        out.printf(Locale.ROOT, "  ... and %d more%n", names.size() - RACES_SHOWN);
      }
    }
  }

  private static String count(long n, String one, String many) {
    return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? one : many);
  }

  private void traffic(String title, java.util.List<DvdgSummary.Traffic> list) {
    if (list.isEmpty()) {
      return;
    }
    out.println(title);
    for (DvdgSummary.Traffic t : list) {
      out.printf(Locale.ROOT, "  %-40s %12s in %,d op%s%n", t.name(), Units.size(t.bytes()),
          t.operations(), t.operations() == 1 ? "" : "s");
    }
  }
}
