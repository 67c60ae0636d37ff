package io.apptrace.topo;

import static io.apptrace.node.NodeYaml.quote;

import io.apptrace.node.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Writes what {@link Topo} found as a node file (docs/NODE-FORMAT.md) whose every value topo
 * cannot know is {@code unknown}: memory bandwidths, copy engines, the bandwidth of the bus
 * between sockets, L+o.
 *
 * <p>One CPU per NUMA node that has cores (the format gives each CPU one {@code numa_node}, and a
 * trace names host memory by NUMA node); memory without cores (HBM, CXL) is left out with a note.
 * Every pair of CPUs is joined by an {@code smp} link. GPUs come in NVML's order, which is CUDA's
 * with {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}; each hangs below the CPU of its NUMA node (the first
 * CPU when the machine does not say) through the switches and links {@link GpuLinks} finds.
 */
public final class SkeletonWriter {
  private SkeletonWriter() {}

  /**
   * A node file's text, and what its reader should know (a GPU with no known NUMA node, memory
   * left out, no GPU at all).
   */
  public record Skeleton(String yaml, List<String> notes) {
    public Skeleton {
      notes = List.copyOf(notes);
    }
  }

  /** One CPU of the skeleton: a NUMA node with cores. */
  private record Cpu(String id, String model, int cores, int numa, int socket, String memory) {}

  /**
   * The skeleton of {@code r}'s machine, named {@code name}; {@code host} is the machine's host
   * name, for the description.
   */
  public static Skeleton write(Topo.Result r, String name, String host) {
    Objects.requireNonNull(r, "r");
    Machine m = r.machine();
    List<String> notes = new ArrayList<>();
    List<Cpu> cpus = cpus(m, notes);
    List<GpuFacts> gpus = r.gpus().gpus();
    List<String> gpuIds = new ArrayList<>();
    GpuLinks links = gpuLinks(m, cpus, gpus, gpuIds, notes);
    if (gpus.isEmpty()) {
      notes.add("no NVIDIA GPU found: the skeleton has no gpus; a node needs at least one to be replayed on");
    }
    StringBuilder y = new StringBuilder();
    y.append("# A node file skeleton of ").append(host).append(", written by 'apptrace topo' (docs/TOPO.md).\n")
        .append("# Each value written 'unknown' is one topo cannot read from the machine: 'apptrace replay' and\n")
        .append("# 'apptrace model' refuse the file, naming the first, until each is written in"
            + " (docs/NODE-FORMAT.md)\n")
        .append("# or measured with 'apptrace calibrate'.\n");
    y.append("name: ").append(quote(name)).append('\n');
    y.append("description: ").append(quote(description(host, m, cpus, gpus))).append('\n');
    y.append("sources: [").append(quote("apptrace topo on " + host + ": " + String.join(", ", r.sources())))
        .append("]\n");
    appendCpus(y, cpus);
    appendGpus(y, gpus, gpuIds);
    if (!links.switches().isEmpty()) {
      y.append("switches:\n");
      links.switches().forEach(s -> y.append("  - ").append(s).append('\n'));
    }
    List<GpuLinks.Line> all = new ArrayList<>(links.links());
    all.addAll(smpLinks(cpus));
    y.append(all.isEmpty() ? "links: []\n" : "links:\n");
    for (GpuLinks.Line l : all) {
      y.append("  - {between: [").append(l.a()).append(", ").append(l.b()).append("], ").append(l.fields())
          .append("}   # ").append(l.comment()).append('\n');
    }
    peerAccess(gpus, gpuIds).ifPresent(p -> y.append("peer_access: ").append(p)
        .append("   # what NVML says of peer reads between each pair\n"));
    if (!gpus.isEmpty()) {
      y.append("measured:\n  timed: event   # how the times below were taken: event (CUDA events around a synchronous"
          + " call, as 'apptrace calibrate' times them), gpu (a profiler's span of the copy) or wall\n");
      y.append("  latency: {pinned_h2d: unknown, pinned_d2h: unknown}   # L+o of a 1-byte copy\n");
    }
    return new Skeleton(y.toString(), notes);
  }

  /** Each GPU below the CPU of its NUMA node, and the NVLinks; fills {@code ids} with the GPUs' ids. */
  private static GpuLinks gpuLinks(Machine m, List<Cpu> cpus, List<GpuFacts> gpus, List<String> ids,
      List<String> notes) {
    List<String> gpuCpus = new ArrayList<>();
    GpuLinks links = new GpuLinks(m);
    for (GpuFacts g : gpus) {
      String id = "gpu" + ids.size();
      ids.add(id);
      OptionalInt numa = m.device(g.busId()).map(Machine.PciDevice::numaNode).orElse(OptionalInt.empty());
      Cpu cpu = cpus.stream().filter(c -> numa.isPresent() && c.numa() == numa.getAsInt()).findFirst()
          .orElse(cpus.get(0));
      if (numa.isEmpty() && cpus.size() > 1) {
        notes.add(id + " (" + g.busId() + "): the machine does not say which NUMA node it is attached to; it is"
            + " joined to " + cpu.id() + " (check with 'nvidia-smi topo -m')");
      }
      gpuCpus.add(cpu.id());
      links.pcie(g, id, cpu.id());
    }
    links.nvlinks(gpus, ids, gpuCpus);
    notes.addAll(links.notes());
    return links;
  }

