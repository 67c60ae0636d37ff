package io.apptrace.graph;

import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.Copies;
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
 * @param races every race, certain and possible
 * @param warnings warnings by kind
 * @param kernelsWithoutAccess kernels whose launches touched no known memory, to their launches
 * @param kernelsNotAnalysed kernels whose code could not be analysed, to the reason
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
    Map<String, Long> warnings,
    Map<String, Integer> kernelsWithoutAccess,
    Map<String, String> kernelsNotAnalysed) {

  /** Bytes one operation name (a kernel, a runtime function) wrote or read, in how many operations. */
  public record Traffic(String name, long bytes, int operations) {}

  public DvdgSummary {
    operations = Map.copyOf(operations);
    bytesMoved = Map.copyOf(bytesMoved);
    producers = List.copyOf(producers);
    consumers = List.copyOf(consumers);
    races = List.copyOf(races);
    warnings = Map.copyOf(warnings);
    kernelsWithoutAccess = Map.copyOf(kernelsWithoutAccess);
    kernelsNotAnalysed = Map.copyOf(kernelsNotAnalysed);
  }

  /** Races whose two ends' extents are known. */
  public long certainRaces() {
    return races.stream().filter(Race::certain).count();
  }

  /** Races that rest on a guess ({@link Race#guesses()}). */
  public long possibleRaces() {
    return races.size() - certainRaces();
  }

  /** Every guess the possible races rest on, in the order {@link Race.Guess} declares them. */
  public java.util.EnumSet<Race.Guess> raceGuesses() {
    java.util.EnumSet<Race.Guess> all = java.util.EnumSet.noneOf(Race.Guess.class);
    races.forEach(r -> all.addAll(r.guesses()));
    return all;
  }

  public static DvdgSummary of(Dvdg g) {
    OperationTable ops = g.operations();
    ValueTable values = g.values();
    // totals by number (kind, direction, memory kinds, name id): no map or string per operation
    int[] kinds = new int[OpKind.values().length];
    Map<Integer, long[]> movedBy = new HashMap<>();
    int names = ops.nameCount();
    long[] written = new long[names];
    long[] read = new long[names];
    int[] count = new int[names];
    for (int op = 0; op < ops.size(); op++) {
      kinds[ops.kind(op).ordinal()]++;
      Direction d = ops.direction(op);
      if (d != null) {
        int key = (d.ordinal() << 16) | (ops.srcMemory(op).ordinal() << 8) | ops.dstMemory(op).ordinal();
        movedBy.computeIfAbsent(key, k -> new long[1])[0] += ops.bytes(op);
      }
      int name = ops.nameId(op);
      for (int k = 0; k < ops.outputCount(op); k++) {
        written[name] += values.bytes(ops.output(op, k));
      }
      for (int k = 0; k < ops.inputCount(op); k++) {
        read[name] += ops.inputBytes(op, k);
      }
      count[name]++;
    }
    Map<OpKind, Integer> byKind = new EnumMap<>(OpKind.class);
    for (OpKind k : OpKind.values()) {
      if (kinds[k.ordinal()] > 0) {
        byKind.put(k, kinds[k.ordinal()]);
      }
    }
    Map<Direction, Map<String, Long>> moved = new EnumMap<>(Direction.class);
    MemoryKind[] memory = MemoryKind.values();
    movedBy.forEach((key, bytes) -> moved.computeIfAbsent(Direction.values()[key >>> 16], k -> new TreeMap<>())
        .merge(Copies.kindName(memory[(key >>> 8) & 0xff]) + "->" + Copies.kindName(memory[key & 0xff]), bytes[0],
            Long::sum));
    int implicit = (int) g.allocations().stream().filter(Allocation::implicit).count();
    return new DvdgSummary(values.size(), g.allocations().size(), implicit, byKind,
        g.graph().edgeSet().size(), moved, top(ops, written, count), top(ops, read, count), g.races(),
        g.warnings().counts(), g.kernels().withoutAccess(), g.kernels().notAnalysed());
  }

  /** The ten names with the most bytes (ties by name); names of no bytes are left out. */
  private static List<Traffic> top(OperationTable ops, long[] bytes, int[] count) {
    List<Traffic> all = new ArrayList<>();
    for (int id = 0; id < bytes.length; id++) {
      if (bytes[id] > 0) {
        all.add(new Traffic(ops.nameOf(id), bytes[id], count[id]));
      }
    }
    all.sort(Comparator.comparingLong(Traffic::bytes).reversed().thenComparing(Traffic::name));
    return all.subList(0, Math.min(10, all.size()));
  }
}
