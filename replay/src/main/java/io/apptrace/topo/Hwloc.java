package io.apptrace.topo;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The system's libhwloc 2.x through JNA: loads this machine's topology with every PCI device and
 * bridge kept, and exports it as XML for {@link HwlocXml}. Only functions whose arguments are
 * pointers and integers are called, so no hwloc structure layout is assumed; the API major
 * version is checked before anything else.
 */
final class Hwloc {
  /** The names tried, in order: the hwloc 2.x soname, then what the JNA search finds. */
  static final List<String> NAMES = List.of("libhwloc.so.15", "hwloc");

  /** hwloc.h: {@code HWLOC_TYPE_FILTER_KEEP_ALL}. */
  private static final int KEEP_ALL = 0;

  /** The few hwloc calls this needs (hwloc.h, hwloc/export.h of hwloc 2.x). */
  interface Lib extends Library {
    int hwloc_get_api_version();

    int hwloc_topology_init(PointerByReference topology);

    int hwloc_topology_set_io_types_filter(Pointer topology, int filter);

    int hwloc_topology_load(Pointer topology);

    int hwloc_topology_export_xmlbuffer(Pointer topology, PointerByReference xml, IntByReference length,
        NativeLong flags);

    void hwloc_free_xmlbuffer(Pointer topology, Pointer xml);

    void hwloc_topology_destroy(Pointer topology);
  }

  /** libhwloc cannot be used; the message says why and what to install. */
  static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }

  private Hwloc() {}

  /**
   * This machine's topology as hwloc 2.x XML, read through the first of {@code names} that loads.
   *
   * @throws Unavailable if no libhwloc loads, it is not hwloc 2.x, or it cannot read the topology
   */
  static String topologyXml(List<String> names) throws Unavailable {
    Lib lib = load(names);
    int api = lib.hwloc_get_api_version();
    if (api >>> 16 != 2) {
      throw new Unavailable("libhwloc has API version " + (api >>> 16) + "." + (api >>> 8 & 0xff) + "."
          + (api & 0xff) + ", and apptrace reads hwloc 2.x only; continuing with /sys");
    }
    PointerByReference ref = new PointerByReference();
    check(lib.hwloc_topology_init(ref), "hwloc_topology_init");
    Pointer topology = ref.getValue();
    try {
      check(lib.hwloc_topology_set_io_types_filter(topology, KEEP_ALL), "hwloc_topology_set_io_types_filter");
      check(lib.hwloc_topology_load(topology), "hwloc_topology_load");
      PointerByReference xml = new PointerByReference();
      IntByReference length = new IntByReference();
      check(lib.hwloc_topology_export_xmlbuffer(topology, xml, length, new NativeLong(0)),
          "hwloc_topology_export_xmlbuffer");
      try {
        int n = Math.max(0, length.getValue() - 1); // the length counts the closing NUL
        return new String(xml.getValue().getByteArray(0, n), StandardCharsets.UTF_8);
      } finally {
        lib.hwloc_free_xmlbuffer(topology, xml.getValue());
      }
    } finally {
      lib.hwloc_topology_destroy(topology);
    }
  }

  private static Lib load(List<String> names) throws Unavailable {
    for (String name : names) {
      try {
        return Native.load(name, Lib.class);
      } catch (UnsatisfiedLinkError e) {
        // try the next name
      }
    }
    throw new Unavailable("libhwloc not found: install the 'libhwloc15' package (Debian/Ubuntu) or 'hwloc-libs'"
        + " (RHEL); continuing with /sys");
  }

  private static void check(int result, String call) throws Unavailable {
    if (result != 0) {
      throw new Unavailable("libhwloc could not read this machine (" + call + " returned " + result
          + "); continuing with /sys");
    }
  }
}
