package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/** What-if overrides, {@code --set PATH=VALUE}: what they change, and each error's exact message. */
class NodeOverridesTest {
  @TempDir Path tmp;

  /** A bundled node with {@code --set}s, each given as the shell hands it over. */
  private static Node node(String name, String... sets) throws Exception {
    List<NodeOverride> overrides = new ArrayList<>();
    for (String s : sets) {
      overrides.add(NodeOverride.parse(s));
    }
    return NodeLoader.resolve(name, overrides);
  }

  private static void refused(String name, String set, String message) {
    assertThatThrownBy(() -> node(name, set)).isInstanceOf(NodeOverrideException.class).hasMessage(message);
  }

  private static void badValue(String name, String set, String message) {
    assertThatThrownBy(() -> node(name, set)).isInstanceOf(NodeFileException.class).hasMessage(message);
  }

  @Test
  void aGpuFieldChangesThatGpuOnlyAndTheSourceSaysSo() throws Exception {
    Node n = node("ac922", "gpus.gpu0.copy_engines=2");
    assertThat(n.gpu("gpu0").orElseThrow().copyEngines()).isEqualTo(2);
    assertThat(n.gpu("gpu1").orElseThrow().copyEngines()).isEqualTo(6);
    assertThat(n.source()).isEqualTo("ac922 (with --set gpus.gpu0.copy_engines=2)");

    Node bw = node("ac922", "gpus.gpu1.memory_bandwidth=2 TB/s");
    assertThat(bw.gpu("gpu1").orElseThrow().memoryBandwidth()).isEqualTo(2e12);
    assertThat(bw.gpu("gpu0").orElseThrow().memoryBandwidth()).isEqualTo(900e9);
  }

  @Test
  void aLinkIsNamedByItsEndsAndItsBandwidthFollowsItsLanes() throws Exception {
    // NVLink 2.0: 25 GB/s a lane per direction (Pearson 2018, Table 2.1); the file gives 3 lanes
    Node nv = node("ac922", "links.cpu0-gpu0.lanes=8");
    Node.Link l = nv.links().stream().filter(x -> x.id().equals("cpu0-gpu0")).findFirst().orElseThrow();
    assertThat(l.bandwidth()).isEqualTo(8 * 25e9);
    assertThat(nv.links().stream().filter(x -> x.id().equals("cpu0-gpu1")).findFirst().orElseThrow().bandwidth())
        .isEqualTo(3 * 25e9);
    // PCIe: the equations' bandwidth at 8 lanes instead of 16
    Node pcie = node("titan", "links.cpu0-gpu0.lanes=8");
    Node.Link p = pcie.links().get(0);
    assertThat(p.pcie().orElseThrow().lanes()).isEqualTo(8);
    assertThat(p.bandwidth()).isEqualTo(PcieGeneration.of(2).linkBandwidth(8));
    assertThat(p.pcie().orElseThrow().mrdOverhead()).isEqualTo(30); // the rest of the link as the file says
  }

  @Test
  void topLevelFieldsAndPeerAccess() throws Exception {
    assertThat(NodeLoader.resolve("ac922").cpuSpeedFactor()).isEqualTo(1.0);
    assertThat(node("ac922", "cpu_speed_factor=2").cpuSpeedFactor()).isEqualTo(2.0);
    assertThat(NodeLoader.resolve("dgx1").peerAccess().rules()).isEqualTo(Set.of("nvlink", "pcie-switch"));
    assertThat(node("dgx1", "peer_access=all").peerAccess().rules()).isEqualTo(Set.of("all"));
    Node pairs = node("dgx1", "peer_access.pairs=[[gpu0, gpu5]]");
    assertThat(pairs.peerAccess().rules()).isEmpty();
    assertThat(pairs.peerAccess().pairs()).isEqualTo(Set.of(Set.of("gpu0", "gpu5")));
  }

