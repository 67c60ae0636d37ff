package io.apptrace.calibrate;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;

/**
 * The host's NUMA nodes, and binding the calling thread's execution and memory to one of them with
 * libnuma through JNA, as Pearson 2018, Listing 2.1 does. Without libnuma (or without NUMA) the host is
 * one node, 0, and nothing is bound.
 */
final class Numa {
  /** The libnuma functions of Pearson 2018, Listing 2.1. */
  interface LibNuma extends Library {
    int numa_available();

    int numa_max_node();

    long numa_node_size64(int node, Pointer freep);

    Pointer numa_allocate_nodemask();

    Pointer numa_bitmask_setbit(Pointer mask, int bit);

    void numa_bitmask_free(Pointer mask);

    void numa_bind(Pointer nodemask);

    void numa_set_strict(int flag);

    void numa_set_bind_policy(int strict);
  }

  private final LibNuma lib;
  private final List<Integer> nodes;
  private final String note;

  private Numa(LibNuma lib, List<Integer> nodes, String note) {
    this.lib = lib;
    this.nodes = List.copyOf(nodes);
    this.note = note;
  }

  /** libnuma's view of the host, or one unbound node where libnuma is missing or NUMA is not available. */
  static Numa detect() {
    LibNuma lib;
    try {
      lib = Native.load("numa", LibNuma.class);
    } catch (UnsatisfiedLinkError e) {
      return new Numa(null, List.of(0), "no libnuma: one NUMA node assumed, threads and memory not bound");
    }
    if (lib.numa_available() < 0) {
      return new Numa(null, List.of(0), "libnuma reports no NUMA support: one NUMA node, nothing bound");
    }
    List<Integer> nodes = new ArrayList<>();
    for (int n = 0; n <= lib.numa_max_node(); n++) {
      if (lib.numa_node_size64(n, Pointer.NULL) > 0) { // nodes with memory
        nodes.add(n);
      }
    }
    if (nodes.isEmpty()) {
      nodes.add(0);
    }
    // Pearson 2018, sec. 2.5: fail rather than silently fall back to another node
    lib.numa_set_strict(1);
    lib.numa_set_bind_policy(1);
    return new Numa(lib, nodes, "libnuma: NUMA nodes " + nodes.toString().replaceAll("[\\[\\]]", "")
        + ", threads and memory bound to each in turn");
  }

  List<Integer> nodes() {
    return nodes;
  }

  /** Whether threads and memory are bound. */
  boolean binds() {
    return lib != null;
  }

  /** How nodes are found and bound, for the node file's source. */
  String note() {
    return note;
  }

  /** Binds the calling thread's execution and memory allocation to {@code node} (Pearson 2018, Listing 2.1). */
  void bind(int node) {
    if (lib == null) {
      return;
    }
    Pointer mask = lib.numa_allocate_nodemask();
    lib.numa_bitmask_setbit(mask, node);
    lib.numa_bind(mask);
    lib.numa_bitmask_free(mask);
  }
}
