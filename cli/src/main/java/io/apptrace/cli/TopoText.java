package io.apptrace.cli;

import io.apptrace.node.NodeSkeleton;
import io.apptrace.node.Units;
import io.apptrace.topo.GpuFacts;
import io.apptrace.topo.Machine;
import io.apptrace.topo.Topo;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The summary {@code apptrace topo} prints on stderr: what it found, and what is left unknown. */
final class TopoText {
  /** PCI class names (PCI Code and ID Assignment Specification): subclasses first, then base classes. */
  private static final Map<Integer, String> SUBCLASSES = Map.ofEntries(Map.entry(0x0106, "SATA"),
      Map.entry(0x0108, "NVMe"), Map.entry(0x0200, "Ethernet"), Map.entry(0x0207, "InfiniBand"),
      Map.entry(0x0300, "VGA"), Map.entry(0x0302, "3D controller"), Map.entry(0x0600, "host bridge"),
      Map.entry(0x0604, "PCI bridge"), Map.entry(0x0c03, "USB"));
  private static final String[] CLASSES = {"unclassified", "storage", "network", "display", "multimedia", "memory",
      "bridge", "communication", "system", "input", "docking", "processor", "serial bus", "wireless",
      "intelligent I/O", "satellite", "encryption", "signal processing", "accelerator", "instrumentation"};

  private TopoText() {}

  /** A PCI class for people: {@code 3D controller}, {@code storage}. */
  static String pciClass(int classCode) {
    String sub = SUBCLASSES.get(classCode);
    if (sub != null) {
      return sub;
    }
    int base = classCode >> 8;
    return base < CLASSES.length ? CLASSES[base] : "other";
  }

  static void summary(Topo.Result r, NodeSkeleton read, PrintWriter err) {
    Machine m = r.machine();
    err.println("apptrace topo: read " + String.join(", ", r.sources()));
    row(err, "sockets", m.sockets().size(), String.join(" + ",
        m.sockets().stream().map(Machine.Socket::model).distinct().toList()));
    row(err, "NUMA nodes", m.numaNodes().size(), "");
    for (Machine.NumaNode n : m.numaNodes()) {
      err.printf(Locale.ROOT, "    node %-3d %10s  %d cores%s%n", n.index(),
          n.memoryBytes().isPresent() ? Units.size(n.memoryBytes().getAsLong()) : "?", n.cores(),
          n.socket() >= 0 ? ", socket " + n.socket() : "");
    }
    row(err, "cores", m.cores(), "");
    row(err, "PCI devices", m.pci().size(), "");
    for (Machine.PciDevice d : m.pci()) {
      err.printf(Locale.ROOT, "    %-13s %04x %-17s %04x:%04x  %s%s%n", d.busId(), d.classCode(),
          pciClass(d.classCode()), d.vendor(), d.device(), link(d.link()),
          d.numaNode().isPresent() ? ", NUMA node " + d.numaNode().getAsInt() : "");
    }
    List<GpuFacts> gpus = r.gpus().gpus();
    row(err, "GPUs", gpus.size(), r.gpus().library().isEmpty() ? "(NVML not available)" : "");
    for (GpuFacts g : gpus) {
      err.printf(Locale.ROOT, "    gpu%-3d %-13s %s, %s, %d NVLink bricks%n", g.index(), g.busId(), g.name(),
          g.memoryBytes().isPresent() ? Units.size(g.memoryBytes().getAsLong()) : "memory unknown",
          g.nvlinks().size());
    }
    List<NodeSkeleton.Unknown> unknowns = read.unknowns();
    row(err, "unknown values", unknowns.size(), unknowns.isEmpty() ? "" : "(to fill in: docs/TOPO.md)");
    for (NodeSkeleton.Unknown u : unknowns.subList(0, Math.min(unknowns.size(), 8))) {
      err.println("    " + u.field());
    }
    if (unknowns.size() > 8) {
      err.println("    ... and " + (unknowns.size() - 8) + " more");
    }
  }

  private static void row(PrintWriter err, String what, int count, String detail) {
    err.println(String.format(Locale.ROOT, "  %-16s %4d  %s", what, count, detail).stripTrailing());
  }

  /** {@code 8 GT/s x16 (at most 16 GT/s x16)}, or {@code no PCIe link known}. */
  private static String link(Machine.PciLink l) {
    if (!l.known()) {
      return "no PCIe link known";
    }
    return rate(l.currentGtPerSec(), l.currentWidth()) + " (at most " + rate(l.maxGtPerSec(), l.maxWidth()) + ")";
  }

  private static String rate(double gtPerSec, int width) {
    String r = gtPerSec <= 0 ? "?" : gtPerSec == Math.rint(gtPerSec) ? Long.toString((long) gtPerSec)
        : Double.toString(gtPerSec);
    return r + " GT/s x" + (width > 0 ? Integer.toString(width) : "?");
  }
}