  @Test
  void aMeasuredLatencyIsSetOrAdded() throws Exception {
    Map<TransferKind, Double> file = NodeLoader.resolve("titan").measured().latency();
    Node titan = node("titan", "measured.latency.pinned_h2d=5 us");
    assertThat(file.get(TransferKind.PINNED_H2D)).isEqualTo(0.96e-6);
    assertThat(titan.measured().latency()).containsEntry(TransferKind.PINNED_H2D, 5e-6)
        .containsEntry(TransferKind.PINNED_D2H, file.get(TransferKind.PINNED_D2H)).hasSize(file.size());
    // the AC922 file has no latency map (it reuses titan's): the --set adds one
    Node ac = node("ac922", "measured.latency.pinned_h2d=\"5 us\"", "measured.timed=gpu");
    assertThat(ac.measured().latency()).isEqualTo(Map.of(TransferKind.PINNED_H2D, 5e-6));
    assertThat(ac.measured().latencyFrom().map(Node.LatencySource::node)).hasValue("titan");
  }

  @Test
  void aKeyTheFileOmitsButTheFormatAllowsIsAdded() throws Exception {
    assertThat(NodeLoader.resolve("ac922").gpu("gpu0").orElseThrow().implicitSync()).isFalse();
    Node n = node("ac922", "gpus.gpu0.implicit_sync=true");
    assertThat(n.gpu("gpu0").orElseThrow().implicitSync()).isTrue();
    assertThat(n.gpu("gpu1").orElseThrow().implicitSync()).isFalse();
    // a whole missing mapping on the way is added too
    Node o = node("ac922", "measured.gap.h2d=2 us", "measured.timed=gpu");
    assertThat(o.measured().gapH2d()).hasValue(2e-6);
  }

  /** A link's read or write efficiency, and one CPU's memcpy bandwidth, are each a field of their own. */
  @Test
  void anEfficiencyByAccessAndAMemcpyBandwidthByCpuCanBeSet() throws Exception {
    Node s = node("s822lc", "links.cpu0-cpu1.efficiency.write=0.5");
    Node.Link x = s.links().stream().filter(l -> l.id().equals("cpu0-cpu1")).findFirst().orElseThrow();
    assertThat(x.accessEfficiency(false)).isEqualTo(0.5);
    assertThat(x.accessEfficiency(true)).isEqualTo(0.781); // as the file says
    Node d = node("dgx1", "measured.memcpy_bandwidth.cpu0=5 GB/s");
    assertThat(d.measured().memcpyBandwidth()).containsEntry("cpu0", 5e9).containsEntry("cpu1", 9.454e9);
    assertThatThrownBy(() -> node("dgx1", "measured.memcpy_bandwidth.cpu7=5 GB/s"))
        .isInstanceOf(NodeFileException.class).hasMessageContaining("no CPU has the id 'cpu7' (its CPUs: cpu0, cpu1)");
  }

  @Test
  void flowListValues() throws Exception {
    assertThat(node("ac922", "peer_access=[nvlink, pcie-switch]").peerAccess().rules())
        .isEqualTo(Set.of("nvlink", "pcie-switch"));
    Node n = node("ac922", "links.cpu0-cpu1.efficiency=[0.8, 0.5]");
    Node.Link x = n.links().stream().filter(l -> l.id().equals("cpu0-cpu1")).findFirst().orElseThrow();
    assertThat(x.efficiency(true)).isEqualTo(0.8);
    assertThat(x.efficiency(false)).isEqualTo(0.5);
    assertThat(node("ac922", "aliases=[summit-node, witherspoon]").aliases())
        .containsExactly("summit-node", "witherspoon");
  }

  @Test
  void aWholeListItemCanBeSet() throws Exception {
    Node n = node("ac922", "cpus.cpu1={id: cpu1, model: X, cores: 8,"
        + " numa_node: 8, memory_bandwidth: \"100 GB/s\"}");
    assertThat(n.cpu("cpu1").orElseThrow().cores()).isEqualTo(8);
    assertThat(n.cpu("cpu1").orElseThrow().memoryBandwidth()).isEqualTo(100e9);
    assertThat(n.cpu("cpu0").orElseThrow().cores()).isEqualTo(20);
  }

