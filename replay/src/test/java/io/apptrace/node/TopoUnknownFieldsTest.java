package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values written {@code unknown} (docs/NODE-FORMAT.md, "unknown"): a skeleton reads with them, a
 * node to replay on is refused at the first, by file, line, column and key path, with how to fill it.
 */
class TopoUnknownFieldsTest {
  @TempDir Path tmp;

  private static String withUnknown(String from, String to) {
    assertThat(TestNodes.GOOD).contains(from);
    return TestNodes.GOOD.replace(from, to);
  }

  private static void refused(String text, String message) {
    assertThatThrownBy(() -> NodeLoader.parse("t.yaml", text, "t.yaml")).isInstanceOf(NodeFileException.class)
        .hasMessage(message);
  }

  @Test
  void eachKindOfUnknownValueIsNamedWithHowToFillIt() {
    refused(withUnknown("memory_bandwidth: \"732 GB/s\", copy_engines: 2}\n", "memory_bandwidth: unknown, copy_engines: 2}\n"),
        "t.yaml:13:65: gpus[1].memory_bandwidth: unknown: write the GPU's memory bandwidth from its datasheet in the"
            + " file, like \"900 GB/s\"");
    refused(withUnknown("memory_bandwidth: \"732 GB/s\", copy_engines: 2}\n", "memory_bandwidth: \"732 GB/s\","
            + " copy_engines: unknown}\n"),
        "t.yaml:13:91: gpus[1].copy_engines: unknown: write the GPU's number of copy engines in the file"
            + " (asyncEngineCount; CUDA's deviceQuery prints it)");
    refused(withUnknown("memory_bandwidth: \"60 GB/s\"}", "memory_bandwidth: unknown}"),
        "t.yaml:4:72: cpus[0].memory_bandwidth: unknown: write the socket's memory bandwidth in the file, like"
            + " \"170 GB/s\" (channels x MT/s x 8 B), or replace it with memory_bus (docs/NODE-FORMAT.md)");
    refused(withUnknown("bandwidth: \"19.2 GB/s\"", "bandwidth: unknown"),
        "t.yaml:21:51: links[4].bandwidth: unknown: write the link's bandwidth per direction in the file, like"
            + " \"64 GB/s\", from the datasheet");
    refused(withUnknown("pinned_d2h: \"11 us\"", "pinned_d2h: unknown"),
        "t.yaml:26:46: measured.latency.pinned_d2h: unknown: measure it on the machine with 'apptrace calibrate', or"
            + " delete it to use what a missing value falls back to (docs/NODE-FORMAT.md, measured)");
    refused(withUnknown("cores: 10, numa_node: 0", "cores: unknown, numa_node: 0"),
        "t.yaml:4:36: cpus[0].cores: unknown: write its value in the file, like a whole number (docs/NODE-FORMAT.md)");
    refused(withUnknown("{between: [cpu0, plx0], type: pcie, generation: 3, lanes: 16}",
            "{between: [cpu0, plx0], type: pcie, generation: unknown, lanes: 16}"),
        "t.yaml:17:53: links[0].generation: unknown: write its value in the file, like a whole number"
            + " (docs/NODE-FORMAT.md)");
  }

  @Test
  void theFirstUnknownValueIsNamedWithHowManyMoreThereAre() {
    String text = TestNodes.GOOD.replace("memory_bandwidth: \"732 GB/s\"", "memory_bandwidth: unknown")
        .replace("copy_engines: 2", "copy_engines: unknown");
    refused(text, "t.yaml:11:65: gpus[0].memory_bandwidth: unknown: write the GPU's memory bandwidth from its"
        + " datasheet in the file, like \"900 GB/s\" (and 3 more unknown values)");
  }

  @Test
  void aSkeletonReadsWithItsUnknownValuesListed() throws Exception {
    String text = TestNodes.GOOD.replace("memory_bandwidth: \"732 GB/s\"", "memory_bandwidth: unknown")
        .replace("{between: [cpu0, plx0], type: pcie, generation: 3, lanes: 16}",
            "{between: [cpu0, plx0], type: pcie, generation: unknown, lanes: unknown}");
    Path file = tmp.resolve("skeleton.yaml");
    Files.writeString(file, text);
    NodeSkeleton s = NodeLoader.loadSkeleton(file);
    assertThat(s.unknowns()).extracting(NodeSkeleton.Unknown::field).containsExactly("gpus[0].memory_bandwidth",
        "gpus[1].memory_bandwidth", "links[0].generation", "links[0].lanes");
    assertThat(s.unknowns().get(0).where()).isEqualTo(file + ":11:65");
    assertThat(s.complete()).isFalse();
    assertThat(s.node().gpus().get(0).memoryBandwidth()).isNaN(); // a placeholder, never priced
    assertThat(NodeLoader.parseSkeleton("t.yaml", TestNodes.GOOD, "t.yaml").complete()).isTrue();
  }

  @Test
  void unknownIsNoValueWhereTopoAlwaysKnowsIt() {
    refused(withUnknown("numa_node: 0,", "numa_node: unknown,"),
        "t.yaml:4:51: cpus[0].numa_node: \"unknown\" is not a whole number");
    refused(withUnknown("efficiency: 0.6", "efficiency: unknown"),
        "t.yaml:21:76: links[4].efficiency: \"unknown\" is not a number");
  }

  @Test
  void aSetToUnknownIsRefusedAtTheSet() throws Exception {
    assertThatThrownBy(() -> NodeLoader.resolve("ac922", List.of(NodeOverride.parse("gpus.gpu0.copy_engines=unknown"))))
        .isInstanceOf(NodeFileException.class)
        .hasMessage("--set gpus.gpu0.copy_engines=unknown: gpus[0].copy_engines: unknown: write the GPU's number of"
            + " copy engines in the file (asyncEngineCount; CUDA's deviceQuery prints it)");
  }
}
