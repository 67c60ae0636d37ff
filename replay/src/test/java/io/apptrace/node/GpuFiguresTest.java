package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A node's GPU figures: the catalogue's for its model, unless the node file gives its own. */
class GpuFiguresTest {
  /** TestNodes.GOOD with its first GPU replaced by {@code gpu0}. */
  private static String withGpu0(String gpu0) {
    String from = "  - {id: gpu0, model: P100, memory: \"16 GiB\", memory_bandwidth: \"732 GB/s\", copy_engines: 2,\n"
        + "     peak_flops: {fp64: \"5.3 TFLOP/s\", fp32: \"10.6 TFLOP/s\"}}\n";
    assertThat(TestNodes.GOOD).contains(from);
    return TestNodes.GOOD.replace(from, "  - " + gpu0 + "\n");
  }

  @Test
  void aGpuThatNamesItsModelTakesTheCataloguesFigures() throws Exception {
    Node n = NodeLoader.parse("t.yaml", withGpu0("{id: gpu0, model: Tesla V100-SXM2-32GB, copy_engines: 6}"), "t.yaml");
    Node.Gpu g = n.gpus().get(0);
    GpuSpec v100 = GpuCatalogue.bundled().resolve("Tesla V100-SXM2-32GB");
    assertThat(g.memoryBytes()).isEqualTo(v100.memoryBytes().getAsDouble()).isEqualTo(32.0 * (1L << 30));
    assertThat(g.memoryBandwidth()).isEqualTo(900e9);
    assertThat(g.sms()).isEqualTo(80);
    assertThat(g.clockHz()).hasValue(1530e6);
    // the node format's fp16 is the fastest dense FP16: the tensor cores' where the GPU has them
    assertThat(g.peakFlops()).containsEntry(Precision.FP32, 15.7e12)
        .containsEntry(Precision.FP16, v100.peak(CataloguePeak.TENSOR_FP16).getAsDouble());
    assertThat(g.origins()).containsEntry("memory", GpuFigures.CATALOGUE).containsEntry("memory_bandwidth",
        GpuFigures.CATALOGUE).containsEntry("sms", GpuFigures.CATALOGUE).containsEntry("peak_flops.fp32",
        GpuFigures.CATALOGUE);
    assertThat(g.catalogued()).contains(v100);
    assertThat(g.copyEngines()).isEqualTo(6);
  }

  @Test
  void aFigureTheNodeFileGivesWinsOverTheCataloguesAndReachesTheKernelModel() throws Exception {
    Node n = NodeLoader.parse("t.yaml", withGpu0("{id: gpu0, model: Tesla V100-SXM2-32GB, copy_engines: 6,"
        + " memory_bandwidth: \"1 TB/s\", sms: 84, peak_flops: {fp32: \"16 TFLOP/s\", fp16: \"100 TFLOP/s\"}}"), "t.yaml");
    Node.Gpu g = n.gpus().get(0);
    assertThat(g.memoryBandwidth()).isEqualTo(1e12);
    assertThat(g.sms()).isEqualTo(84);
    assertThat(g.peakFlops()).containsEntry(Precision.FP32, 16e12).containsEntry(Precision.FP16, 100e12)
        .containsEntry(Precision.FP64, 7.8e12);
    assertThat(g.origins()).containsEntry("memory_bandwidth", GpuFigures.NODE_FILE)
        .containsEntry("sms", GpuFigures.NODE_FILE).containsEntry("peak_flops.fp32", GpuFigures.NODE_FILE)
        .containsEntry("peak_flops.fp64", GpuFigures.CATALOGUE).containsEntry("memory", GpuFigures.CATALOGUE);
    GpuSpec spec = g.catalogued().orElseThrow();
    assertThat(spec.name()).isEqualTo("Tesla V100-SXM2-32GB");
    assertThat(spec.memoryBandwidth()).hasValue(1e12);
    assertThat(spec.sms()).hasValue(84);
    assertThat(spec.peak(CataloguePeak.FP32)).hasValue(16e12);
    assertThat(spec.peak(CataloguePeak.TENSOR_FP16)).as("the node's fp16 is the catalogue's tensor_fp16")
        .hasValue(100e12);
    assertThat(spec.l2Bytes()).isEqualTo(GpuCatalogue.bundled().resolve("Tesla V100-SXM2-32GB").l2Bytes());
  }

  @Test
  void anUnknownPrecisionIsOneLineListingTheNodeFormatsPrecisions() {
    assertThatThrownBy(() -> NodeLoader.parse("t.yaml", withGpu0("{id: gpu0, model: Tesla V100-SXM2-32GB,"
        + " copy_engines: 6, peak_flops: {fp17: \"1 TFLOP/s\"}}"), "t.yaml"))
        .isInstanceOf(NodeFileException.class)
        .hasMessageContaining("unknown precision 'fp17' (known: bf16, fp16, fp32, fp64, fp8, int8, tf32)")
        .hasMessageNotContaining("\n");
  }