  @Test
  void settingOneOfTwoAlternativesDropsTheOther() throws Exception {
    // ac922 gives its memory as memory_bus; memory_bandwidth replaces it instead of clashing
    Node n = node("ac922", "cpus.cpu0.memory_bandwidth=200 GB/s");
    assertThat(n.cpu("cpu0").orElseThrow().memoryBandwidth()).isEqualTo(200e9);
    assertThat(n.cpu("cpu1").orElseThrow().memoryBandwidth()).isEqualTo(512 / 8 * 1333e6 * 2);
    // dgx-a100's NVLinks give lane_bandwidth; a whole-link bandwidth replaces it
    Node a = node("dgx-a100", "links.gpu0-nvsw.bandwidth=100 GB/s");
    assertThat(a.links().stream().filter(l -> l.id().equals("gpu0-nvsw")).findFirst().orElseThrow().bandwidth())
        .isEqualTo(100e9);
  }

  @Test
  void overridesApplyInOrderAndAllShowInTheSource() throws Exception {
    Node n = node("ac922", "gpus.gpu0.copy_engines=2", "gpus.gpu0.copy_engines=3", "cpu_speed_factor=1.5");
    assertThat(n.gpu("gpu0").orElseThrow().copyEngines()).isEqualTo(3);
    assertThat(n.source()).isEqualTo("ac922 (with --set gpus.gpu0.copy_engines=2 --set gpus.gpu0.copy_engines=3"
        + " --set cpu_speed_factor=1.5)");
  }

  @Test
  void aTypoNamesTheNearestPath() {
    refused("ac922", "gpus.gpu0.copy_engine=2",
        "no field 'gpus.gpu0.copy_engine' in node ac922 (did you mean gpus.gpu0.copy_engines?)");
    refused("ac922", "link.cpu0-gpu0.lanes=8",
        "no field 'link.cpu0-gpu0.lanes' in node ac922 (did you mean links.cpu0-gpu0.lanes?)");
    refused("ac922", "measured.latency.pinned_h2c=5 us",
        "no field 'measured.latency.pinned_h2c' in node ac922 (did you mean measured.latency.pinned_h2d?)");
    refused("ac922", "cpu_speed_factr=2", "no field 'cpu_speed_factr' in node ac922 (did you mean cpu_speed_factor?)");
    refused("ac922", "gpus.gpu0.memroy_bandwidth=1 TB/s",
        "no field 'gpus.gpu0.memroy_bandwidth' in node ac922 (did you mean gpus.gpu0.memory_bandwidth?)");
    // a key the format allows where the file has none is a valid path too
    refused("ac922", "gpus.gpu0.implict_sync=true",
        "no field 'gpus.gpu0.implict_sync' in node ac922 (did you mean gpus.gpu0.implicit_sync?)");
    // nothing goes below a single value
    refused("ac922", "gpus.gpu0.copy_engines.h2d=1",
        "no field 'gpus.gpu0.copy_engines.h2d' in node ac922 (did you mean gpus.gpu0.copy_engines?)");
  }

  @Test
  void anUnknownListItemNamesTheOnesThereAre() {
    refused("ac922", "gpus.gpu9.copy_engines=2", "no GPU 'gpu9' in node ac922 (it has gpu0, gpu1, gpu2, gpu3)");
    refused("ac922", "cpus.cpu2.cores=4", "no CPU 'cpu2' in node ac922 (it has cpu0, cpu1)");
    refused("ac922", "switches.plx0.model=x", "no switch 'plx0' in node ac922 (it has none)");
    refused("ac922", "links.gpu0-cpu0.lanes=8", "no link 'gpu0-cpu0' in node ac922 (it has cpu0-gpu0, cpu0-gpu1,"
        + " gpu0-gpu1, cpu1-gpu2, cpu1-gpu3, gpu2-gpu3, cpu0-cpu1)");
  }

