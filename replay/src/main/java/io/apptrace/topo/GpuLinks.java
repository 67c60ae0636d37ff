package io.apptrace.topo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The switches and links that join GPUs to CPUs and to each other, from the PCI tree and NVML's
 * NVLinks.
 *
 * <p>PCIe: the bridges above a GPU are its root port, then for each PCIe switch on the way an
 * upstream port and a downstream port. Each upstream port becomes a switch vertex (GPUs under the
 * same one share it); each link takes the rate both its ends allow at most (a GPU drops its link to
 * 2.5 GT/s while idle, so the current rate says little) and the width it runs at. NVLink: the
 * active bricks between two GPUs, or from a GPU to the NVSwitches (one vertex for the whole fabric,
 * as the bundled DGX nodes have it) or to its CPU (POWER9), become one link with that many lanes.
 */
final class GpuLinks {
  /** A link line: its two ends, its fields (YAML flow-mapping text) and a comment. */
  record Line(String a, String b, String fields, String comment) {}

  private final Machine machine;
  private final Map<String, String> switchIds = new LinkedHashMap<>(); // upstream port bus id -> id
  private final List<String> switches = new ArrayList<>();
  private final Map<String, Line> links = new LinkedHashMap<>(); // "a|b" -> line
  private final List<String> notes = new ArrayList<>();
  private boolean nvswitch;

  GpuLinks(Machine machine) {
    this.machine = machine;
  }

  /** The switch lines, as YAML flow mappings with their comments. */
  List<String> switches() {
    return switches;
  }

  List<Line> links() {
    return new ArrayList<>(links.values());
  }

  List<String> notes() {
    return notes;
  }

  /** The PCIe route from {@code cpu} down to GPU {@code g} (id {@code gpu}). */
  void pcie(GpuFacts g, String gpu, String cpu) {
    Optional<Machine.PciDevice> dev = machine.device(g.busId());
    if (dev.isEmpty()) {
      notes.add(gpu + " (" + g.busId() + ") is not in the PCI tree; its PCIe link is NVML's maximum, joined to " + cpu);
      add(cpu, gpu, pcie(g.maxPcieGeneration(), g.maxPcieWidth()), g.busId() + ": as NVML gives its maximum");
      return;
    }
    List<Machine.PciDevice> chain = bridgesAbove(dev.get());
    String above = cpu;
    for (int k = 1; k < chain.size(); k += 2) { // chain[0] is the root port; then upstream, downstream ports
      Machine.PciDevice up = chain.get(k);
      String sw = switchIds.computeIfAbsent(up.busId(), b -> {
        String id = "pcisw" + switchIds.size();
        switches.add(String.format(Locale.ROOT,
            "{id: %s, type: pcie, model: \"PCIe switch %04x:%04x\"}   # upstream port %s", id, up.vendor(),
            up.device(), b));
        return id;
      });
      link(above, sw, up, chain.get(k - 1));
      above = sw;
    }
    Machine.PciDevice port = chain.isEmpty() ? null : chain.get(chain.size() - 1);
    if (!dev.get().link().known() && g.maxPcieGeneration() > 0) {
      add(above, gpu, pcie(g.maxPcieGeneration(), g.maxPcieWidth()), g.busId() + ": as NVML gives its maximum"
          + " (the PCI tree has no link rate for it)");
    } else {
      link(above, gpu, dev.get(), port);
    }
  }

  /** The bridges above a device, from the root port down. */
  private List<Machine.PciDevice> bridgesAbove(Machine.PciDevice d) {
    List<Machine.PciDevice> chain = new ArrayList<>();
    Optional<String> p = d.parent();
    while (p.isPresent() && chain.size() < 64) {
      Optional<Machine.PciDevice> b = machine.device(p.get());
      if (b.isEmpty()) {
        break;
      }
      chain.add(0, b.get());
      p = b.get().parent();
    }
    return chain;
  }

