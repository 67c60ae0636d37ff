package io.apptrace.topo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading /sys and /proc: the tree {@link FakeSysfs} builds gives exactly this, and what hwloc gives of it. */
class TopoSysfsTest {
  @TempDir Path tmp;

  @Test
  void socketsNumaNodesAndCoresAreTheTrees() throws Exception {
    Machine m = FakeSysfs.build(tmp).machine();
    assertThat(m.source()).isEqualTo("/sys");
    assertThat(m.sockets()).containsExactly(new Machine.Socket(0, FakeSysfs.MODEL, 2),
        new Machine.Socket(1, FakeSysfs.MODEL, 2));
    assertThat(m.numaNodes()).containsExactly(
        new Machine.NumaNode(0, 0, 2, OptionalLong.of(196510000L * 1024)),
        new Machine.NumaNode(1, 1, 2, OptionalLong.of(198180944L * 1024)),
        new Machine.NumaNode(2, -1, 0, OptionalLong.of(67108864L * 1024)));
  }

  @Test
  void thePciTreeHasParentsNumaNodesAndLinks() throws Exception {
    Machine m = FakeSysfs.build(tmp).machine();
    Machine.PciLink x16 = new Machine.PciLink(8, 16, 8, 16);
    Machine.PciLink idle = new Machine.PciLink(2.5, 16, 8, 16);
    OptionalInt n0 = OptionalInt.of(0);
    OptionalInt n1 = OptionalInt.of(1);
    assertThat(m.pci()).containsExactly(
        new Machine.PciDevice("0000:00:00.0", 0x0600, 0x8086, 0x2020, Optional.empty(), n0, Machine.PciLink.UNKNOWN),
        new Machine.PciDevice("0000:00:01.0", 0x0604, 0x8086, 0x2030, Optional.empty(), n0, x16),
        new Machine.PciDevice("0000:01:00.0", 0x0604, 0x10b5, 0x8747, Optional.of("0000:00:01.0"), n0, x16),
        new Machine.PciDevice("0000:02:08.0", 0x0604, 0x10b5, 0x8747, Optional.of("0000:01:00.0"), n0, x16),
        new Machine.PciDevice("0000:02:10.0", 0x0604, 0x10b5, 0x8747, Optional.of("0000:01:00.0"), n0, x16),
        new Machine.PciDevice("0000:03:00.0", 0x0302, 0x10de, 0x1db4, Optional.of("0000:02:08.0"), n0, idle),
        new Machine.PciDevice("0000:04:00.0", 0x0302, 0x10de, 0x1db4, Optional.of("0000:02:10.0"), n0, idle),
        new Machine.PciDevice("0000:80:02.0", 0x0604, 0x8086, 0x2032, Optional.empty(), n1, x16),
        new Machine.PciDevice("0000:81:00.0", 0x0207, 0x15b3, 0x1017, Optional.of("0000:80:02.0"), n1, x16));
  }

  @Test
  void hwlocAndSysfsDescribeTheSameMachine() throws Exception {
    Machine sys = FakeSysfs.build(tmp).machine();
    Machine hw = HwlocXml.parse(TopoHwlocXmlTest.fixture());
    assertThat(hw.sockets()).isEqualTo(sys.sockets());
    assertThat(hw.numaNodes()).isEqualTo(sys.numaNodes());
    assertThat(hw.pci().stream().map(d -> d.busId() + " " + d.parent().orElse("-")).toList())
        .isEqualTo(sys.pci().stream().map(d -> d.busId() + " " + d.parent().orElse("-")).toList());
  }

  @Test
  void linkFilesAsKernelsWriteThem() throws Exception {
    Sysfs s = FakeSysfs.build(tmp);
    Path gpu = tmp.resolve("sys/bus/pci/devices/0000:03:00.0");
    Files.writeString(gpu.resolve("current_link_speed"), "Unknown\n");
    Files.writeString(gpu.resolve("max_link_speed"), "16 GT/s\n"); // kernels before 4.19 wrote no "PCIe"
    Files.writeString(gpu.resolve("numa_node"), "-1\n");
    assertThat(s.link("0000:03:00.0")).isEqualTo(new Machine.PciLink(0, 16, 16, 16));
    assertThat(s.numaNode("0000:03:00.0")).isEmpty();
    assertThat(s.link("0000:00:00.0").known()).isFalse();
    assertThat(List.of(2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 20.0).stream().map(Machine.PciLink::generation).toList())
        .containsExactly(1, 2, 3, 4, 5, 6, 0);
  }

  @Test
  void cpuListsAsTheKernelWritesThem() {
    assertThat(Sysfs.cpuList("0-3,8,10-11\n").stream().boxed().toList()).containsExactly(0, 1, 2, 3, 8, 10, 11);
    assertThat(Sysfs.cpuList("\n").isEmpty()).isTrue();
  }

  @Test
  void noSysfsIsAClearError() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Sysfs(tmp.resolve("none"), tmp).machine())
        .isInstanceOf(java.io.IOException.class)
        .hasMessage(tmp.resolve("none/devices/system/cpu") + " is not there: no Linux /sys to read the CPUs from");
  }
}