  @Test
  void aValueTheLoaderRefusesIsLocatedAtTheSet() {
    badValue("ac922", "gpus.gpu0.copy_engines=lots",
        "--set gpus.gpu0.copy_engines=lots: gpus[0].copy_engines: \"lots\" is not a whole number");
    badValue("ac922", "gpus.gpu1.memory_bandwidth=900",
        "--set gpus.gpu1.memory_bandwidth=900: gpus[1].memory_bandwidth: \"900\" has no unit; write it like"
            + " \"900 GB/s\"");
    badValue("ac922", "links.cpu0-cpu1.efficiency=[0.8, 1.5]",
        "--set links.cpu0-cpu1.efficiency=[0.8, 1.5]: links[6].efficiency[1]: 1.5 is out of range; it must be"
            + " from 0.01 to 1.0");
    badValue("ac922", "peer_access=sometimes",
        "--set peer_access=sometimes: peer_access: unknown peer access rule 'sometimes' (known: none, all, nvlink,"
            + " pcie-switch, or pairs: [[gpu0, gpu1], ...])");
    badValue("ac922", "gpus.gpu0.sms=", "--set gpus.gpu0.sms=: gpus[0].sms: has no value");
    badValue("ac922", "peer_access=[nvlink", "--set peer_access=[nvlink: not valid YAML: expected ',' or ']', but"
        + " got <stream end>");
    // the mapping a --set adds on its way is located at the --set too
    // (gh200's CPU gives memory_bandwidth: setting memory_bus instead drops it)
    badValue("gh200", "cpus.cpu0.memory_bus.width=256 bit",
        "--set cpus.cpu0.memory_bus.width=256 bit: cpus[0].memory_bus: missing key 'frequency'");
  }

  @Test
  void valuesFromTheFileKeepTheirLineAndColumn() throws Exception {
    String bad = TestNodes.GOOD.replace("numa_node: 1", "numa_node: 0");
    assertThatThrownBy(() -> NodeLoader.parse("bad.yaml", bad, "bad.yaml",
        List.of(NodeOverride.parse("gpus.gpu0.copy_engines=4"))))
        .isInstanceOf(NodeFileException.class).hasMessage("bad.yaml:8:16: cpus[1].numa_node: NUMA node 0 is given to two CPUs");
    // and a --set can fix it
    Node fixed = NodeLoader.parse("bad.yaml", bad, "bad.yaml", List.of(NodeOverride.parse("cpus.cpu1.numa_node=1")));
    assertThat(fixed.cpu("cpu1").orElseThrow().numaNode()).isEqualTo(1);
  }

  @Test
  void overridesNeverChangeTheBundledNodeOtherCallersGet() throws Exception {
    Node before = NodeLoader.bundled("ac922").orElseThrow();
    Node changed = node("ac922", "gpus.gpu0.copy_engines=2", "links.cpu0-gpu0.lanes=8");
    assertThat(changed).isNotSameAs(before);
    Node after = NodeLoader.bundled("ac922").orElseThrow();
    assertThat(after).isSameAs(before);
    assertThat(NodeLoader.resolve("ac922")).isSameAs(before);
    assertThat(NodeLoader.resolve("ac922", List.of())).isSameAs(before);
    assertThat(after.gpu("gpu0").orElseThrow().copyEngines()).isEqualTo(6);
    assertThat(after.links().get(0).bandwidth()).isEqualTo(3 * 25e9);
    assertThat(after.source()).isEqualTo("ac922");
    // a second load with other overrides starts from the file again, not from the first's changes
    assertThat(node("ac922", "cpu_speed_factor=2").gpu("gpu0").orElseThrow().copyEngines()).isEqualTo(6);
  }