  /** The PCIe link from the port above {@code end} (which may be unknown) down to {@code end}. */
  private void link(String a, String b, Machine.PciDevice end, Machine.PciDevice port) {
    Machine.PciLink l = end.link();
    Machine.PciLink p = port == null ? Machine.PciLink.UNKNOWN : port.link();
    double rate = min(l.maxGtPerSec(), p.maxGtPerSec());
    rate = rate > 0 ? rate : l.currentGtPerSec();
    int width = l.currentWidth() > 0 ? l.currentWidth() : (int) min(l.maxWidth(), p.maxWidth());
    String comment = String.format(Locale.ROOT, "%s: %s at most, now %s", end.busId(), rate(rate, width),
        rate(l.currentGtPerSec(), l.currentWidth()));
    add(a, b, pcie(Machine.PciLink.generation(rate), width), comment);
  }

  private static double min(double x, double y) {
    return x > 0 && y > 0 ? Math.min(x, y) : Math.max(x, y);
  }

  private static String rate(double gtPerSec, int width) {
    return (gtPerSec > 0 ? String.format(Locale.ROOT, "%s GT/s", trim(gtPerSec)) : "unknown rate")
        + (width > 0 ? " x" + width : " unknown width");
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  /** The fields of a PCIe link; a generation or width out of what the format has is unknown. */
  private static String pcie(int generation, int width) {
    boolean lanes = width >= 1 && width <= 32 && Integer.bitCount(width) == 1;
    return "type: pcie, generation: " + (generation > 0 ? generation : "unknown") + ", lanes: "
        + (lanes ? width : "unknown");
  }

  /** NVLinks of every GPU: {@code ids} and {@code cpus} are the GPUs' ids and their CPUs' ids. */
  void nvlinks(List<GpuFacts> gpus, List<String> ids, List<String> cpus) {
    for (int i = 0; i < gpus.size(); i++) {
      GpuFacts g = gpus.get(i);
      Map<String, Integer> lanes = new LinkedHashMap<>();
      for (GpuFacts.NvLink l : g.nvlinks()) {
        String other = switch (l.remote()) {
          case GPU -> gpuWithBusId(gpus, ids, l.remoteBusId());
          case SWITCH -> "nvswitch";
          case CPU -> cpus.get(i);
          case UNKNOWN -> null;
        };
        if (other == null) {
          notes.add(ids.get(i) + ": NVLink " + l.link() + " leads to " + l.remoteBusId()
              + ", which is not a GPU NVML lists; it is left out");
        } else if (!(l.remote() == GpuFacts.Remote.GPU && ids.indexOf(other) < i)) { // a GPU pair once
          lanes.merge(other, 1, Integer::sum);
        }
      }
      for (Map.Entry<String, Integer> e : lanes.entrySet()) {
        String other = e.getKey();
        int n = e.getValue();
        if (other.equals("nvswitch") && !nvswitch) {
          switches.add("{id: nvswitch, type: nvswitch}   # every NVSwitch the GPUs reach, as one fabric");
          nvswitch = true;
        }
        String key = key(ids.get(i), other);
        String replaced = links.containsKey(key) ? "; it replaces the PCIe link between them" : "";
        links.remove(key);
        boolean toCpu = other.equals(cpus.get(i)); // written CPU first, as the PCIe links are
        add(toCpu ? other : ids.get(i), toCpu ? ids.get(i) : other, nvlink(g.nvlinkGeneration(), n), n
            + " active NVLink brick" + (n == 1 ? "" : "s") + " (NVML)" + replaced);
      }
    }
  }

  private static String gpuWithBusId(List<GpuFacts> gpus, List<String> ids, String busId) {
    for (int j = 0; j < gpus.size(); j++) {
      if (gpus.get(j).busId().equals(busId)) {
        return ids.get(j);
      }
    }
    return null;
  }

  /** The fields of an NVLink: NVLink 3 and 4 bricks move 25 GB/s per direction, NVLink 5 bricks 50. */
  private static String nvlink(int generation, int lanes) {
    String laneBw = switch (generation) {
      case 1, 2 -> ""; // the format knows their lane bandwidths (20 and 25 GB/s)
      case 3, 4 -> ", lane_bandwidth: \"25 GB/s\"";
      case 5 -> ", lane_bandwidth: \"50 GB/s\"";
      default -> ", lane_bandwidth: unknown";
    };
    return "type: nvlink, generation: " + (generation > 0 ? generation : "unknown") + ", lanes: " + lanes + laneBw;
  }

  private void add(String a, String b, String fields, String comment) {
    links.putIfAbsent(key(a, b), new Line(a, b, fields, comment));
  }

  private static String key(String a, String b) {
    return a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
  }
}
