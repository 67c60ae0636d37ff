package io.apptrace.symbols;

import io.apptrace.proto.Module;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which module holds an address, from a process's modules in the order its ModuleMap records
 * list them. Ranges are painted one over the other, so a later module wins where ranges overlap
 * (an object unloaded and another loaded in its place). Addresses compare unsigned.
 */
final class ModuleRanges {
  /** The part {@code [start, end)} of a module's range still visible. */
  private record Piece(long start, long end, Module module) {}

  private final TreeMap<Long, Piece> pieces = new TreeMap<>(Long::compareUnsigned);

  ModuleRanges(List<Module> modules) {
    for (Module m : modules) {
      if (Long.compareUnsigned(m.getStart(), m.getEnd()) < 0) {
        paint(new Piece(m.getStart(), m.getEnd(), m));
      }
    }
  }

  /** The module whose range holds {@code address}, if any. */
  Optional<Module> moduleAt(long address) {
    Map.Entry<Long, Piece> e = pieces.floorEntry(address);
    if (e == null || Long.compareUnsigned(address, e.getValue().end()) >= 0) {
      return Optional.empty();
    }
    return Optional.of(e.getValue().module());
  }

  private void paint(Piece top) {
    Map.Entry<Long, Piece> below = pieces.lowerEntry(top.start());
    if (below != null && Long.compareUnsigned(below.getValue().end(), top.start()) > 0) {
      Piece p = below.getValue();
      pieces.put(p.start(), new Piece(p.start(), top.start(), p.module()));
      keepTail(p, top.end());
    }
    for (Piece p : new ArrayList<>(pieces.subMap(top.start(), true, top.end(), false).values())) {
      pieces.remove(p.start());
      keepTail(p, top.end());
    }
    pieces.put(top.start(), top);
  }

  /** Keeps what of {@code p} lies above {@code end}. */
  private void keepTail(Piece p, long end) {
    if (Long.compareUnsigned(p.end(), end) > 0) {
      pieces.put(end, new Piece(end, p.end(), p.module()));
    }
  }
}
