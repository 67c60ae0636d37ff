package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.NodeLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Node names as users type them: aliases, any case, and a hint when a name is unknown. */
class NodeNamesTest {
  @ParameterizedTest
  @CsvSource({"dgx1, dgx1", "dgx-1, dgx1", "DGX1, dgx1", "DGX-1, dgx1", "Minsky1, s822lc", "AC922, ac922"})
  void aliasesAndAnyCaseNameTheBundledNode(String typed, String node) {
    Cli r = Cli.run("model", "--node", typed, "--bytes", "1MiB");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith(node + ": ");
  }

  @ParameterizedTest
  @CsvSource({"dgx-h10, dgx-h100", "ac92, ac922", "sumit, summit", "dgx1v100, dgx1-v100"})
  void anUnknownNameGetsTheNearestOnes(String typed, String meant) {
    Cli r = Cli.run("model", "--node", typed, "--bytes", "1MiB");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("no bundled node named '" + typed + "'").contains("did you mean")
        .contains(meant).doesNotContain("Exception");
    assertThat(r.err().lines().count()).isEqualTo(1);
  }

  @Test
  void nodesShowPrintsABundledNodesFile() throws Exception {
    Cli r = Cli.run("nodes", "--show", "DGX-1");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith(NodeLoader.bundledFile("dgx1")).contains("name: dgx1").contains("links:");
    // then where each GPU figure came from: dgx1 takes them all from the catalogue
    assertThat(r.out()).contains("#   gpu0 to gpu7: Tesla P100-SXM2-16GB\n")
        .containsPattern("#     memory_bandwidth +732.00 GB/s +catalogue\n")
        .containsPattern("#     peak_flops.fp32 +10.6 TFLOP/s +catalogue\n");
    // a figure the file writes is the node file's
    assertThat(Cli.run("nodes", "--show", "gtx680").out())
        .containsPattern("#     peak_flops.fp32 +3.09 TFLOP/s +node file\n")
        .containsPattern("#     memory_bandwidth +192.20 GB/s +catalogue\n");
    // what it prints is a node file that loads as the bundled one
    assertThat(NodeLoader.parse("mine.yaml", r.out(), "dgx1").gpus()).hasSize(8);
    Cli unknown = Cli.run("nodes", "--show", "dgx-h10");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("did you mean dgx-h100");
  }
}
