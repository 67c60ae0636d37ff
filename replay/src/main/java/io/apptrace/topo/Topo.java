package io.apptrace.topo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * Enumerates this machine: sockets, NUMA nodes and the PCI tree through libhwloc when it loads
 * (else from /sys), PCIe link rates and widths from /sys (hwloc's XML has only their product), and
 * GPUs from a {@link GpuProbe}. What cannot be read is said in {@link Result#notes()}, and the
 * rest goes on.
 */
public final class Topo {
  /** The system property naming the libhwloc to load instead of the usual names (for tests). */
  public static final String HWLOC_PROPERTY = "apptrace.topo.hwloc";
  /** The system property naming the NVML library to load instead of libnvidia-ml.so.1 (for tests). */
  public static final String NVML_PROPERTY = "apptrace.topo.nvml";

  private Topo() {}

  /**
   * What was found.
   *
   * @param notes what could not be read and why, one line each
   */
  public record Result(Machine machine, GpuProbe.Report gpus, List<String> notes) {
    public Result {
      notes = List.copyOf(notes);
    }

    /** What answered: {@code hwloc 2.9.0}, {@code /sys}, {@code NVML (driver 535.104.05)}. */
    public List<String> sources() {
      List<String> s = new ArrayList<>(List.of(machine.source()));
      if (!machine.source().equals("/sys")) {
        s.add("/sys");
      }
      gpus.library().ifPresent(s::add);
      return s;
    }
  }

  /**
   * This machine, with the libraries the system properties name (or the usual ones).
   *
   * @param hwloc whether to try libhwloc (else /sys only)
   */
  public static Result thisMachine(boolean hwloc, Consumer<String> phase) throws IOException {
    String lib = System.getProperty(HWLOC_PROPERTY);
    String nvml = System.getProperty(NVML_PROPERTY);
    return enumerate(!hwloc ? List.of() : lib == null ? Hwloc.NAMES : List.of(lib), Sysfs.system(),
        new Nvml(nvml == null ? Nvml.NAMES : List.of(nvml)), phase);
  }

  /**
   * Enumerates a machine.
   *
   * @param hwlocNames the libhwloc names to try; none: read /sys only
   * @param phase told what is being read, for a progress line
   * @throws IOException if neither hwloc nor /sys can be read
   */
  public static Result enumerate(List<String> hwlocNames, Sysfs sysfs, GpuProbe gpus, Consumer<String> phase)
      throws IOException {
    Objects.requireNonNull(sysfs, "sysfs");
    List<String> notes = new ArrayList<>();
    Machine m = null;
    if (!hwlocNames.isEmpty()) {
      phase.accept("reading the topology with hwloc");
      try {
        m = withLinks(HwlocXml.parse(Hwloc.topologyXml(hwlocNames)), sysfs);
      } catch (Hwloc.Unavailable e) {
        notes.add(e.getMessage());
      } catch (IOException e) {
        notes.add("libhwloc's XML cannot be read (" + e.getMessage() + "); continuing with /sys");
      }
    }
    if (m == null) {
      phase.accept("reading /sys");
      m = sysfs.machine();
    }
    phase.accept("asking NVML for GPUs");
    GpuProbe.Report report = gpus.probe();
    notes.addAll(report.notes());
    return new Result(m, report, notes);
  }

  /** hwloc's PCI devices with the link rates and widths /sys has, and its NUMA node where hwloc has none. */
  private static Machine withLinks(Machine m, Sysfs sysfs) {
    List<Machine.PciDevice> pci = new ArrayList<>();
    for (Machine.PciDevice d : m.pci()) {
      OptionalInt numa = d.numaNode().isPresent() ? d.numaNode() : sysfs.numaNode(d.busId());
      pci.add(new Machine.PciDevice(d.busId(), d.classCode(), d.vendor(), d.device(), d.parent(), numa,
          sysfs.link(d.busId())));
    }
    return new Machine(m.sockets(), m.numaNodes(), pci, m.source());
  }
}
