package io.apptrace.graph;

import io.apptrace.trace.Direction;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code apptrace graph --summary} reports: the graph's size, bytes moved by direction and
 * memory kind, the operations (by name) that produce and consume the most bytes, races and
 * warnings.
 *
 * @param values values in the graph
 * @param allocations allocations (of which {@code implicitAllocations} were not recorded)
 * @param operations operations by kind
 * @param edges edges of the JGraphT view
 * @param bytesMoved bytes copied by direction and by "source->destination" memory kind
 * @param producers operation names by bytes written, largest first (at most 10)
 * @param consumers operation names by bytes read (of the values they consumed), largest first
 *     (at most 10)
 */
public record DvdgSummary(
    int values,
    int allocations,
    int implicitAllocations,
    Map<OpKind, Integer> operations,
    int edges,
    Map<Direction, Map<String, Long>> bytesMoved,
    List<Traffic> producers,
    List<Traffic> consumers,
    List<Race> races,
    Map<String, Long> warnings) {

  /** Bytes one operation name (a kernel, a runtime function) wrote or read, in how many operations. */
  public record Traffic(String name, long bytes, int operations) {}

  public DvdgSummary {
    operations = Map.copyOf(operations);
    bytesMoved = Map.copyOf(bytesMoved);
    producers = List.copyOf(producers);
    consumers = List.copyOf(consumers);
    races = List.copyOf(races);
    warnings = Map.copyOf(warnings);
  }

  public static DvdgSummary of(Dvdg g) {
    OperationTable ops = g.operations();
    ValueTable values = g.values();
    Map<OpKind, Integer> kinds = new EnumMap<>(OpKind.class);
    Map<Direction, Map<String, Long>> moved = new EnumMap<>(Direction.class);
    Map<String, long[]> written = new HashMap<>();
    Map<String, long[]> read = new HashMap<>();
    for (int op = 0; op < ops.size(); op++) {
      kinds.merge(ops.kind(op), 1, Integer::sum);
      Direction d = ops.direction(op);
      if (d != null) {
        String mem = io.apptrace.trace.Copies.kindName(ops.srcMemory(op)) + "->"
            + io.apptrace.trace.Copies.kindName(ops.dstMemory(op));
        moved.computeIfAbsent(d, k -> new TreeMap<>()).merge(mem, ops.bytes(op), Long::sum);
      }
      long w = 0;
      for (int k = 0; k < ops.outputCount(op); k++) {
        w += values.bytes(ops.output(op, k));
      }
      long r = 0;
      for (int k = 0; k < ops.inputCount(op); k++) {
        r += ops.inputBytes(op, k);
      }
      add(written, ops.name(op), w);
      add(read, ops.name(op), r);
    }
    int implicit = (int) g.allocations().stream().filter(Allocation::implicit).count();
    return new DvdgSummary(values.size(), g.allocations().size(), implicit, kinds,
        g.graph().edgeSet().size(), moved, top(written), top(read), g.races(), g.warnings().counts());
  }

  private static void add(Map<String, long[]> m, String name, long bytes) {
    long[] t = m.computeIfAbsent(name, k -> new long[2]);
    t[0] += bytes;
    t[1]++;
  }

  private static List<Traffic> top(Map<String, long[]> m) {
    List<Traffic> all = new ArrayList<>();
    m.forEach((name, t) -> {
      if (t[0] > 0) {
        all.add(new Traffic(name, t[0], (int) t[1]));
      }
    });
    all.sort(Comparator.comparingLong(Traffic::bytes).reversed().thenComparing(Traffic::name));
    return all.subList(0, Math.min(10, all.size()));
  }
}