  @Test
  void aFileOnDiskTakesOverridesToo() throws Exception {
    Path f = tmp.resolve("mine.yaml");
    Files.writeString(f, TestNodes.GOOD.replace("name: test", "name: mine"));
    Node n = NodeLoader.resolve(f.toString(), List.of(NodeOverride.parse("gpus.gpu1.copy_engines=1")));
    assertThat(n.gpu("gpu1").orElseThrow().copyEngines()).isEqualTo(1);
    assertThat(n.source()).isEqualTo(f + " (with --set gpus.gpu1.copy_engines=1)");
    assertThat(NodeLoader.load(f).gpu("gpu1").orElseThrow().copyEngines()).isEqualTo(2);
    assertThatThrownBy(() -> NodeLoader.resolve(f.toString(), List.of(NodeOverride.parse("gpus.gpu2.sms=1"))))
        .isInstanceOf(NodeOverrideException.class).hasMessage("no GPU 'gpu2' in node mine (it has gpu0, gpu1)");
    assertThatThrownBy(() -> NodeLoader.resolve("no-such-node", List.of(NodeOverride.parse("sms=1"))))
        .isInstanceOf(NodeFileException.class).hasMessageStartingWith("no bundled node named 'no-such-node'");
  }

  @Test
  void parseSplitsAtTheFirstEqualsSign() throws Exception {
    assertThat(NodeOverride.parse("measured.source=a=b")).isEqualTo(new NodeOverride("measured.source", "a=b"));
    assertThat(NodeOverride.parse(" cpu_speed_factor =2")).isEqualTo(new NodeOverride("cpu_speed_factor", "2"));
    assertThat(node("titan", "measured.source=a=b").measured().source()).isEqualTo("a=b");
    assertThatThrownBy(() -> NodeOverride.parse("gpus.gpu0.copy_engines")).isInstanceOf(NodeOverrideException.class)
        .hasMessage("--set gpus.gpu0.copy_engines: no '='; write it PATH=VALUE, like --set gpus.gpu0.copy_engines=2");
    assertThatThrownBy(() -> NodeOverride.parse("=2")).isInstanceOf(NodeOverrideException.class)
        .hasMessage("--set =2: no PATH before '='; write it PATH=VALUE, like --set gpus.gpu0.copy_engines=2");
    assertThatThrownBy(() -> NodeOverride.parse("")).isInstanceOf(NodeOverrideException.class)
        .hasMessage("--set: nothing given; write it PATH=VALUE, like --set gpus.gpu0.copy_engines=2");
  }

  /** Every field every bundled file has can be --set: the override's idea of the format knows all its keys. */
  @Test
  void everyFieldOfEveryBundledNodeIsAValidPath() throws Exception {
    for (String name : BundledNodes.names()) {
      String text = new String(NodeLoader.class.getResourceAsStream(NodeLoader.BUNDLED + name + ".yaml")
          .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      MappingNode root = BoundedYaml.compose(name + ".yaml", text);
      List<String> present = new ArrayList<>();
      present(root, "", present);
      assertThat(NodeOverrides.validPaths(root)).as(name).containsAll(present);
    }
  }

  private static void present(org.snakeyaml.engine.v2.nodes.Node n, String prefix, List<String> out) {
    if (n instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        String p = (prefix.isEmpty() ? "" : prefix + ".") + ((ScalarNode) t.getKeyNode()).getValue();
        out.add(p);
        present(t.getValueNode(), p, out);
      }
    } else if (n instanceof SequenceNode s && Set.of("cpus", "gpus", "switches", "links").contains(prefix)) {
      for (org.snakeyaml.engine.v2.nodes.Node item : s.getValue()) {
        MappingNode m = (MappingNode) item;
        String id = null;
        for (NodeTuple t : m.getValue()) {
          String k = ((ScalarNode) t.getKeyNode()).getValue();
          if (k.equals("id")) {
            id = ((ScalarNode) t.getValueNode()).getValue();
          } else if (k.equals("between")) {
            SequenceNode b = (SequenceNode) t.getValueNode();
            id = ((ScalarNode) b.getValue().get(0)).getValue() + "-" + ((ScalarNode) b.getValue().get(1)).getValue();
          }
        }
        out.add(prefix + "." + id);
        present(m, prefix + "." + id, out);
      }
    }
  }
}
