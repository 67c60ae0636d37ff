package io.apptrace.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Reading hwloc 2.x XML: the fixture two-socket.xml (hwloc's own lstopo reads it as shown) gives exactly this. */
class TopoHwlocXmlTest {
  /**
   * The fixture, as {@code lstopo-no-graphics --input two-socket.xml --whole-io} draws it:
   *
   * <pre>
   * Package 0: NUMANode P#0 (187 GB), NUMANode(CXL-DRAM) P#2 (64 GB), cores 0 1 (PUs 0,4 1,5)
   *   HostBridge - PCI 00:00.0 (HostBridge)
   *              - PCIBridge 00:01.0 - PCIBridge 01:00.0 (switch up) - PCIBridge 02:08.0 - PCI 03:00.0 (3D)
   *                                                                  - PCIBridge 02:10.0 - PCI 04:00.0 (3D)
   * Package 1: NUMANode P#1 (189 GB), cores 2 3 (PUs 2,6 3,7)
   *   HostBridge - PCIBridge 80:02.0 - PCI 81:00.0 (InfiniBand)
   * </pre>
   */
  static String fixture() throws IOException {
    try (InputStream in = TopoHwlocXmlTest.class.getResourceAsStream("two-socket.xml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void socketsNumaNodesAndCoresAreTheFixtures() throws Exception {
    Machine m = HwlocXml.parse(fixture());
    assertThat(m.source()).isEqualTo("hwloc 2.9.0");
    assertThat(m.sockets()).containsExactly(
        new Machine.Socket(0, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", 2),
        new Machine.Socket(1, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", 2));
    // node 2 shares node 0's cpuset (memory without cores): its cores are counted once, at node 0
    assertThat(m.numaNodes()).containsExactly(
        new Machine.NumaNode(0, 0, 2, OptionalLong.of(201226240000L)),
        new Machine.NumaNode(1, 1, 2, OptionalLong.of(202937286656L)),
        new Machine.NumaNode(2, -1, 0, OptionalLong.of(68719476736L)));
    assertThat(m.cores()).isEqualTo(4);
  }

  @Test
  void thePciTreeKeepsEveryFunctionWithItsParentAndNumaNode() throws Exception {
    Machine m = HwlocXml.parse(fixture());
    Machine.PciLink none = Machine.PciLink.UNKNOWN; // hwloc's XML has no rate or width: /sys gives them
    OptionalInt n0 = OptionalInt.of(0);
    OptionalInt n1 = OptionalInt.of(1);
    assertThat(m.pci()).containsExactly(
        new Machine.PciDevice("0000:00:00.0", 0x0600, 0x8086, 0x2020, Optional.empty(), n0, none),
        new Machine.PciDevice("0000:00:01.0", 0x0604, 0x8086, 0x2030, Optional.empty(), n0, none),
        new Machine.PciDevice("0000:01:00.0", 0x0604, 0x10b5, 0x8747, Optional.of("0000:00:01.0"), n0, none),
        new Machine.PciDevice("0000:02:08.0", 0x0604, 0x10b5, 0x8747, Optional.of("0000:01:00.0"), n0, none),
        new Machine.PciDevice("0000:02:10.0", 0x0604, 0x10b5, 0x8747, Optional.of("0000:01:00.0"), n0, none),
        new Machine.PciDevice("0000:03:00.0", 0x0302, 0x10de, 0x1db4, Optional.of("0000:02:08.0"), n0, none),
        new Machine.PciDevice("0000:04:00.0", 0x0302, 0x10de, 0x1db4, Optional.of("0000:02:10.0"), n0, none),
        new Machine.PciDevice("0000:80:02.0", 0x0604, 0x8086, 0x2032, Optional.empty(), n1, none),
        new Machine.PciDevice("0000:81:00.0", 0x0207, 0x15b3, 0x1017, Optional.of("0000:80:02.0"), n1, none));
  }

  /** Sub-NUMA clustering: one package, two NUMA nodes of one core each, a VGA device local to both. */
  private static final String SNC = """
      <topology version="2.0">
        <object type="Machine" os_index="0" cpuset="0x3" nodeset="0x3">
          <object type="Package" os_index="0" cpuset="0x3" nodeset="0x3">
            <object type="NUMANode" os_index="0" cpuset="0x1" nodeset="0x1" local_memory="1073741824"/>
            <object type="NUMANode" os_index="1" cpuset="0x2" nodeset="0x2" local_memory="1073741824"/>
            <object type="Core" os_index="0" cpuset="0x1" nodeset="0x1"><object type="PU" os_index="0" cpuset="0x1"/></object>
            <object type="Core" os_index="1" cpuset="0x2" nodeset="0x2"><object type="PU" os_index="1" cpuset="0x2"/></object>
            <object type="Bridge" bridge_type="0-1" depth="0" bridge_pci="0000:[00-00]">
              <object type="PCIDev" pci_busid="0000:00:02.0" pci_type="0300 [1234:1111] [0000:0000] 02"/>
            </object>
          </object>
        </object>
      </topology>
      """;

  @Test
  void aDeviceLocalToSeveralNumaNodesHasNone() throws Exception {
    Machine m = HwlocXml.parse(SNC);
    assertThat(m.sockets()).containsExactly(new Machine.Socket(0, "unknown model", 2));
    assertThat(m.numaNodes()).containsExactly(new Machine.NumaNode(0, 0, 1, OptionalLong.of(1L << 30)),
        new Machine.NumaNode(1, 0, 1, OptionalLong.of(1L << 30)));
    assertThat(m.source()).isEqualTo("hwloc 2.x"); // no hwlocVersion info
    assertThat(m.device("0000:00:02.0").orElseThrow().numaNode()).isEmpty();
  }

  @Test
  void bitmapsAreWordsMostSignificantFirst() {
    BitSet b = HwlocXml.bitmap("0x00000001,0x80000003");
    assertThat(b.stream().boxed().toList()).isEqualTo(List.of(0, 1, 31, 32));
    assertThat(HwlocXml.bitmap("0xf...f,0x00000004").stream().boxed().toList()).isEqualTo(List.of(2));
    assertThat(HwlocXml.bitmap("0x0").isEmpty()).isTrue();
  }

  @Test
  void textThatIsNotHwlocXmlIsRefusedByName() {
    assertThatThrownBy(() -> HwlocXml.parse("<nodes/>")).isInstanceOf(IOException.class)
        .hasMessage("not hwloc XML: the document is a <nodes>, not a <topology>");
    assertThatThrownBy(() -> HwlocXml.parse("<topology><object")).isInstanceOf(IOException.class)
        .hasMessageStartingWith("not valid XML: ");
    assertThatThrownBy(() -> HwlocXml.parse("<topology><object type=\"PCIDev\" pci_busid=\"0000:00:01.0\""
        + " pci_type=\"zz\"/></topology>")).isInstanceOf(IOException.class)
        .hasMessage("hwloc XML: PCI device 0000:00:01.0 has pci_type \"zz\"; expected \"CLASS [VENDOR:DEVICE] ...\"");
  }

  @Test
  void anExternalEntityIsNeverFetched() throws Exception {
    String xml = "<?xml version=\"1.0\"?><!DOCTYPE topology [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
        + "<topology><object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" nodeset=\"0x1\">"
        + "<info name=\"hwlocVersion\" value=\"&x;\"/></object></topology>";
    assertThatThrownBy(() -> HwlocXml.parse(xml)).isInstanceOf(IOException.class);
  }
}
