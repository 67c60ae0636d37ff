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
  void quotingEscapesQuotesAndBackslashesAndDropsControlCharacters() {
    assertThat(NodeYaml.quote("Intel(R) \"Xeon\" C:\\x\u0007")).isEqualTo("\"Intel(R) \\\"Xeon\\\" C:\\\\x\"");
  }
}
