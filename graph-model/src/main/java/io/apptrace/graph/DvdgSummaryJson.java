package io.apptrace.graph;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.trace.Direction;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code apptrace graph --summary --json} document: a stable contract (docs/CLI.md). Keys are
 * only ever added; maps are sorted by key.
 */
public final class DvdgSummaryJson {
  /** Identifies the document and its version. */
  public static final String SCHEMA = "apptrace.graph-summary/1";
  /** Races listed one by one, at most (the counts cover them all). */
  static final int RACES_LISTED = 1000;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private DvdgSummaryJson() {}

  /** The document for the graph {@code g} of the trace at {@code file}, summarized as {@code s}. */
  public static ObjectNode of(Dvdg g, DvdgSummary s, String file) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("schema", SCHEMA);
    root.put("file", file);
    root.put("source_format", g.header().getSourceFormat().isEmpty() ? "capture" : g.header().getSourceFormat());
    g.truncation().ifPresentOrElse(t -> {
      ObjectNode tn = root.putObject("truncation");
      tn.put("byte_offset", t.byteOffset());
      tn.put("reason", t.reason());
    }, () -> root.putNull("truncation"));
    root.put("values", s.values());
    root.put("allocations", s.allocations());
    root.put("implicit_allocations", s.implicitAllocations());
    ObjectNode graphs = root.putObject("cuda_graphs");
    graphs.put("executable_graphs", g.graphLaunches().executables());
    graphs.put("launches", g.graphLaunches().launches().size());
    graphs.put("node_operations", g.graphLaunches().nodeOperations());
    ObjectNode ops = root.putObject("operations");
    for (OpKind k : OpKind.values()) {
      ops.put(k.key(), s.operations().getOrDefault(k, 0));
    }
    root.put("edges", s.edges());
    ObjectNode moved = root.putObject("bytes_moved");
    for (Direction d : Direction.values()) {
      Map<String, Long> m = s.bytesMoved().get(d);
      if (m != null) {
        ObjectNode dn = moved.putObject(d.key());
        new TreeMap<>(m).forEach(dn::put);
      }
    }
    traffic(root.putArray("producers"), s.producers());
    traffic(root.putArray("consumers"), s.consumers());
    races(g, s, root.putObject("races"));
    ObjectNode none = root.putObject("kernels_without_access");
    new TreeMap<>(s.kernelsWithoutAccess()).forEach(none::put);
    ObjectNode unread = root.putObject("kernels_not_analysed");
    new TreeMap<>(s.kernelsNotAnalysed()).forEach(unread::put);
    ObjectNode warnings = root.putObject("warnings");
    new TreeMap<>(s.warnings()).forEach(warnings::put);
    return root;
  }

  private static void traffic(ArrayNode out, java.util.List<DvdgSummary.Traffic> list) {
    for (DvdgSummary.Traffic t : list) {
      ObjectNode n = out.addObject();
      n.put("name", t.name());
      n.put("bytes", t.bytes());
      n.put("operations", t.operations());
    }
  }

  private static void races(Dvdg g, DvdgSummary s, ObjectNode out) {
    out.put("certain", s.certainRaces());
    out.put("possible", s.possibleRaces());
    ArrayNode guesses = out.putArray("guesses");
    s.raceGuesses().forEach(x -> guesses.add(x.text()));
    ArrayNode list = out.putArray("list");
    OperationTable ops = g.operations();
    for (Race r : s.races().subList(0, Math.min(RACES_LISTED, s.races().size()))) {
      ObjectNode n = list.addObject();
      n.put("confidence", r.confidence());
      ArrayNode rg = n.putArray("guesses");
      r.guessSet().forEach(x -> rg.add(x.text()));
      n.put("alloc", g.values().allocation(r.value()));
      end(n.putObject("writer"), ops, r.writer());
      end(n.putObject("reader"), ops, r.reader());
    }
  }

  private static void end(ObjectNode n, OperationTable ops, int op) {
    n.put("op", op);
    n.put("name", ops.name(op));
    n.put("stream", DvdgAttributes.hex(ops.stream(op)));
  }
}
