package io.apptrace.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeSkeleton;
import io.apptrace.node.Topology;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * From made-up NVML facts to a node file skeleton (NVML has never run on a GPU here: docs/TOPO.md).
 * The machine is {@link FakeSysfs}'s: two sockets, two GPUs under one PCIe switch on socket 0.
 */
class TopoSkeletonTest {
  @TempDir Path tmp;

  private static final long V100_MEMORY = 16_945_512_448L; // what NVML reports of a 16 GB V100

  private static GpuFacts gpu(int index, String busId, int nvGen, List<GpuFacts.NvLink> links, Set<Integer> peers) {
    return new GpuFacts(index, "Tesla V100-SXM2-16GB", busId, OptionalLong.of(V100_MEMORY), 3, 16, nvGen, links,
        peers, false);
  }

  private static List<GpuFacts.NvLink> links(GpuFacts.Remote remote, String busId, int n) {
    return java.util.stream.IntStream.range(0, n).mapToObj(l -> new GpuFacts.NvLink(l, remote, busId)).toList();
  }

  private SkeletonWriter.Skeleton skeleton(List<GpuFacts> gpus) throws Exception {
    Topo.Result r = Topo.enumerate(List.of(), FakeSysfs.build(tmp), () -> new GpuProbe.Report(gpus,
        Optional.of("NVML (driver 535.104.05)"), List.of()), phase -> { });
    return SkeletonWriter.write(r, "fixture", "fixture-host");
  }

  /**
   * Two V100s under one PCIe switch (gen3 x16 everywhere; the GPUs idle at 2.5 GT/s) joined by two
   * NVLink 2 bricks:
   *
   * <pre>
   * cpu0 (NUMA 0) --pcie3 x16-- pcisw0 --pcie3 x16-- gpu0 ==nvlink2 x2== gpu1 --pcie3 x16-- pcisw0
   *   |
   *  smp (unknown)
   *   |
   * cpu1 (NUMA 1)          NUMA node 2 has no cores: left out
   * </pre>
   */
  @Test
  void twoGpusUnderASwitchWithAnNvlinkPair() throws Exception {
    SkeletonWriter.Skeleton s = skeleton(List.of(
        gpu(0, "0000:03:00.0", 2, links(GpuFacts.Remote.GPU, "0000:04:00.0", 2), Set.of(1)),
        gpu(1, "0000:04:00.0", 2, links(GpuFacts.Remote.GPU, "0000:03:00.0", 2), Set.of(0))));
    assertThat(s.yaml()).isEqualTo("""
        # A node file skeleton of fixture-host, written by 'apptrace topo' (docs/TOPO.md).
        # Each value written 'unknown' is one topo cannot read from the machine: 'apptrace replay' and
        # 'apptrace model' refuse the file, naming the first, until each is written in (docs/NODE-FORMAT.md)
        # or measured with 'apptrace calibrate'.
        name: "fixture"
        description: "fixture-host: 2 x Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz (4 cores, 2 NUMA nodes), 2 x Tesla V100-SXM2-16GB"
        sources: ["apptrace topo on fixture-host: /sys, NVML (driver 535.104.05)"]
        cpus:
          - {id: cpu0, model: "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", cores: 2, numa_node: 0, memory: "187.4 GiB", memory_bandwidth: unknown}   # socket 0
          - {id: cpu1, model: "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", cores: 2, numa_node: 1, memory: "189.0 GiB", memory_bandwidth: unknown}   # socket 1
        gpus:   # in NVML's order: CUDA's too with CUDA_DEVICE_ORDER=PCI_BUS_ID
          - {id: gpu0, model: "Tesla V100-SXM2-16GB", memory: "15.8 GiB", memory_bandwidth: unknown, copy_engines: unknown}   # 0000:03:00.0
          - {id: gpu1, model: "Tesla V100-SXM2-16GB", memory: "15.8 GiB", memory_bandwidth: unknown, copy_engines: unknown}   # 0000:04:00.0
        switches:
          - {id: pcisw0, type: pcie, model: "PCIe switch 10b5:8747"}   # upstream port 0000:01:00.0
        links:
          - {between: [cpu0, pcisw0], type: pcie, generation: 3, lanes: 16}   # 0000:01:00.0: 8 GT/s x16 at most, now 8 GT/s x16
          - {between: [pcisw0, gpu0], type: pcie, generation: 3, lanes: 16}   # 0000:03:00.0: 8 GT/s x16 at most, now 2.5 GT/s x16
          - {between: [pcisw0, gpu1], type: pcie, generation: 3, lanes: 16}   # 0000:04:00.0: 8 GT/s x16 at most, now 2.5 GT/s x16
          - {between: [gpu0, gpu1], type: nvlink, generation: 2, lanes: 2}   # 2 active NVLink bricks (NVML)
          - {between: [cpu0, cpu1], type: smp, bandwidth: unknown}   # the bus between sockets 0 and 1 (UPI, Infinity Fabric, X-Bus...)
        peer_access: all   # what NVML says of peer reads between each pair
        measured:
          timed: event   # how the times below were taken: event (CUDA events around a synchronous call, as 'apptrace calibrate' times them), gpu (a profiler's span of the copy) or wall
          latency: {pinned_h2d: unknown, pinned_d2h: unknown}   # L+o of a 1-byte copy
        """);
    assertThat(s.notes()).containsExactly("NUMA node 2 has memory but no cores (HBM or CXL memory?); the format has"
        + " no place for it, so it is left out");

    NodeSkeleton read = NodeLoader.parseSkeleton("fixture.yaml", s.yaml(), "fixture.yaml");
    assertThat(read.complete()).isFalse();
    assertThat(read.unknowns()).extracting(NodeSkeleton.Unknown::field).containsExactly("cpus[0].memory_bandwidth",
        "cpus[1].memory_bandwidth", "gpus[0].memory_bandwidth", "gpus[0].copy_engines", "gpus[1].memory_bandwidth",
        "gpus[1].copy_engines", "links[4].bandwidth", "measured.latency.pinned_h2d", "measured.latency.pinned_d2h");
    assertThat(read.node().links().get(3).bandwidth()).isEqualTo(2 * 25e9); // Pearson 2018, Table 2.1: NVLink 2.0 lanes
  }

