package io.apptrace.graph;

import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.AddressMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One process's live allocations: one interval map per address space (host memory, each
 * device's memory, managed memory). Under unified addressing the spaces never overlap, so an
 * address of unknown space can be looked up in each in turn.
 */
final class AddressSpaces {
  private final AddressMap<Allocation> host = new AddressMap<>();
  private final AddressMap<Allocation> managed = new AddressMap<>();
  private final Map<Integer, AddressMap<Allocation>> devices = new TreeMap<>();
  /**
   * Allocations recent lookups found, in any space: under unified addressing the spaces never
   * overlap, so a hit here answers without asking each space's map in turn.
   */
  private final Allocation[] recent = new Allocation[16];
  private int recentNext;

  private Allocation last;
  /** Changes whenever an allocation is added or ended: {@link Mine} caches older than this are stale. */
  private int generation;

  /**
   * The last few allocations one host thread found: a thread works on a few buffers at a time,
   * where the process's recent allocations are those of all its threads.
   */
  static final class Mine {
    private final Allocation[] slots = new Allocation[4];
    private int next;
    private int generation = -1;

    private void keep(Allocation a) {
      if (a == null || slots[0] == a || slots[1] == a || slots[2] == a || slots[3] == a) {
        return;
      }
      slots[next] = a; // in turn: the oldest goes
      next = (next + 1) & (slots.length - 1);
    }

    /** The allocations kept, emptied first when allocations changed since they were kept. */
    private Allocation[] slots(int generation) {
      if (this.generation != generation) {
        java.util.Arrays.fill(slots, null);
        this.generation = generation;
      }
      return slots;
    }
  }

  /** The first of {@code slots} holding {@code address} on the side asked for (device side: true). */
  private static Allocation among(Allocation[] slots, long address, boolean deviceSide) {
    for (Allocation a : slots) {
      if (a != null && holds(a, address) && deviceSide(a) == deviceSide) {
        return a;
      }
    }
    return null;
  }

  /**
   * What {@code among(slots, address, true)}, then {@code among(slots, address, false)}, would
   * give, in one pass.
   */
  private static Allocation amongAny(Allocation[] slots, long address) {
    Allocation hostSide = null;
    for (Allocation a : slots) {
      if (a != null && holds(a, address)) {
        if (deviceSide(a)) {
          return a;
        }
        if (hostSide == null) {
          hostSide = a;
        }
      }
    }
    return hostSide;
  }

  /** Whether an allocation is in device or managed memory (the spaces {@link #device} searches). */
  static boolean deviceSide(Allocation a) {
    return a.device() >= 0 || a.kind() == MemoryKind.MANAGED;
  }

  private static boolean holds(Allocation a, long address) {
    return Long.compareUnsigned(address - a.start(), a.bytes()) < 0 && Long.compareUnsigned(address, a.start()) >= 0;
  }

  private Allocation recent(long address, boolean deviceSide) {
    Allocation l = last;
    if (l != null && holds(l, address) && deviceSide(l) == deviceSide) {
      return l;
    }
    Allocation a = among(recent, address, deviceSide);
    if (a != null) {
      last = a;
    }
    return a;
  }

  /**
   * What {@code recent(address, true)}, then {@code recent(address, false)}, would give, in one
   * pass over the recent allocations.
   */
  private Allocation recentAny(long address) {
    Allocation l = last;
    boolean inLast = l != null && holds(l, address);
    if (inLast && deviceSide(l)) {
      return l;
    }
    Allocation a = amongAny(recent, address);
    if (a != null && deviceSide(a)) {
      last = a;
      return a;
    }
    if (inLast) {
      return l; // a host-side last (which may have left the ring): recent(address, false) answers with it
    }
    if (a != null) {
      last = a;
    }
    return a;
  }

  private Allocation remember(Allocation a) {
    if (a != null) {
      recent[recentNext] = a;
      recentNext = (recentNext + 1) & (recent.length - 1);
    }
    return a;
  }

