package io.apptrace.trace;

import io.apptrace.proto.MemoryKind;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The live allocations of one address space, by address: which region an address falls in, and
 * that region's memory kind and device. Interior pointers resolve to the region containing them.
 * A later allocation at the same address replaces the earlier one (its lifetime has ended).
 */
public final class MemoryMap {
  /** One live allocation. {@code device} is -1 for host memory. */
  public record Region(long start, long bytes, MemoryKind kind, int device, long id) {
    /** Whether {@code address} lies inside this region. */
    public boolean contains(long address) {
      return Long.compareUnsigned(address, start) >= 0
          && Long.compareUnsigned(address - start, bytes) < 0;
    }
  }

  private final NavigableMap<Long, Region> regions = new TreeMap<>(Long::compareUnsigned);
  private long nextId = 1;

  /** Records an allocation and returns it. */
  public Region add(long start, long bytes, MemoryKind kind, int device) {
    Region r = new Region(start, Math.max(bytes, 1), kind, device, nextId++);
    regions.put(start, r);
    return r;
  }

  /** Ends the allocation starting at {@code start}; empty when none starts there. */
  public Optional<Region> remove(long start) {
    return Optional.ofNullable(regions.remove(start));
  }

  /** The live allocation containing {@code address}. */
  public Optional<Region> find(long address) {
    Map.Entry<Long, Region> e = regions.floorEntry(address);
    if (e == null || !e.getValue().contains(address)) {
      return Optional.empty();
    }
    return Optional.of(e.getValue());
  }

  /** Number of live allocations. */
  public int size() {
    return regions.size();
  }
}
