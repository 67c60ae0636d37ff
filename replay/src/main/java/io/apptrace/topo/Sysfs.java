package io.apptrace.topo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a machine from Linux's /sys (and the CPU model from /proc/cpuinfo), for when libhwloc is
 * missing, and the PCIe link rates and widths hwloc's XML does not carry:
 * {@code devices/system/cpu/cpuN/topology/}, {@code devices/system/node/nodeN/{cpulist,meminfo}}
 * and {@code bus/pci/devices/*&#47;{class,vendor,device,numa_node,current_link_speed,
 * current_link_width,max_link_speed,max_link_width}}. The roots are parameters so that tests can
 * give a tree of their own.
 */
public final class Sysfs {
  private static final Pattern BUS_ID = Pattern.compile("[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
  private static final Pattern MEM_TOTAL = Pattern.compile("Node\\s+\\d+\\s+MemTotal:\\s+(\\d+)\\s*kB");
  private static final Pattern CPU_DIR = Pattern.compile("cpu(\\d+)");
  private static final Pattern NODE_DIR = Pattern.compile("node(\\d+)");
  private static final Pattern RATE = Pattern.compile("\\s*([0-9]+(?:\\.[0-9]+)?)\\s*GT/s.*", Pattern.DOTALL);

  private final Path sys;
  private final Path proc;

  /** A /sys tree at {@code sys} and a /proc at {@code proc}. */
  public Sysfs(Path sys, Path proc) {
    this.sys = sys;
    this.proc = proc;
  }

  /** This machine's /sys and /proc. */
  public static Sysfs system() {
    return new Sysfs(Path.of("/sys"), Path.of("/proc"));
  }

  /**
   * The machine as /sys describes it.
   *
   * @throws IOException if {@code devices/system/cpu} cannot be read (no Linux /sys there)
   */
  public Machine machine() throws IOException {
    Map<Integer, String> coreOf = new TreeMap<>(); // cpu number -> "package:die:core"
    Map<Integer, Integer> packageOf = new HashMap<>();
    Path cpus = sys.resolve("devices/system/cpu");
    if (!Files.isDirectory(cpus)) {
      throw new IOException(cpus + " is not there: no Linux /sys to read the CPUs from");
    }
    BitSet online = read(cpus.resolve("online")).map(Sysfs::cpuList).orElseGet(() -> everyCpu(cpus));
    for (int c = online.nextSetBit(0); c >= 0; c = online.nextSetBit(c + 1)) {
      Path t = cpus.resolve("cpu" + c + "/topology");
      int pkg = Math.max(0, integer(t.resolve("physical_package_id")).orElse(0)); // -1 on some ARM machines
      packageOf.put(c, pkg);
      coreOf.put(c, pkg + ":" + integer(t.resolve("die_id")).orElse(0) + ":" + integer(t.resolve("core_id")).orElse(c));
    }
    Map<Integer, String> models = models();
    Map<Integer, Set<String>> coresOfPackage = new TreeMap<>();
    coreOf.forEach((cpu, core) -> coresOfPackage.computeIfAbsent(packageOf.get(cpu), k -> new HashSet<>()).add(core));
    List<Machine.Socket> sockets = new ArrayList<>();
    coresOfPackage.forEach((pkg, cores) -> sockets.add(new Machine.Socket(pkg,
        models.getOrDefault(pkg, models.getOrDefault(-1, "unknown model")), cores.size())));
    return new Machine(sockets, numaNodes(coreOf, packageOf), pci(), "/sys");
  }

  private static BitSet everyCpu(Path cpus) {
    BitSet b = new BitSet();
    for (Path p : list(cpus)) {
      Matcher m = CPU_DIR.matcher(p.getFileName().toString());
      if (m.matches()) {
        b.set(Integer.parseInt(m.group(1)));
      }
    }
    return b;
  }

  private List<Machine.NumaNode> numaNodes(Map<Integer, String> coreOf, Map<Integer, Integer> packageOf) {
    List<Machine.NumaNode> out = new ArrayList<>();
    for (Path n : list(sys.resolve("devices/system/node"))) {
      Matcher m = NODE_DIR.matcher(n.getFileName().toString());
      if (!m.matches()) {
        continue;
      }
      BitSet cpus = read(n.resolve("cpulist")).map(Sysfs::cpuList).orElseGet(BitSet::new);
      Set<String> cores = new HashSet<>();
      int socket = -1;
      for (int c = cpus.nextSetBit(0); c >= 0; c = cpus.nextSetBit(c + 1)) {
        if (coreOf.containsKey(c)) {
          cores.add(coreOf.get(c));
          socket = socket >= 0 ? socket : packageOf.get(c);
        }
      }
      OptionalLong mem = OptionalLong.empty();
      Matcher t = MEM_TOTAL.matcher(read(n.resolve("meminfo")).orElse(""));
      if (t.find()) {
        mem = OptionalLong.of(Long.parseLong(t.group(1)) * 1024);
      }
      out.add(new Machine.NumaNode(Integer.parseInt(m.group(1)), socket, cores.size(), mem));
    }
    out.sort((a, b) -> Integer.compare(a.index(), b.index()));
    return out;
  }

  /** CPU models from /proc/cpuinfo by package ({@code physical id}); -1 for one with no package. */
  private Map<Integer, String> models() {
    Map<Integer, String> out = new HashMap<>();
    for (String block : read(proc.resolve("cpuinfo")).orElse("").split("\n\\s*\n")) {
      String model = null;
      int pkg = -1;
      for (String line : block.split("\n")) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String key = line.substring(0, colon).strip();
        String value = line.substring(colon + 1).strip();
        if (key.equals("model name") || (key.equals("cpu") && model == null)) { // "cpu": POWER
          model = value;
        } else if (key.equals("physical id") && value.matches("\\d+")) {
          pkg = Integer.parseInt(value);
        }
      }
      if (model != null && !model.isEmpty()) {
        out.putIfAbsent(pkg, model);
        out.putIfAbsent(-1, model);
      }
    }
    return out;
  }

  /** Every PCI function, in bus order, with its parent bridge, NUMA node and link. */
  public List<Machine.PciDevice> pci() {
    List<Machine.PciDevice> out = new ArrayList<>();
    for (Path d : list(sys.resolve("bus/pci/devices"))) {
      String busId = d.getFileName().toString();
      if (!BUS_ID.matcher(busId).matches()) {
        continue;
      }
      Optional<String> parent = Optional.empty();
      try {
        Path up = d.toRealPath().getParent();
        if (up != null && BUS_ID.matcher(up.getFileName().toString()).matches()) {
          parent = Optional.of(up.getFileName().toString());
        }
      } catch (IOException e) {
        // a device that went away while we looked: list it without a parent
      }
      int cls = hex(d.resolve("class")) >> 8;
      out.add(new Machine.PciDevice(busId, cls, hex(d.resolve("vendor")), hex(d.resolve("device")), parent,
          numaNode(busId), link(busId)));
    }
    out.sort((a, b) -> a.busId().compareTo(b.busId()));
    return out;
  }

  /** The NUMA node a device is attached to ({@code numa_node}; -1 there means none known). */
  public OptionalInt numaNode(String busId) {
    OptionalInt n = integer(sys.resolve("bus/pci/devices").resolve(busId).resolve("numa_node"));
    return n.isPresent() && n.getAsInt() >= 0 ? n : OptionalInt.empty();
  }

  /** A device's PCIe link, as far as /sys knows it (not at all for conventional PCI). */
  public Machine.PciLink link(String busId) {
    Path d = sys.resolve("bus/pci/devices").resolve(busId);
    return new Machine.PciLink(rate(d.resolve("current_link_speed")),
        integer(d.resolve("current_link_width")).orElse(0), rate(d.resolve("max_link_speed")),
        integer(d.resolve("max_link_width")).orElse(0));
  }

  /** {@code 8.0 GT/s PCIe}, {@code 8 GT/s}, {@code 2.5 GT/s}; 0 for {@code Unknown} or none. */
  private static double rate(Path p) {
    Matcher m = RATE.matcher(read(p).orElse(""));
    return m.matches() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** A Linux CPU list: {@code 0-3,8,10-11}. */
  static BitSet cpuList(String text) {
    BitSet b = new BitSet();
    for (String part : text.strip().split(",")) {
      if (part.isBlank()) {
        continue;
      }
      String[] r = part.strip().split("-");
      int from = Integer.parseInt(r[0]);
      b.set(from, (r.length > 1 ? Integer.parseInt(r[1]) : from) + 1);
    }
    return b;
  }

  private static int hex(Path p) {
    String s = read(p).orElse("0").strip();
    try {
      return Integer.parseInt(s.startsWith("0x") ? s.substring(2) : s, 16);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static OptionalInt integer(Path p) {
    try {
      Optional<String> s = read(p);
      return s.isEmpty() ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(s.get().strip()));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  private static Optional<String> read(Path p) {
    try {
      return Optional.of(Files.readString(p, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Optional.empty(); // a file this kernel does not have, or a device without it
    }
  }

  private static List<Path> list(Path dir) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      s.forEach(out::add);
    } catch (IOException e) {
      // no such folder: nothing of that kind
    }
    out.sort(null);
    return out;
  }
}
