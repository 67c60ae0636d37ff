package io.apptrace.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Live regions of one address space, by start address: which region an address falls in.
 * Interior pointers resolve to the region containing them; addresses compare unsigned. A region
 * added at the start of another replaces it (the earlier one's lifetime has ended).
 *
 * @param <T> what is known about each region
 */
public final class AddressMap<T> {
  /** One live region of {@code bytes} bytes at {@code start}. */
  public record Region<T>(long start, long bytes, T value) {
    public Region {
      Objects.requireNonNull(value, "value");
      if (bytes < 0) {
        throw new IllegalArgumentException("bytes < 0: " + bytes);
      }
    }

    /** Whether {@code address} lies inside this region. */
    public boolean contains(long address) {
      return Long.compareUnsigned(address, start) >= 0
          && Long.compareUnsigned(address - start, Math.max(bytes, 1)) < 0;
    }

    /** The first address after the region. */
    public long end() {
      return start + Math.max(bytes, 1);
    }
  }

  private final NavigableMap<Long, Region<T>> regions = new TreeMap<>(Long::compareUnsigned);
  /** The regions recent lookups found: programs touch a few buffers over and over. */
  @SuppressWarnings("unchecked")
  private final Region<T>[] recent = new Region[8];
  private int recentNext;

  /** Records a region and returns it. */
  public Region<T> add(long start, long bytes, T value) {
    Region<T> r = new Region<>(start, bytes, value);
    forget(regions.put(start, r));
    return r;
  }

  /** Ends the region starting at {@code start}; empty when none starts there. */
  public Optional<Region<T>> remove(long start) {
    Region<T> r = regions.remove(start);
    forget(r);
    return Optional.ofNullable(r);
  }

  /** The live region containing {@code address}. */
  public Optional<Region<T>> find(long address) {
    return Optional.ofNullable(at(address));
  }

  /** The live region containing {@code address}, or null: {@link #find} without the Optional. */
  public Region<T> at(long address) {
    for (Region<T> hit : recent) {
      if (hit != null && hit.contains(address)) {
        return hit;
      }
    }
    Map.Entry<Long, Region<T>> e = regions.floorEntry(address);
    if (e == null || !e.getValue().contains(address)) {
      return null;
    }
    recent[recentNext] = e.getValue();
    recentNext = (recentNext + 1) & (recent.length - 1);
    return e.getValue();
  }

  private void forget(Region<T> r) {
    if (r != null) {
      for (int i = 0; i < recent.length; i++) {
        if (recent[i] == r) {
          recent[i] = null;
        }
      }
    }
  }

  /** The live regions overlapping {@code [start, start + bytes)}, in address order. */
  public List<Region<T>> overlapping(long start, long bytes) {
    List<Region<T>> out = new ArrayList<>();
    long end = start + Math.max(bytes, 1);
    Map.Entry<Long, Region<T>> first = regions.floorEntry(start);
    Long from = first != null && first.getValue().contains(start) ? first.getKey() : start;
    for (Region<T> r : regions.tailMap(from, true).values()) {
      if (Long.compareUnsigned(r.start(), end) >= 0) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  /** Number of live regions. */
  public int size() {
    return regions.size();
  }
}
