package io.apptrace.node;

/** Node files for tests. */
public final class TestNodes {
  private TestNodes() {}

  /** A small valid node: two sockets, two GPUs behind a PCIe switch, one on NVLink. */
  public static final String GOOD = """
      name: test
      description: a node for tests
      cpus:
        - {id: cpu0, model: Xeon, cores: 10, numa_node: 0, memory_bandwidth: "60 GB/s"}
        - id: cpu1
          model: Xeon
          cores: 10
          numa_node: 1
          memory_bus: {width: "256 bit", frequency: "1200 MHz", transfers_per_cycle: 2}
      gpus:
        - {id: gpu0, model: P100, memory: "16 GiB", memory_bandwidth: "732 GB/s", copy_engines: 2,
           peak_flops: {fp64: "5.3 TFLOP/s", fp32: "10.6 TFLOP/s"}}
        - {id: gpu1, model: P100, memory: "16 GiB", memory_bandwidth: "732 GB/s", copy_engines: 2}
      switches:
        - {id: plx0, type: pcie}
      links:
        - {between: [cpu0, plx0], type: pcie, generation: 3, lanes: 16}
        - {between: [plx0, gpu0], type: pcie, generation: 3, lanes: 16}
        - {between: [plx0, gpu1], type: pcie, generation: 3, lanes: 16, overheads: {mrd: 20, mwr: 20, cpld: 20}}
        - {between: [gpu0, gpu1], type: nvlink, generation: 1, lanes: 1}
        - {between: [cpu0, cpu1], type: qpi, bandwidth: "19.2 GB/s", efficiency: 0.6}
      peer_access: [nvlink, pcie-switch]
      measured:
        source: made up for the test
        timed: gpu
        latency: {pinned_h2d: "10 us", pinned_d2h: "11 us"}
        gap: {h2d: "2.5 us"}
        curves:
          pinned_h2d: [["256 B", "0.02 GB/s"], ["1 MiB", "10 GB/s"], ["1 GiB", "12 GB/s"]]
      """;

  public static Node good() throws NodeFileException {
    return NodeLoader.parse("test.yaml", GOOD, "test.yaml");
  }

}
