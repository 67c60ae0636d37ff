package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The node-file writer: every node it writes reads back as the same node (write, load, equal), for
 * every bundled node and the test node; and its quoting is the one every writer of node files uses.
 */
class NodeYamlTest {
  @Test
  void everyBundledNodeReadsBackAsItself() throws Exception {
    for (String name : BundledNodes.names()) {
      Node n = NodeLoader.bundled(name).orElseThrow();
      String text = NodeYaml.write(n);
      assertThat(NodeLoader.parse(name + ".yaml", text, n.source())).as(name).isEqualTo(n);
    }
  }

  @Test
  void aNodeWithEveryKindOfFieldReadsBackAsItself() throws Exception {
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("efficiency: 0.6", "efficiency: {read: 0.7, write: 0.4}")
        .replace("  gap: {h2d: \"2.5 us\"}\n", "  gap: {h2d: \"2.5 us\"}\n  memset: \"1.5 us\"\n  staging_chunk: \"2 MiB\"\n"
            + "  memcpy_bandwidth: {cpu1: \"7.3 GB/s\"}\n  page_fault: {cpu_to_gpu: \"24.1 us\"}\n"
            + "  fitted_to: [{file: \"a b.csv\", sha256: " + "0".repeat(64) + "}]\n"), "t.yaml");
    assertThat(NodeLoader.parse("t.yaml", NodeYaml.write(n), "t.yaml")).isEqualTo(n);
  }

  @Test
  void aNodeWithHostOverheadsKeepsThemAndTheirSource() throws Exception {
    String section = "host_overheads:\n  source: \"apptrace calibrate on node7\"\n  device_alloc: \"6.25 us\"\n"
        + "  host_register_per_mib: \"420 us\"\n  host_free_per_mib: \"0 us\"\n";
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD + section, "t.yaml");
    // a cost per MiB may be zero: the call's cost does not grow with the bytes
    assertThat(n.hostOverheads().overridden()).containsExactlyInAnyOrder(ApiClass.DEVICE_ALLOC,
        ApiClass.HOST_REGISTER, ApiClass.HOST_FREE);
    assertThat(n.hostOverheads().costNs(ApiClass.HOST_FREE, 1L << 30)).isEqualTo(HostOverheads.defaults()
        .costNs(ApiClass.HOST_FREE, 0));
    String text = NodeYaml.write(n);
    assertThat(text).contains("host_overheads: {source: \"apptrace calibrate on node7\", device_alloc: \"6250 ns\"");
    Node back = NodeLoader.parse("t.yaml", text, "t.yaml");
    assertThat(back).isEqualTo(n);
    assertThat(back.hostOverheads().costNs(ApiClass.HOST_REGISTER, 1L << 20))
        .isEqualTo(HostOverheads.defaults().costNs(ApiClass.HOST_REGISTER, 0) + 420_000);
    // a section that only names its source keeps it too
    Node sourced = NodeLoader.parse("t.yaml", TestNodes.GOOD + "host_overheads: {source: \"mine\"}\n", "t.yaml");
    assertThat(NodeLoader.parse("t.yaml", NodeYaml.write(sourced), "t.yaml")).isEqualTo(sourced);
    // a node with the defaults writes no section
    assertThat(NodeYaml.write(NodeLoader.parse("t.yaml", TestNodes.GOOD, "t.yaml"))).doesNotContain("host_overheads");
  }

  @Test
  void quotingEscapesQuotesAndBackslashesAndDropsControlCharacters() {
    assertThat(NodeYaml.quote("Intel(R) \"Xeon\" C:\\x\u0007")).isEqualTo("\"Intel(R) \\\"Xeon\\\" C:\\\\x\"");
  }
}
