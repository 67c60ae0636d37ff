package io.apptrace.topo;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a machine is made of, as hwloc or Linux's /sys describe it: sockets, NUMA nodes and the
 * PCI devices with the tree they form. GPUs as NVML sees them are apart ({@link GpuFacts}).
 *
 * @param sockets the CPU packages, by index
 * @param numaNodes the NUMA nodes, by index; empty when the kernel reports none
 * @param pci every PCI device and bridge, in bus order
 * @param source what was read, e.g. {@code hwloc 2.9.0} or {@code /sys}
 */
public record Machine(List<Socket> sockets, List<NumaNode> numaNodes, List<PciDevice> pci, String source) {
  public Machine {
    sockets = List.copyOf(sockets);
    numaNodes = List.copyOf(numaNodes);
    pci = List.copyOf(pci);
  }

  /** A CPU package with its physical cores. */
  public record Socket(int index, String model, int cores) {}

  /**
   * A NUMA node: the cores whose memory it is, and its size.
   *
   * @param socket the package its cores are on, -1 for a node without cores
   * @param cores physical cores; 0 for memory without CPUs (HBM, CXL or NVDIMM memory)
   */
  public record NumaNode(int index, int socket, int cores, OptionalLong memoryBytes) {}

  /**
   * A PCI function.
   *
   * @param busId {@code 0000:3b:00.0}, lower case
   * @param classCode base class and subclass, e.g. {@code 0x0302} for a 3D controller
   * @param parent the bus id of the bridge above it; empty under a host bridge
   * @param numaNode the NUMA node it is attached to, when the machine says
   * @param link its PCIe link to the port above it
   */
  public record PciDevice(String busId, int classCode, int vendor, int device, Optional<String> parent,
      OptionalInt numaNode, PciLink link) {
    /** A PCI-to-PCI bridge: a root port, or a port of a PCIe switch. */
    public boolean bridge() {
      return classCode == 0x0604;
    }
  }

  /**
   * A PCIe link's signalling rate and width, now and at most; 0 where unknown. A GPU drops its
   * link to 2.5 GT/s while idle, so the current rate says little about what a copy gets.
   */
  public record PciLink(double currentGtPerSec, int currentWidth, double maxGtPerSec, int maxWidth) {
    public static final PciLink UNKNOWN = new PciLink(0, 0, 0, 0);

    /** Whether anything is known. */
    public boolean known() {
      return currentGtPerSec > 0 || currentWidth > 0 || maxGtPerSec > 0 || maxWidth > 0;
    }

    /**
     * The PCIe generation whose lanes signal at {@code gtPerSec}: 2.5 GT/s is generation 1, 5 is 2,
     * 8 is 3, 16 is 4, 32 is 5, 64 is 6; 0 for any other rate.
     */
    public static int generation(double gtPerSec) {
      double[] rates = {2.5, 5, 8, 16, 32, 64};
      for (int g = 0; g < rates.length; g++) {
        if (Math.abs(gtPerSec - rates[g]) < 0.01) {
          return g + 1;
        }
      }
      return 0;
    }
  }

  /** The device with this bus id. */
  public Optional<PciDevice> device(String busId) {
    return pci.stream().filter(d -> d.busId().equals(busId)).findFirst();
  }

  /** The cores of the whole machine. */
  public int cores() {
    return sockets.stream().mapToInt(Socket::cores).sum();
  }
}
