package io.apptrace.graph;

import io.apptrace.proto.Alloc;
import io.apptrace.proto.Event;
import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.Copies;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The memory of a trace's processes (docs/GRAPH.md, "Allocations" and "Implicit regions"): every
 * allocation the graph knows, recorded or implicit, numbered in the order it was made; the live
 * ones in each process's {@link AddressSpaces}; and which one an access falls in.
 */
final class Allocations {
  private final List<Allocation> all = new ArrayList<>();
  private final Warnings warnings;
  /** The bytes the last free released (for the call log: a host-overhead model prices unpinning per MiB). */
  private long lastFreedBytes;

  Allocations(Warnings warnings) {
    this.warnings = warnings;
  }

  /** Every allocation, by id. */
  List<Allocation> all() {
    return all;
  }

  /** The bytes the last free released (0: none, or a pointer no allocation had). */
  long lastFreedBytes() {
    return lastFreedBytes;
  }

  /** A new allocation, numbered next; not yet in an address space. */
  Allocation add(int pid, MemoryKind kind, int device, long start, long bytes, boolean implicit, String label) {
    Allocation a = new Allocation(all.size(), pid, kind, device, start, bytes, implicit, label);
    all.add(a);
    return a;
  }

  private static boolean hostKind(MemoryKind k) {
    return !Copies.onDevice(k);
  }

  /** A recorded allocation (an Alloc event that succeeded, not a graph's node). */
  void alloc(int pid, ProcessState p, Event e) {
    Alloc a = e.getAlloc();
    if (a.getPtr() == 0 || a.getKind() == MemoryKind.ARRAY) {
      return;
    }
    if (a.getPreviousPtr() != 0) {
      p.spaces.remove(a.getKind(), a.getPreviousPtr());
    }
    int device = hostKind(a.getKind()) ? -1 : Math.max(a.getDevice(), 0);
    String label = !a.getHostFunction().isEmpty() ? a.getHostFunction() : ApiNames.of(e);
    Allocation added = add(pid, a.getKind(), device, a.getPtr(), a.getBytes(), false, label);
    if (a.hasNumaNode() && device < 0) {
      added.numaNode = a.getNumaNode();
    }
    p.spaces.add(added);
  }

  /** A recorded free (a Free event that succeeded, not a graph's node). */
  void free(ProcessState p, Event e) {
    long ptr = e.getFree().getPtr();
    MemoryKind kind = e.getFree().getKind();
    Optional<Allocation> freed = ptr == 0 ? Optional.empty() : p.spaces.remove(kind, ptr);
    lastFreedBytes = freed.map(Allocation::bytes).orElse(0L);
    if (ptr != 0 && freed.isEmpty() && kind != MemoryKind.PAGEABLE
        && kind != MemoryKind.ARRAY) {
      warnings.add("free of an unknown pointer", ApiNames.of(e) + "(0x" + Long.toHexString(ptr) + ")");
    }
  }

  /** A device variable (a Symbol record): an allocation labelled with its name, on device 0. */
  void symbol(int pid, ProcessState p, Event e) {
    long dev = e.getSymbol().getDeviceAddress();
    if (dev != 0 && p.spaces.device(dev, 0) == null) {
      p.spaces.add(add(pid, MemoryKind.DEVICE, 0, dev, e.getSymbol().getBytes(), false,
          e.getSymbol().getName()));
    }
  }

  /**
   * The allocation holding {@code address}; where none does, an implicit region of the accessed
   * range (on the host: memory the program had without a recorded allocation, such as a stack
   * array; on a device: memory allocated out of apptrace's sight, which is warned about).
   * {@code known}, when not null, is what {@link AddressSpaces#any} gave for {@code address} just
   * before: a recorded allocation there is the answer, without a second lookup (an implicit one
   * may have been replaced since).
   */
  Allocation at(int pid, ProcessState p, long address, long bytes, boolean onDevice, int device,
      String what, Allocation known) {
    Allocation found;
    if (known != null && !known.implicit() && (!onDevice || AddressSpaces.deviceSide(known))) {
      found = known;
    } else {
      found = onDevice ? p.spaces.device(address, device) : p.spaces.any(address, device);
    }
    if (found != null && (!found.implicit() || found.device() >= 0
        || address + Math.max(bytes, 1) <= found.start() + found.bytes())) {
      return found;
    }
    if (onDevice) {
      warnings.add(what + " an unknown device address", "0x" + Long.toHexString(address));
      Allocation a = add(pid, MemoryKind.DEVICE, device, address, bytes, true, "");
      p.spaces.add(a);
      return a;
    }
    // a wider access replaces the implicit host regions it covers, keeping what was written there
    long start = address;
    long end = address + Math.max(bytes, 1);
    List<Allocation> replaced = new ArrayList<>();
    for (var r : p.spaces.hostOverlapping(address, bytes)) {
      if (r.value().implicit()) {
        start = Math.min(start, r.start());
        end = Math.max(end, r.end());
        replaced.add(r.value());
      }
    }
    Allocation a = add(pid, MemoryKind.PAGEABLE, -1, start, end - start, true, "");
    for (Allocation old : replaced) {
      p.spaces.removeHost(old.start());
      long shift = old.start() - start;
      old.writes.forEach((from, to, v) -> a.writes.write(shift + from, to - from, v));
    }
    p.spaces.add(a);
    return a;
  }
}