  private static void appendCpus(StringBuilder y, List<Cpu> cpus) {
    y.append("cpus:\n");
    for (Cpu c : cpus) {
      y.append(String.format(Locale.ROOT, "  - {id: %s, model: %s, cores: %s, numa_node: %d,%s"
          + " memory_bandwidth: unknown}   # socket %d%n", c.id(), quote(c.model()),
          c.cores() > 0 ? c.cores() : "unknown", c.numa(), c.memory().isEmpty() ? "" : " memory: " + quote(c.memory())
          + ",", c.socket()));
    }
  }

  private static void appendGpus(StringBuilder y, List<GpuFacts> gpus, List<String> ids) {
    y.append(gpus.isEmpty() ? "gpus: []   # no NVIDIA GPU found: a node needs at least one to be replayed on\n"
        : "gpus:   # in NVML's order: CUDA's too with CUDA_DEVICE_ORDER=PCI_BUS_ID\n");
    for (int i = 0; i < gpus.size(); i++) {
      GpuFacts g = gpus.get(i);
      String mem = g.memoryBytes().isPresent() ? quote(Units.size(g.memoryBytes().getAsLong())) : "unknown";
      y.append(String.format(Locale.ROOT, "  - {id: %s, model: %s, memory: %s, memory_bandwidth: unknown,"
          + " copy_engines: unknown}   # %s%s%n", ids.get(i), quote(g.name()), mem, g.busId(),
          g.multiGpuBoard() ? ", on a board with another GPU" : ""));
    }
  }

  /** An {@code smp} link of unknown bandwidth between every pair of CPUs. */
  private static List<GpuLinks.Line> smpLinks(List<Cpu> cpus) {
    List<GpuLinks.Line> out = new ArrayList<>();
    for (int a = 0; a < cpus.size(); a++) {
      for (int b = a + 1; b < cpus.size(); b++) {
        Cpu x = cpus.get(a);
        Cpu z = cpus.get(b);
        out.add(new GpuLinks.Line(x.id(), z.id(), "type: smp, bandwidth: unknown", x.socket() == z.socket()
            ? "NUMA nodes " + x.numa() + " and " + z.numa() + " of socket " + x.socket()
            : "the bus between sockets " + x.socket() + " and " + z.socket() + " (UPI, Infinity Fabric, X-Bus...)"));
      }
    }
    return out;
  }

  private static List<Cpu> cpus(Machine m, List<String> notes) {
    List<Cpu> out = new ArrayList<>();
    for (Machine.NumaNode n : m.numaNodes()) {
      if (n.cores() == 0) {
        notes.add("NUMA node " + n.index() + " has memory but no cores (HBM or CXL memory?); the format has no place"
            + " for it, so it is left out");
        continue;
      }
      out.add(new Cpu("cpu" + out.size(), model(m, n.socket()), n.cores(), n.index(), n.socket(),
          n.memoryBytes().isPresent() ? Units.size(n.memoryBytes().getAsLong()) : ""));
    }
    if (out.isEmpty()) { // a kernel without NUMA: one CPU per socket
      for (Machine.Socket s : m.sockets()) {
        out.add(new Cpu("cpu" + out.size(), s.model(), s.cores(), s.index(), s.index(), ""));
      }
    }
    if (out.isEmpty()) { // nothing readable at all: one CPU to fill in
      out.add(new Cpu("cpu0", "unknown model", 0, 0, 0, ""));
    }
    return out;
  }

  private static String model(Machine m, int socket) {
    return m.sockets().stream().filter(s -> s.index() == socket).map(Machine.Socket::model).findFirst()
        .orElse(m.sockets().isEmpty() ? "unknown model" : m.sockets().get(0).model());
  }

  private static String description(String host, Machine m, List<Cpu> cpus, List<GpuFacts> gpus) {
    String models = String.join(" + ", m.sockets().stream().map(Machine.Socket::model).distinct().toList());
    String g = gpus.isEmpty() ? "no GPU" : gpus.size() + " x " + String.join(" + ",
        gpus.stream().map(GpuFacts::name).distinct().toList());
    return String.format(Locale.ROOT, "%s: %d x %s (%d cores, %d NUMA node%s), %s", host, m.sockets().size(), models,
        m.cores(), cpus.size(), cpus.size() == 1 ? "" : "s", g);
  }

  /** {@code all}, {@code none} or the pairs, from NVML's peer reads; nothing for fewer than two GPUs. */
  private static Optional<String> peerAccess(List<GpuFacts> gpus, List<String> ids) {
    if (gpus.size() < 2) {
      return Optional.empty();
    }
    List<String> pairs = new ArrayList<>();
    int possible = 0;
    for (int a = 0; a < gpus.size(); a++) {
      for (int b = a + 1; b < gpus.size(); b++) {
        possible++;
        if (gpus.get(a).peers().contains(b) && gpus.get(b).peers().contains(a)) {
          pairs.add("[" + ids.get(a) + ", " + ids.get(b) + "]");
        }
      }
    }
    return Optional.of(pairs.isEmpty() ? "none" : pairs.size() == possible ? "all"
        : "{pairs: [" + String.join(", ", pairs) + "]}");
  }
}
