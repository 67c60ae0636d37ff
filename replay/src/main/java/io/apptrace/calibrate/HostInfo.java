package io.apptrace.calibrate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What Linux says about the host (procfs, sysfs): its name, CPU model, the cores of a NUMA node,
 * and a GPU's PCI device (its NUMA node and PCIe link). Every answer may be missing.
 */
final class HostInfo {
  private HostInfo() {}

  /** The host name, as node files and the CSV's machine column use it. */
  static String hostName() {
    Optional<String> n = read(Path.of("/proc/sys/kernel/hostname"));
    String name = n.orElse(System.getenv().getOrDefault("HOSTNAME", "localhost")).strip();
    return name.isEmpty() ? "localhost" : name;
  }

  /** The CPU model ({@code model name} on x86, {@code cpu} on POWER), or "unknown CPU". */
  static String cpuModel() {
    for (String line : read(Path.of("/proc/cpuinfo")).orElse("").split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        String key = line.substring(0, colon).strip();
        if (key.equals("model name") || key.equals("cpu")) {
          return line.substring(colon + 1).strip();
        }
      }
    }
    return "unknown CPU";
  }

  /** The physical cores of a NUMA node (distinct package and core ids of its CPUs), or 0 when unknown. */
  static int cores(int numaNode) {
    Optional<String> list = read(Path.of("/sys/devices/system/node/node" + numaNode + "/cpulist"));
    if (list.isEmpty()) {
      return 0;
    }
    Set<String> cores = new HashSet<>();
    for (String range : list.get().strip().split(",")) {
      if (range.isBlank()) {
        continue;
      }
      String[] ends = range.split("-");
      int lo;
      int hi;
      try {
        lo = Integer.parseInt(ends[0].strip());
        hi = ends.length > 1 ? Integer.parseInt(ends[1].strip()) : lo;
      } catch (NumberFormatException e) {
        return 0;
      }
      for (int cpu = lo; cpu <= hi; cpu++) {
        Path topo = Path.of("/sys/devices/system/cpu/cpu" + cpu + "/topology");
        cores.add(read(topo.resolve("physical_package_id")).orElse("?").strip() + "/"
            + read(topo.resolve("core_id")).orElse(Integer.toString(cpu)).strip());
      }
    }
    return cores.size();
  }

  /** The sysfs folder of a PCI device named as {@code cudaDeviceGetPCIBusId} names it. */
  static Path pciDevice(String busId) {
    String id = busId.toLowerCase(Locale.ROOT).strip();
    int colon = id.indexOf(':');
    if (colon > 4) { // an 8-digit domain: sysfs uses 4
      id = id.substring(colon - 4);
    }
    return Path.of("/sys/bus/pci/devices", id);
  }

  /** The NUMA node of a PCI device, or -1. */
  static int numaNode(String busId) {
    return read(pciDevice(busId).resolve("numa_node")).map(s -> {
      try {
        return Integer.parseInt(s.strip());
      } catch (NumberFormatException e) {
        return -1;
      }
    }).orElse(-1);
  }

  /** {@code [generation, lanes]} of a PCI device's link, from its current speed and width; empty when unknown. */
  static Optional<int[]> pcieLink(String busId) {
    Path dev = pciDevice(busId);
    Optional<String> speed = read(dev.resolve("current_link_speed"));
    Optional<String> width = read(dev.resolve("current_link_width"));
    if (speed.isEmpty() || width.isEmpty()) {
      return Optional.empty();
    }
    try {
      double gts = Double.parseDouble(speed.get().strip().split(" ")[0]);
      int gen = gts <= 2.5 ? 1 : gts <= 5 ? 2 : gts <= 8 ? 3 : gts <= 16 ? 4 : gts <= 32 ? 5 : 6;
      int lanes = Integer.parseInt(width.get().strip());
      return lanes > 0 ? Optional.of(new int[] {gen, lanes}) : Optional.empty();
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> read(Path p) {
    try {
      return Optional.of(Files.readString(p, StandardCharsets.UTF_8));
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }
}
