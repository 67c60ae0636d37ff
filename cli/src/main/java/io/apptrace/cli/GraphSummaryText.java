package io.apptrace.cli;

import io.apptrace.node.Units;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgSummary;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.graph.Race;
import io.apptrace.trace.Direction;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

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
    out.printf(Locale.ROOT, "races: %d%s%n", s.races().size(),
        s.races().isEmpty() ? "" : " (a value written in one stream read in another with no event or"
            + " synchronization between)");
    OperationTable ops = g.operations();
    for (Race r : s.races().subList(0, Math.min(RACES_SHOWN, s.races().size()))) {
      out.printf(Locale.ROOT, "  op %d %s (stream 0x%x) writes alloc %d; op %d %s (stream 0x%x) reads it%n",
          r.writer(), ops.name(r.writer()), ops.stream(r.writer()), g.values().allocation(r.value()),
          r.reader(), ops.name(r.reader()), ops.stream(r.reader()));
    }
    if (s.races().size() > RACES_SHOWN) {
      out.printf(Locale.ROOT, "  ... and %d more%n", s.races().size() - RACES_SHOWN);
    }
    if (!s.warnings().isEmpty()) {
      out.println("warnings:");
      g.warnings().counts().forEach((k, n) -> out.printf(Locale.ROOT, "  %s: %d (first: %s)%n", k, n,
          g.warnings().examples().get(k)));
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