  /** A replay refuses the skeleton at its first unknown value, with how to fill it in. */
  @Test
  void replayRefusesTheSkeletonNamingTheFirstUnknownValue() throws Exception {
    SkeletonWriter.Skeleton s = skeleton(List.of(gpu(0, "0000:03:00.0", 2, List.of(), Set.of())));
    assertThatThrownBy(() -> NodeLoader.parse("fixture.yaml", s.yaml(), "fixture.yaml"))
        .isInstanceOf(NodeFileException.class)
        .hasMessage("fixture.yaml:9:130: cpus[0].memory_bandwidth: unknown: write the socket's memory bandwidth in the"
            + " file, like \"170 GB/s\" (channels x MT/s x 8 B), or replace it with memory_bus (docs/NODE-FORMAT.md)"
            + " (and 6 more unknown values)");
  }

  /** Filled in, the skeleton is a node like any other: a copy from NUMA node 1 crosses the socket bus. */
  @Test
  void filledInTheSkeletonReplays() throws Exception {
    SkeletonWriter.Skeleton s = skeleton(List.of(gpu(0, "0000:03:00.0", 2, List.of(), Set.of())));
    String filled = s.yaml().replace("memory_bandwidth: unknown", "memory_bandwidth: \"100 GB/s\"")
        .replace("copy_engines: unknown", "copy_engines: 2").replace("bandwidth: unknown", "bandwidth: \"40 GB/s\"")
        .replace("pinned_h2d: unknown", "pinned_h2d: \"9 us\"").replace("pinned_d2h: unknown", "pinned_d2h: \"10 us\"");
    Node n = NodeLoader.parse("filled.yaml", filled, "filled.yaml");
    Topology t = Topology.of(n);
    assertThat(t.hostRoute(1, "gpu0").orElseThrow().describe()).isEqualTo("cpu1 -> cpu0 -> pcisw0 -> gpu0");
    assertThat(t.localNuma("gpu0")).isZero();
    assertThat(new TransferModel(n)).isNotNull();
  }

