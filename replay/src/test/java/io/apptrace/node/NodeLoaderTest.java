package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Node files: what loads, and a malformed file per kind of error with its exact message. */
class NodeLoaderTest {
  @TempDir Path tmp;

  @Test
  void aGoodFileLoadsWithEveryQuantityInBaseUnits() throws Exception {
    Node n = TestNodes.good();
    assertThat(n.name()).isEqualTo("test");
    assertThat(n.cpus()).hasSize(2);
    // memory_bus: Memory_BW = bus_width * frequency * transfers_per_cycle (Abdelhafez et al. 2019, sec. IV-C)
    assertThat(n.cpus().get(1).memoryBandwidth()).isEqualTo(256 / 8 * 1200e6 * 2);
    assertThat(n.gpus().get(1).index()).isEqualTo(1);
    assertThat(n.gpus().get(0).peakFlops()).containsEntry(Precision.FP64, 5.3e12);
    Node.Link pcie = n.links().get(0);
    assertThat(pcie.pcie()).hasValueSatisfying(p -> {
      assertThat(p.mps()).isEqualTo(256);
      assertThat(p.mrrs()).isEqualTo(512);
      assertThat(p.rcb()).isEqualTo(64);
      assertThat(p.mrdOverhead()).isEqualTo(12);
    });
    assertThat(n.links().get(2).pcie().orElseThrow().cpldOverhead()).isEqualTo(20);
    assertThat(n.links().get(3).bandwidth()).isEqualTo(20e9); // NVLink 1.0, one lane (Pearson 2018, Table 2.1)
    assertThat(n.links().get(4).efficiency()).isEqualTo(0.6);
    Node two = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("efficiency: 0.6", "efficiency: [0.8, 0.5]"), "t.yaml");
    assertThat(two.links().get(4).efficiency(true)).isEqualTo(0.8); // cpu0 -> cpu1
    assertThat(two.links().get(4).efficiency(false)).isEqualTo(0.5);
    assertThat(two.links().get(4).efficiency()).isEqualTo(0.5);
    assertThat(n.measured().latency()).containsEntry(TransferKind.PINNED_H2D, 10e-6); // exactly as written
    assertThat(n.measured().gapH2d()).hasValue(2.5e-6);
    assertThat(n.measured().gapD2h()).isEmpty();
    assertThat(n.measured().curves()).containsKey(TransferKind.PINNED_H2D);
  }

  private static void fails(String text, String message) {
    assertThatThrownBy(() -> NodeLoader.parse("bad.yaml", text, "bad.yaml"))
        .isInstanceOf(NodeFileException.class).hasMessage(message);
  }

  private static String replace(String from, String to) {
    assertThat(TestNodes.GOOD).contains(from);
    return TestNodes.GOOD.replace(from, to);
  }

  @Test
  void anUnknownKeyIsNamedWithItsPlace() {
    fails(replace("copy_engines: 2}\n", "copy_engines: 2, sm_count: 56}\n"),
        "bad.yaml:13:94: gpus[1].sm_count: unknown key 'sm_count' (see docs/NODE-FORMAT.md for the keys of gpus[1])");
    fails(replace("description:", "descripton:"),
        "bad.yaml:1:1: missing key 'description'");
  }

  @Test
  void aQuantityWithoutItsUnitIsRefused() {
    fails(replace("memory_bandwidth: \"60 GB/s\"", "memory_bandwidth: 60"),
        "bad.yaml:4:72: cpus[0].memory_bandwidth: \"60\" has no unit; write it like \"900 GB/s\"");
    fails(replace("memory: \"16 GiB\", memory_bandwidth: \"732 GB/s\", copy_engines: 2}",
            "memory: \"16 GiB\", memory_bandwidth: \"732 GBps\", copy_engines: 2}"),
        "bad.yaml:13:65: gpus[1].memory_bandwidth: \"732 GBps\" has no known bandwidth unit; write it like"
            + " \"900 GB/s\"");
  }

  @Test
  void aLinkToAnUnknownDeviceIsNamed() {
    fails(replace("between: [plx0, gpu1]", "between: [plx0, gpu7]"),
        "bad.yaml:19:22: links[2].between[1]: no CPU, GPU or switch has the id 'gpu7'");
  }

  @Test
  void aGpuNoLinkReachesIsNamed() {
    String text = TestNodes.GOOD.replace("  - {between: [plx0, gpu1], type: pcie, generation: 3, lanes: 16, overheads:"
        + " {mrd: 20, mwr: 20, cpld: 20}}\n", "").replace("  - {between: [gpu0, gpu1], type: nvlink,"
        + " generation: 1, lanes: 1}\n", "");
    fails(text, "bad.yaml:13:10: gpus[1].id: GPU 'gpu1' is reached by no link; add a link between it and a CPU"
        + " or switch");
  }

  @Test
  void aGpuReachedOnlyThroughAnotherGpuIsNamed() {
    String text = TestNodes.GOOD.replace("  - {between: [plx0, gpu1], type: pcie, generation: 3, lanes: 16, overheads:"
        + " {mrd: 20, mwr: 20, cpld: 20}}\n", "");
    fails(text, "bad.yaml: gpus[1]: GPU 'gpu1' cannot be reached from any CPU's memory (a route may pass CPUs and"
        + " switches, not other GPUs)");
  }

  @Test
  void badValuesAreNamed() {
    fails(replace("lanes: 16}\n  - {between: [plx0, gpu0]", "lanes: 12}\n  - {between: [plx0, gpu0]"),
        "bad.yaml:17:63: links[0].lanes: 12 lanes: PCIe links have 1, 2, 4, 8, 16 or 32");
    fails(replace("type: qpi", "type: hypertransport"),
        "bad.yaml:21:35: links[4].type: unknown link type 'hypertransport' (known: pcie, nvlink, nvlink-c2c,"
            + " xbus, qpi, upi, infinity-fabric, smp)");
    fails(replace("efficiency: 0.6", "efficiency: 1.6"),
        "bad.yaml:21:76: links[4].efficiency: 1.6 is out of range; it must be from 0.01 to 1.0");
    fails(replace("peer_access: [nvlink, pcie-switch]", "peer_access: [nvlink, sometimes]"),
        "bad.yaml:22:23: peer_access[1]: unknown peer access rule 'sometimes' (known: none, all, nvlink,"
            + " pcie-switch, or pairs: [[gpu0, gpu1], ...])");
    fails(replace("pinned_h2d: \"10 us\"", "pinned_h2c: \"10 us\""),
        "bad.yaml:26:13: measured.latency.pinned_h2c: unknown transfer kind 'pinned_h2c' (known: pinned_h2d,"
            + " pinned_d2h, pageable_h2d, pageable_d2h, write_combined_h2d, write_combined_d2h, d2d, peer,"
            + " staged_p2p, prefetch_h2d, prefetch_d2h)");
    fails(replace("numa_node: 1", "numa_node: 0"),
        "bad.yaml:8:16: cpus[1].numa_node: NUMA node 0 is given to two CPUs");
    fails(replace("{id: gpu1,", "{id: gpu0,"), "bad.yaml:13:10: gpus[1].id: the id 'gpu0' is used twice");
  }

  @Test
  void brokenYamlAndHostileDocumentsAreRefused() throws Exception {
    fails("name: [unclosed\n", "bad.yaml:2:1: not valid YAML: expected ',' or ']', but got <stream end>");
    fails("", "bad.yaml: the file is empty; a node file starts with 'name:'");
    fails("- a\n- b\n", "bad.yaml:1:1: a node file is a mapping of keys (name, cpus, gpus, links, ...)");
    StringBuilder bomb = new StringBuilder("a: &a [x, x, x, x, x, x, x, x, x]\n");
    for (int i = 0; i < 30; i++) {
      bomb.append("b").append(i).append(": &b").append(i).append(" [*a, *a, *a, *a, *a, *a, *a, *a]\n");
    }
    assertThatThrownBy(() -> NodeLoader.parse("bomb.yaml", bomb.toString(), "bomb.yaml"))
        .isInstanceOf(NodeFileException.class).hasMessageStartingWith("bomb.yaml")
        .hasMessageContaining("not valid YAML");
    String deep = "a: " + "[".repeat(100) + "]".repeat(100) + "\n";
    fails(deep, "bad.yaml:1:35: nested more than 32 levels deep; no node file is");
  }

  @Test
  void aFileOnDiskIsNamedByItsPath() throws Exception {
    Path f = tmp.resolve("mine.yaml");
    Files.writeString(f, TestNodes.GOOD.replace("name: test", "name: mine"));
    assertThat(NodeLoader.resolve(f.toString()).name()).isEqualTo("mine");
    assertThatThrownBy(() -> NodeLoader.resolve(tmp.resolve("missing.yaml").toString()))
        .hasMessage(tmp.resolve("missing.yaml") + ": no such file");
    assertThatThrownBy(() -> NodeLoader.resolve("no-such-node"))
        .hasMessageStartingWith("no bundled node named 'no-such-node'; bundled: ")
        .hasMessageEndingWith("); give a node file's path to use your own");
  }
}
