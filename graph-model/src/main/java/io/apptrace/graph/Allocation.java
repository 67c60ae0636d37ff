package io.apptrace.graph;

import io.apptrace.proto.MemoryKind;

/**
 * One region of memory the program had, from its allocation to its free: a cudaMalloc, a pinned
 * buffer, a malloc above the threshold, a device variable, or an implicit region (host memory a
 * copy touched that no recorded allocation covers, or device memory apptrace did not see
 * allocated). An address reused after a free is a new Allocation.
 */
public final class Allocation {
  private final int id;
  private final int pid;
  private final MemoryKind kind;
  private final int device;
  private final long start;
  private final long bytes;
  private final boolean implicit;
  private final String label;
  final WriteMap writes;
  int versions;
  int initialValue = -1;
  /** The NUMA node of host memory, when the capture knew it; -1 otherwise. */
  int numaNode = -1;

  Allocation(int id, int pid, MemoryKind kind, int device, long start, long bytes, boolean implicit,
      String label) {
    this.id = id;
    this.pid = pid;
    this.kind = kind;
    this.device = device;
    this.start = start;
    this.bytes = Math.max(bytes, 1);
    this.implicit = implicit;
    this.label = label;
    this.writes = new WriteMap(this.bytes);
  }

  public int id() {
    return id;
  }

  public int pid() {
    return pid;
  }

  public MemoryKind kind() {
    return kind;
  }

  /** The device the memory is on; -1 for host memory. */
  public int device() {
    return device;
  }

  public long start() {
    return start;
  }

  public long bytes() {
    return bytes;
  }

  /** Not allocated by a recorded call (see the class comment). */
  public boolean implicit() {
    return implicit;
  }

  /** What allocated it ("cudaMalloc", "malloc", a device variable's name), when known. */
  public String label() {
    return label;
  }

  /** The NUMA node holding host memory, when known (page-locked memory); empty otherwise. */
  public java.util.OptionalInt numaNode() {
    return numaNode >= 0 ? java.util.OptionalInt.of(numaNode) : java.util.OptionalInt.empty();
  }

  /**
   * Where the memory is, as exporters write it: "gpuN" for device N; "host-numaN" for host
   * memory on NUMA node N; "host" when the node is not known.
   */
  public String location() {
    if (device >= 0) {
      return "gpu" + device;
    }
    return numaNode >= 0 ? "host-numa" + numaNode : "host";
  }

  /**
   * Whether the memory holds data before any recorded write: host memory (the CPU filled it,
   * unseen) and managed memory do; device memory never written is fresh, and reading it orders
   * nothing.
   */
  boolean initialContentsMatter() {
    return device < 0 || kind == MemoryKind.MANAGED;
  }

  /** Versions written so far (version 0 is the initial contents). */
  public int versions() {
    return versions;
  }
}
