package io.apptrace.topo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A /sys and /proc tree in a folder, of the same made-up machine as two-socket.xml, with the PCIe
 * link files hwloc's XML lacks:
 *
 * <pre>
 * package 0: cpus 0,4 (core 0) 1,5 (core 1); NUMA node 0 (cpus 0-1,4-5), node 2 (memory only)
 *   pci0000:00 - 00:00.0 host bridge
 *              - 00:01.0 root port 8 GT/s x16 - 01:00.0 switch up 8 GT/s x16 - 02:08.0 - 03:00.0 GPU
 *                                                                             - 02:10.0 - 04:00.0 GPU
 *   (each GPU: now 2.5 GT/s x16, idle; at most 8 GT/s x16)
 * package 1: cpus 2,6 3,7; NUMA node 1 (cpus 2-3,6-7)
 *   pci0000:80 - 80:02.0 root port 8 GT/s x16 - 81:00.0 InfiniBand 8 GT/s x16
 * </pre>
 */
final class FakeSysfs {
  static final String MODEL = "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz";

  private FakeSysfs() {}

  /** Builds the tree under {@code root} ({@code root/sys}, {@code root/proc}) and returns its reader. */
  static Sysfs build(Path root) throws IOException {
    Path sys = root.resolve("sys");
    Path proc = root.resolve("proc");
    Path cpu = sys.resolve("devices/system/cpu");
    write(cpu.resolve("online"), "0-7\n");
    StringBuilder cpuinfo = new StringBuilder();
    for (int c = 0; c < 8; c++) {
      int pkg = (c / 2) % 2; // 0,1 -> 0; 2,3 -> 1; 4,5 -> 0; 6,7 -> 1
      write(cpu.resolve("cpu" + c + "/topology/physical_package_id"), pkg + "\n");
      write(cpu.resolve("cpu" + c + "/topology/die_id"), "0\n");
      write(cpu.resolve("cpu" + c + "/topology/core_id"), (c % 2) + "\n");
      cpuinfo.append("processor\t: ").append(c).append("\nvendor_id\t: GenuineIntel\nmodel name\t: ").append(MODEL)
          .append("\nphysical id\t: ").append(pkg).append("\n\n");
    }
    write(proc.resolve("cpuinfo"), cpuinfo.toString());
    Path node = sys.resolve("devices/system/node");
    write(node.resolve("online"), "0-2\n");
    write(node.resolve("node0/cpulist"), "0-1,4-5\n");
    write(node.resolve("node0/meminfo"), "Node 0 MemTotal:       196510000 kB\nNode 0 MemFree:        1000 kB\n");
    write(node.resolve("node1/cpulist"), "2-3,6-7\n");
    write(node.resolve("node1/meminfo"), "Node 1 MemTotal:       198180944 kB\n");
    write(node.resolve("node2/cpulist"), "\n");
    write(node.resolve("node2/meminfo"), "Node 2 MemTotal:       67108864 kB\n");

    Path d0 = sys.resolve("devices/pci0000:00");
    device(sys, d0.resolve("0000:00:00.0"), "0x060000", "0x8086", "0x2020", 0, null);
    Path rp = device(sys, d0.resolve("0000:00:01.0"), "0x060400", "0x8086", "0x2030", 0, "8.0 GT/s PCIe|16|8.0 GT/s PCIe|16");
    Path up = device(sys, rp.resolve("0000:01:00.0"), "0x060400", "0x10b5", "0x8747", 0, "8.0 GT/s PCIe|16|8.0 GT/s PCIe|16");
    Path dp0 = device(sys, up.resolve("0000:02:08.0"), "0x060400", "0x10b5", "0x8747", 0, "8.0 GT/s PCIe|16|8.0 GT/s PCIe|16");
    Path dp1 = device(sys, up.resolve("0000:02:10.0"), "0x060400", "0x10b5", "0x8747", 0, "8.0 GT/s PCIe|16|8.0 GT/s PCIe|16");
    device(sys, dp0.resolve("0000:03:00.0"), "0x030200", "0x10de", "0x1db4", 0, "2.5 GT/s PCIe|16|8.0 GT/s PCIe|16");
    device(sys, dp1.resolve("0000:04:00.0"), "0x030200", "0x10de", "0x1db4", 0, "2.5 GT/s PCIe|16|8.0 GT/s PCIe|16");
    Path d80 = sys.resolve("devices/pci0000:80");
    Path rp1 = device(sys, d80.resolve("0000:80:02.0"), "0x060400", "0x8086", "0x2032", 1, "8.0 GT/s PCIe|16|8.0 GT/s PCIe|16");
    device(sys, rp1.resolve("0000:81:00.0"), "0x020700", "0x15b3", "0x1017", 1, "8 GT/s|16|8 GT/s|16");
    return new Sysfs(sys, proc);
  }

  /** A PCI function's folder, linked from bus/pci/devices; {@code link}: "now|width|max|width", or none. */
  static Path device(Path sys, Path dir, String cls, String vendor, String device, int numa, String link)
      throws IOException {
    write(dir.resolve("class"), cls + "\n");
    write(dir.resolve("vendor"), vendor + "\n");
    write(dir.resolve("device"), device + "\n");
    write(dir.resolve("numa_node"), numa + "\n");
    if (link != null) {
      String[] l = link.split("\\|");
      write(dir.resolve("current_link_speed"), l[0] + "\n");
      write(dir.resolve("current_link_width"), l[1] + "\n");
      write(dir.resolve("max_link_speed"), l[2] + "\n");
      write(dir.resolve("max_link_width"), l[3] + "\n");
    }
    Path bus = sys.resolve("bus/pci/devices");
    Files.createDirectories(bus);
    Files.createSymbolicLink(bus.resolve(dir.getFileName()), bus.relativize(dir));
    return dir;
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }
}
