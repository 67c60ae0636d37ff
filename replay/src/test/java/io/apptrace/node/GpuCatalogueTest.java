package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The bundled GPU catalogue loads, names match, and a bad file is one clear line. */
class GpuCatalogueTest {
  @Test
  void theBundledCatalogueLoadsWithTheDatasheetFiguresOfTheNeuSightGpus() {
    GpuCatalogue c = GpuCatalogue.bundled();
    assertThat(c.gpus()).hasSizeGreaterThan(40);
    GpuSpec t4 = c.find("tesla t4").orElseThrow();
    assertThat(t4.sms()).hasValue(40);
    assertThat(t4.memoryBandwidth()).hasValue(320e9);
    assertThat(t4.peak(CataloguePeak.FP32)).hasValue(8.1e12);
    assertThat(t4.tdpWatts()).hasValue(70);
    assertThat(t4.perSm().orElseThrow().threads()).isEqualTo(1024);
    assertThat(t4.architecture()).isEqualTo("turing");
  }

  @ParameterizedTest
  @CsvSource({"Tesla P100-PCIE-16GB", "Tesla P4", "Tesla T4", "Tesla V100-PCIE-32GB", "NVIDIA A100-PCIE-40GB",
      "NVIDIA A100-SXM4-80GB", "NVIDIA A100-PG509-200", "Tesla V100-SXM2-32GB", "NVIDIA H100 80GB HBM3",
      "NVIDIA H100 PCIe", "NVIDIA GH200 480GB", "Tesla K20X", "Tesla P100-SXM2-16GB", "Tesla V100-SXM2-16GB",
      "NVIDIA A100-SXM4-40GB", "NVIDIA L4", "NVIDIA A10G", "NVIDIA B200"})
  void everyGpuOfTheBundledNodesAndOfRealdataIsCatalogued(String name) {
    assertThat(GpuCatalogue.bundled().find(name)).isPresent();
  }

  @Test
  void everyBundledNodesGpuModelIsCatalogued() throws NodeFileException {
    for (Node n : BundledNodes.all()) {
      for (Node.Gpu g : n.gpus()) {
        assertThat(GpuCatalogue.bundled().find(g.model())).as(n.name() + " " + g.model()).isPresent();
      }
    }
  }

  @Test
  void anUnknownNameNamesTheNearestEntries() {
    assertThatThrownBy(() -> GpuCatalogue.bundled().resolve("Tesla V100-PCIE-32G"))
        .isInstanceOf(NodeFileException.class)
        .hasMessageContaining("no GPU named 'Tesla V100-PCIE-32G'")
        .hasMessageContaining("Tesla V100-PCIE-32GB")
        .hasMessageContaining("apptrace gpus");
  }

  @Test
  void aMisspeltKeyIsRefusedWithItsLineAndColumn() {
    String text = """
        gpus:
          - name: X1
            architecture: volta
            compute_capability: "7.0"
            memory_bandwith: "900 GB/s"
        """;
    assertThatThrownBy(() -> GpuCatalogue.parse("c.yaml", text)).isInstanceOf(NodeFileException.class)
        .hasMessage("c.yaml:5:5: gpus[0].memory_bandwith: unknown key 'memory_bandwith' (see docs/NODE-FORMAT.md"
            + " for the keys of gpus[0])");
  }

  @Test
  void aBadUnitSaysHowToWriteIt() {
    String text = """
        gpus:
          - name: X1
            architecture: volta
            compute_capability: "7.0"
            tdp: "300 Watt"
        """;
    assertThatThrownBy(() -> GpuCatalogue.parse("c.yaml", text)).hasMessage(
        "c.yaml:5:10: gpus[0].tdp: \"300 Watt\" has no known power unit; write it like \"300 W\"");
  }

  @Test
  void aNameUsedTwiceIsRefused() {
    String text = """
        gpus:
          - {name: X1, aliases: [X], architecture: volta, compute_capability: "7.0"}
          - {name: X2, aliases: [x], architecture: volta, compute_capability: "7.0"}
        """;
    assertThatThrownBy(() -> GpuCatalogue.parse("c.yaml", text)).hasMessageContaining("the name 'x' is used by two"
        + " entries, X1 and X2");
  }

  @Test
  void anUnknownPrecisionListsTheKnownOnes() {
    String text = """
        gpus:
          - name: X1
            architecture: volta
            compute_capability: "7.0"
            peak_flops: {fp33: "1 TFLOP/s"}
        """;
    assertThatThrownBy(() -> GpuCatalogue.parse("c.yaml", text)).hasMessageContaining("c.yaml:5:18:")
        .hasMessageContaining("unknown precision 'fp33' (known: fp64, fp32");
  }
}
