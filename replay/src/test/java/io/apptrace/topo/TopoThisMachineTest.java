package io.apptrace.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On this machine: the NUMA nodes, cores and PCI devices topo reports are those /sys lists, read
 * here without topo's code, and those hwloc's own tools report where they are installed ({@code
 * apt-get install hwloc libhwloc15}); without them those checks are skipped, saying so.
 */
class TopoThisMachineTest {
  private static final GpuProbe NO_GPUS = () -> new GpuProbe.Report(List.of(), Optional.empty(), List.of());
  private static final Path SYS = Path.of("/sys");

  @BeforeAll
  static void linux() {
    assumeThat(Files.isDirectory(SYS.resolve("devices/system/cpu"))).as("no Linux /sys on this machine").isTrue();
  }

  private static Topo.Result topo(List<String> hwloc) throws IOException {
    return Topo.enumerate(hwloc, Sysfs.system(), NO_GPUS, phase -> { });
  }

  /** The machine through libhwloc; the test is skipped, with topo's note, where it is not installed. */
  private static Machine throughHwloc() throws IOException {
    Topo.Result r = topo(Hwloc.NAMES);
    assumeThat(r.machine().source()).as("libhwloc is not usable here (%s)", r.notes()).startsWith("hwloc 2.");
    return r.machine();
  }

  @Test
  void sysfsPathReportsWhatSysLists() throws Exception {
    assertSameAsSys(topo(List.of()).machine());
  }

  @Test
  void hwlocPathReportsWhatSysLists() throws Exception {
    Machine m = throughHwloc();
    assertSameAsSys(m);
    // the PCI links come from /sys in both paths
    Machine s = topo(List.of()).machine();
    assertThat(m.pci().stream().map(Machine.PciDevice::link).toList())
        .isEqualTo(s.pci().stream().map(Machine.PciDevice::link).toList());
  }

  private static void assertSameAsSys(Machine m) throws IOException {
    assertThat(m.numaNodes()).hasSize(sysNumaNodes());
    assertThat(m.cores()).isEqualTo(sysCores());
    if (!m.numaNodes().isEmpty()) { // every core is in one NUMA node
      assertThat(m.numaNodes().stream().mapToInt(Machine.NumaNode::cores).sum()).isEqualTo(sysCores());
    }
    assertThat(m.pci().stream().map(Machine.PciDevice::busId).toList()).isEqualTo(sysPci());
  }

  @Test
  void hwlocToolsReportTheSameNumaNodesCoresAndPciDevices() throws Exception {
    assumeThat(onPath("hwloc-calc") && onPath("lstopo-no-graphics")).as("hwloc's tools are not installed here"
        + " ('apt-get install hwloc')").isTrue();
    Machine m = throughHwloc();
    assertThat(m.numaNodes()).hasSize(Integer.parseInt(run("hwloc-calc", "--number-of", "numanode", "all").strip()));
    assertThat(m.cores()).isEqualTo(Integer.parseInt(run("hwloc-calc", "--number-of", "core", "all").strip()));
    Set<String> listed = new TreeSet<>();
    for (String only : List.of("pcidev", "bridge")) {
      Matcher b = Pattern.compile("busid=([0-9a-f]+:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7])")
          .matcher(run("lstopo-no-graphics", "-v", "--whole-io", "--only", only));
      while (b.find()) {
        listed.add(b.group(1));
      }
    }
    assertThat(m.pci().stream().map(Machine.PciDevice::busId).toList()).isEqualTo(new ArrayList<>(listed));
  }

  @Test
  void aMissingLibhwlocIsNamedWithItsPackageAndSysIsRead() throws Exception {
    Topo.Result r = topo(List.of("libhwloc-absent.so.99"));
    assertThat(r.notes()).containsExactly("libhwloc not found: install the 'libhwloc15' package (Debian/Ubuntu) or"
        + " 'hwloc-libs' (RHEL); continuing with /sys");
    assertThat(r.machine().source()).isEqualTo("/sys");
    assertSameAsSys(r.machine());
  }

  private static int sysNumaNodes() throws IOException {
    Path nodes = SYS.resolve("devices/system/node");
    if (!Files.isDirectory(nodes)) {
      return 0;
    }
    try (Stream<Path> s = Files.list(nodes)) {
      return (int) s.filter(p -> p.getFileName().toString().matches("node\\d+")).count();
    }
  }

  /** Physical cores: distinct sibling lists of the online CPUs. */
  private static int sysCores() throws IOException {
    Set<String> cores = new HashSet<>();
    try (Stream<Path> s = Files.list(SYS.resolve("devices/system/cpu"))) {
      for (Path cpu : s.filter(p -> p.getFileName().toString().matches("cpu\\d+")).toList()) {
        Path online = cpu.resolve("online");
        if (Files.exists(online) && Files.readString(online).strip().equals("0")) {
          continue;
        }
        Path siblings = cpu.resolve("topology/thread_siblings_list");
        cores.add(Files.exists(siblings) ? Files.readString(siblings).strip() : cpu.getFileName().toString());
      }
    }
    return cores.size();
  }

  private static List<String> sysPci() throws IOException {
    Path devices = SYS.resolve("bus/pci/devices");
    if (!Files.isDirectory(devices)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(devices)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    return path != null && Stream.of(path.split(File.pathSeparator)).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", List.of(command)).isTrue();
    assertThat(p.exitValue()).as("%s: %s", List.of(command), out).isZero();
    return out;
  }
}