  /** Each node-format precision is read from the first catalogue peak the GPU has (docs/NODE-FORMAT.md). */
  @Test
  void eachPrecisionIsTheFastestCataloguedPeakOfItsKind() throws Exception {
    GpuSpec p100 = GpuCatalogue.bundled().resolve("Tesla P100-SXM2-16GB");
    GpuSpec a100 = GpuCatalogue.bundled().resolve("NVIDIA A100-SXM4-80GB");
    assertThat(GpuFigures.catalogued(p100, Precision.FP16)).as("no tensor cores: the CUDA cores' fp16")
        .isEqualTo(p100.peak(CataloguePeak.FP16));
    assertThat(GpuFigures.catalogued(a100, Precision.FP16)).isEqualTo(a100.peak(CataloguePeak.TENSOR_FP16));
    assertThat(GpuFigures.catalogued(a100, Precision.TF32)).isEqualTo(a100.peak(CataloguePeak.TENSOR_TF32));
    assertThat(GpuFigures.catalogued(p100, Precision.TF32)).as("TF32 is a tensor-core precision").isEmpty();
  }

  @Test
  void aSetOverrideIsANodeFileFigure() throws Exception {
    Node n = NodeLoader.parse("t.yaml", withGpu0("{id: gpu0, model: Tesla V100-SXM2-32GB, copy_engines: 6}"), "t.yaml",
        List.of(NodeOverride.parse("gpus.gpu0.memory_bandwidth=\"2 TB/s\"")));
    assertThat(n.gpus().get(0).memoryBandwidth()).isEqualTo(2e12);
    assertThat(n.gpus().get(0).origins()).containsEntry("memory_bandwidth", GpuFigures.NODE_FILE);
  }

  @Test
  void anUnknownModelIsOneLineNamingTheNearestCatalogueNames() {
    assertThatThrownBy(() -> NodeLoader.parse("t.yaml", withGpu0("{id: gpu0, model: Tesla V100-SXM2-32G,"
        + " copy_engines: 6}"), "t.yaml"))
        .isInstanceOf(NodeFileException.class)
        .hasMessageStartingWith("t.yaml:11:23: gpus[0].model: no GPU named 'Tesla V100-SXM2-32G' in the GPU catalogue"
            + " (nearest: Tesla V100-SXM2-32GB")
        .hasMessageEndingWith("; name a catalogued GPU ('apptrace gpus' lists them), or write this GPU's memory and"
            + " memory_bandwidth in the file")
        .hasMessageNotContaining("\n");
  }

  /** A GPU the catalogue does not know (a simulated device, a new part) is described by the file's figures alone. */
  @Test
  void anUncataloguedModelWithItsOwnFiguresIsTheFilesAlone() throws Exception {
    Node.Gpu g = NodeLoader.parse("t.yaml", withGpu0("{id: gpu0, model: My New GPU, memory: \"8 GiB\","
        + " memory_bandwidth: \"500 GB/s\", copy_engines: 2}"), "t.yaml").gpus().get(0);
    assertThat(g.catalogued()).isEmpty();
    assertThat(g.memoryBandwidth()).isEqualTo(500e9);
    assertThat(g.peakFlops()).isEmpty();
    assertThat(g.origins()).containsOnly(Map.entry("memory", GpuFigures.NODE_FILE),
        Map.entry("memory_bandwidth", GpuFigures.NODE_FILE));
  }

  @Test
  void everyBundledNodeResolvesEachGpuAgainstTheCatalogue() throws Exception {
    for (String name : BundledNodes.names()) {
      Node n = NodeLoader.bundled(name).orElseThrow();
      for (Node.Gpu g : n.gpus()) {
        String what = name + " " + g.id();
        assertThat(g.catalogued()).as(what).isPresent();
        assertThat(g.memoryBytes()).as(what).isPositive();
        assertThat(g.memoryBandwidth()).as(what).isPositive();
        assertThat(g.sms()).as(what).isPositive();
        assertThat(g.peakFlops()).as(what).containsKey(Precision.FP32);
        assertThat(g.origins().values()).as(what).contains(GpuFigures.CATALOGUE);
      }
    }
  }

  /** The figures in which bundled nodes knowingly differ from the catalogue, each with its source in the file. */
  @Test
  void theBundledNodesOverrideOnlyWhereTheirMachineDiffers() throws Exception {
    Map<String, List<String>> overrides = new java.util.TreeMap<>();
    for (String name : BundledNodes.names()) {
      Node.Gpu g = NodeLoader.bundled(name).orElseThrow().gpus().get(0);
      List<String> own = g.origins().entrySet().stream().filter(e -> e.getValue().equals(GpuFigures.NODE_FILE))
          .map(Map.Entry::getKey).toList();
      if (!own.isEmpty()) {
        overrides.put(name, own);
      }
    }
    assertThat(overrides).isEqualTo(Map.of(
        "a100-pg509", List.of("memory", "memory_bandwidth"),
        "dgx-a100", List.of("memory_bandwidth"),
        "dgx-a100-80gb", List.of("memory_bandwidth"),
        "perlmutter-a100", List.of("memory_bandwidth"),
        "perlmutter-a100-80gb", List.of("memory_bandwidth"),
        "gtx680", List.of("peak_flops.fp64", "peak_flops.fp32"),
        "gtxtitan", List.of("peak_flops.fp32"),
        "node2", List.of("peak_flops.fp32")));
  }
}