  private void forget(Allocation a) {
    generation++;
    if (last == a) {
      last = null;
    }
    for (int i = 0; i < recent.length; i++) {
      if (recent[i] == a) {
        recent[i] = null;
      }
    }
  }

  private AddressMap<Allocation> spaceOf(Allocation a) {
    if (a.kind() == MemoryKind.MANAGED) {
      return managed;
    }
    return a.device() < 0 ? host : devices.computeIfAbsent(a.device(), d -> new AddressMap<>());
  }

  void add(Allocation a) {
    generation++;
    spaceOf(a).add(a.start(), a.bytes(), a).value();
    // an allocation at the start of another replaces it in its map: forget that one too
    for (int i = 0; i < recent.length; i++) {
      if (recent[i] != null && recent[i].start() == a.start()) {
        recent[i] = null;
      }
    }
    if (last != null && last.start() == a.start()) {
      last = null;
    }
  }

  /** Ends the allocation starting at {@code ptr} in the space memory of {@code kind} is in. */
  Optional<Allocation> remove(MemoryKind kind, long ptr) {
    Optional<Allocation> a = Optional.empty();
    if (kind == MemoryKind.MANAGED) {
      a = managed.remove(ptr).map(AddressMap.Region::value);
    } else if (kind == MemoryKind.DEVICE || kind == MemoryKind.STREAM_ORDERED) {
      for (AddressMap<Allocation> d : devices.values()) {
        a = d.remove(ptr).map(AddressMap.Region::value);
        if (a.isPresent()) {
          break;
        }
      }
      if (a.isEmpty() && kind == MemoryKind.DEVICE) {
        // cudaFree frees managed memory too: the call does not say which it was given
        a = managed.remove(ptr).map(AddressMap.Region::value);
      }
    } else {
      a = host.remove(ptr).map(AddressMap.Region::value);
    }
    a.ifPresent(this::forget);
    return a;
  }

  /** The allocation in host memory holding {@code address}, or null. */
  Allocation host(long address) {
    Allocation a = recent(address, false);
    if (a != null) {
      return a;
    }
    AddressMap.Region<Allocation> r = host.at(address);
    return remember(r == null ? null : r.value());
  }

  /** The allocation in device or managed memory holding {@code address}, device {@code device} first; or null. */
  Allocation device(long address, int device) {
    Allocation hit = recent(address, true);
    if (hit != null) {
      return hit;
    }
    AddressMap<Allocation> first = devices.get(device);
    AddressMap.Region<Allocation> r = first == null ? null : first.at(address);
    for (var it = devices.values().iterator(); r == null && it.hasNext(); ) {
      r = it.next().at(address);
    }
    if (r == null) {
      r = managed.at(address);
    }
    return remember(r == null ? null : r.value());
  }

  /** {@link #device(long, int)}, among a thread's own recent allocations first. */
  Allocation device(long address, int device, Mine mine) {
    Allocation a = among(mine.slots(generation), address, true);
    if (a == null) {
      a = device(address, device);
    }
    mine.keep(a);
    return a;
  }

  /**
   * {@link #any(long, int)}, among a thread's own recent allocations first (device side first, as
   * there; under unified addressing no host allocation overlaps a device one).
   */
  Allocation any(long address, int device, Mine mine) {
    Allocation a = amongAny(mine.slots(generation), address);
    if (a == null) {
      a = any(address, device);
    }
    mine.keep(a);
    return a;
  }

  /** The allocation holding {@code address} in any space, or null. */
  Allocation any(long address, int device) {
    Allocation a = recentAny(address);
    if (a != null) {
      return a;
    }
    a = device(address, device);
    return a != null ? a : host(address);
  }

  /** Implicit host regions overlapping a range (to replace when a wider access covers them). */
  List<AddressMap.Region<Allocation>> hostOverlapping(long start, long bytes) {
    return host.overlapping(start, bytes);
  }

  void removeHost(long start) {
    host.remove(start).ifPresent(r -> forget(r.value()));
  }
}