  /**
   * A DGX-like machine: each GPU's NVLinks go to NVSwitches (one fabric vertex), NVLink 3 bricks of
   * 25 GB/s per direction; one GPU cannot read from the other with peer access.
   */
  @Test
  void nvswitchesBecomeOneFabric() throws Exception {
    SkeletonWriter.Skeleton s = skeleton(List.of(
        gpu(0, "0000:03:00.0", 3, links(GpuFacts.Remote.SWITCH, "0000:c0:00.0", 12), Set.of(1)),
        gpu(1, "0000:04:00.0", 3, links(GpuFacts.Remote.SWITCH, "0000:c1:00.0", 12), Set.of())));
    assertThat(s.yaml()).contains("""
          - {id: nvswitch, type: nvswitch}   # every NVSwitch the GPUs reach, as one fabric
        """).contains("""
          - {between: [gpu0, nvswitch], type: nvlink, generation: 3, lanes: 12, lane_bandwidth: "25 GB/s"}   # 12 active NVLink bricks (NVML)
          - {between: [gpu1, nvswitch], type: nvlink, generation: 3, lanes: 12, lane_bandwidth: "25 GB/s"}   # 12 active NVLink bricks (NVML)
        """).contains("peer_access: none   #");
    assertThat(NodeLoader.parseSkeleton("dgx.yaml", s.yaml(), "dgx.yaml").node().links().get(3).bandwidth())
        .isEqualTo(12 * 25e9);
  }

  /**
   * A POWER9-like GPU: NVLink bricks to its CPU, where it is not in the PCI tree /sys shows and the
   * machine does not say its NUMA node; and an NVLink to something NVML does not list. The NVLink
   * replaces the PCIe link between the same two, and the architecture is unknown.
   */
  @Test
  void nvlinksToTheCpuReplaceItsPcieLink() throws Exception {
    List<GpuFacts.NvLink> l = new java.util.ArrayList<>(links(GpuFacts.Remote.CPU, "0004:00:00.0", 3));
    l.add(new GpuFacts.NvLink(3, GpuFacts.Remote.UNKNOWN, "0007:00:01.0"));
    SkeletonWriter.Skeleton s = skeleton(List.of(new GpuFacts(0, "Tesla V100-SXM2-16GB", "0035:03:00.0",
        OptionalLong.empty(), 4, 16, 0, l, Set.of(), true)));
    assertThat(s.yaml()).contains("""
          - {id: gpu0, model: "Tesla V100-SXM2-16GB", memory: unknown, memory_bandwidth: unknown, copy_engines: unknown}   # 0035:03:00.0, on a board with another GPU
        """).contains("""
          - {between: [cpu0, gpu0], type: nvlink, generation: unknown, lanes: 3, lane_bandwidth: unknown}   # 3 active NVLink bricks (NVML); it replaces the PCIe link between them
        """).doesNotContain("type: pcie").doesNotContain("peer_access");
    assertThat(s.notes()).containsExactly(
        "NUMA node 2 has memory but no cores (HBM or CXL memory?); the format has no place for it, so it is left out",
        "gpu0 (0035:03:00.0): the machine does not say which NUMA node it is attached to; it is joined to cpu0"
            + " (check with 'nvidia-smi topo -m')",
        "gpu0 (0035:03:00.0) is not in the PCI tree; its PCIe link is NVML's maximum, joined to cpu0",
        "gpu0: NVLink 3 leads to 0007:00:01.0, which is not a GPU NVML lists; it is left out");
    assertThat(NodeLoader.parseSkeleton("p9.yaml", s.yaml(), "p9.yaml").unknowns()).extracting(
        NodeSkeleton.Unknown::field).contains("gpus[0].memory", "links[0].generation", "links[0].lane_bandwidth");
  }

  /** No GPU: the skeleton reads as a skeleton, says so, and a replay refuses it. */
  @Test
  void noGpuIsAValidSkeletonButNoNodeToReplayOn() throws Exception {
    SkeletonWriter.Skeleton s = skeleton(List.of());
    assertThat(s.yaml()).contains("gpus: []   # no NVIDIA GPU found: a node needs at least one to be replayed on\n")
        .doesNotContain("measured:");
    assertThat(s.notes()).contains("no NVIDIA GPU found: the skeleton has no gpus; a node needs at least one to be"
        + " replayed on");
    NodeSkeleton read = NodeLoader.parseSkeleton("none.yaml", s.yaml(), "none.yaml");
    assertThat(read.node().gpus()).isEmpty();
    assertThat(read.complete()).isFalse();
    assertThatThrownBy(() -> NodeLoader.parse("none.yaml", s.yaml(), "none.yaml"))
        .hasMessage("none.yaml:11:7: gpus: a node needs at least one GPU");
  }
}
