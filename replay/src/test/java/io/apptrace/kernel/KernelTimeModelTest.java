package io.apptrace.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The kernel model's equations (docs/COST-MODEL.md, "Kernels on another GPU") on made-up GPUs with
 * round figures and flat efficiency tables ({@link TestGpus#flat}: GEMM 0.5, elementwise 0.8,
 * reduction 0.4; power-cap threshold 1.4).
 */
class KernelTimeModelTest {
  private static final KernelTimeModel MODEL = new KernelTimeModel(TestGpus.flat());
  private static final GpuSpec BIG = TestGpus.big();
  private static final GpuSpec SMALL = TestGpus.small();
  /** Small's power cap: x = 70 W / 8 TFLOP/s / 12 nm = 0.729, fraction 0.729 / 1.4 = 0.521. */
  private static final double CAP_SMALL = 70.0 / 8 / 12 / 1.4;

  @Test
  void powerCapFractionIsTdpOverPeakPerNmOverTheThreshold() {
    assertThat(PowerCap.wattsPerTflopPerNm(SMALL)).hasValue(70.0 / 8 / 12);
    assertThat(PowerCap.fraction(SMALL, 1.4)).isCloseTo(CAP_SMALL, offset(1e-12));
    assertThat(PowerCap.fraction(BIG, 1.4)).as("x = 2.5 is above the threshold").isEqualTo(1.0);
    assertThat(PowerCap.fraction(TestGpus.without(SMALL, "tdp"), 1.4)).as("no TDP: no cap").isEqualTo(1.0);
    // the catalogue's T4 and P4 are capped, its 250 W GPUs are not
    GpuCatalogue c = GpuCatalogue.bundled();
    assertThat(PowerCap.fraction(c.find("Tesla T4").orElseThrow(), 1.4)).isBetween(0.4, 0.6);
    assertThat(PowerCap.fraction(c.find("Tesla P4").orElseThrow(), 1.4)).isBetween(0.5, 0.7);
    for (String g : new String[] {"Tesla P100-PCIE-16GB", "Tesla V100-PCIE-32GB", "NVIDIA A100-PCIE-40GB",
        "NVIDIA H100 80GB HBM3"}) {
      assertThat(PowerCap.fraction(c.find(g).orElseThrow(), 1.4)).as(g).isEqualTo(1.0);
    }
  }

  /** GEMM: t = floor + flops / (P32 * cap * e_gemm); the source's time does not enter. */
  @Test
  void gemmTimeIsFloorPlusFlopsOverSustainedPeakTimesEfficiency() {
    KernelFacts f = KernelFacts.of("volta_sgemm_128x64_nn", 1e-3).withFlops(4e9).withFloorSeconds(5e-6);
    Prediction p = MODEL.predict(f, BIG, SMALL);
    assertThat(p.method()).isEqualTo(Prediction.Method.GEMM_EFFICIENCY);
    assertThat(p.kernelClass()).isEqualTo(KernelClass.GEMM);
    assertThat(p.seconds()).isCloseTo(5e-6 + 4e9 / (8e12 * CAP_SMALL * 0.5), offset(1e-15));
    assertThat(MODEL.predict(f.withMeasuredSeconds(7e-3), BIG, SMALL).seconds()).isEqualTo(p.seconds());
  }

  /** Elementwise: t = floor + bytes / (BW * e_elementwise); reduction with its own table. */
  @Test
  void memoryTimeIsFloorPlusBytesOverBandwidthTimesEfficiency() {
    KernelFacts add = KernelFacts.of("vectorized_elementwise_kernel", 100e-6).withBytes(64e6).withFloorSeconds(2e-6);
    assertThat(MODEL.predict(add, BIG, SMALL).seconds()).isCloseTo(2e-6 + 64e6 / (320e9 * 0.8), offset(1e-15));
    KernelFacts norm = KernelFacts.of("layer_norm_kernel", 100e-6).withBytes(64e6).withFloorSeconds(2e-6);
    Prediction p = MODEL.predict(norm, BIG, SMALL);
    assertThat(p.method()).isEqualTo(Prediction.Method.MEMORY_EFFICIENCY);
    assertThat(p.seconds()).isCloseTo(2e-6 + 64e6 / (320e9 * 0.4), offset(1e-15));
  }

  /** The floor scales with neither ratio: t = floor + (t_from - floor) * ratio. */
  @Test
  void theFloorIsKeptAndOnlyTheWorkScales() {
    KernelFacts f = KernelFacts.of("vectorized_elementwise_kernel", 30e-6).withFloorSeconds(25e-6);
    Prediction p = MODEL.predict(f, BIG, SMALL);
    assertThat(p.method()).isEqualTo(Prediction.Method.BANDWIDTH_RATIO);
    assertThat(p.seconds()).isCloseTo(25e-6 + 5e-6 * 1000 / 320.0, offset(1e-15));
    // a kernel shorter than the floor is all floor
    assertThat(MODEL.predict(KernelFacts.of("elementwise", 1e-6), BIG, SMALL).seconds()).isEqualTo(1e-6);
    // without a floor in the facts, the default floor
    assertThat(MODEL.predict(KernelFacts.of("elementwise", 12e-6), BIG, SMALL).seconds())
        .isCloseTo(KernelTimeModel.DEFAULT_FLOOR_SECONDS + 10e-6 * 1000 / 320.0, offset(1e-15));
  }

  /** Convolutions and GEMMs without FLOPs: the ratio of power-capped FP32 peaks. */
  @Test
  void convolutionsScaleBySustainedFp32() {
    KernelFacts f = KernelFacts.of("cudnn_infer_volta_scudnn_winograd_128x128", 102e-6).withFloorSeconds(2e-6);
    Prediction p = MODEL.predict(f, BIG, SMALL);
    assertThat(p.method()).isEqualTo(Prediction.Method.SUSTAINED_FP32_RATIO);
    assertThat(p.seconds()).isCloseTo(2e-6 + 100e-6 * 10e12 / (8e12 * CAP_SMALL), offset(1e-15));
  }

  /**
   * Convolutions take their own power-cap threshold, GEMMs without FLOPs the GEMMs': with 1.0 for
   * convolutions the Small GPU (x = 0.729) sustains 0.729 of its peak on them, and 0.729 / 1.4 on
   * GEMMs.
   */
  @Test
  void convolutionsUseTheirOwnPowerCapThreshold() {
    KernelTimeModel m = new KernelTimeModel(new KernelCoefficients(1.4, 1.0, TestGpus.flat().tables(),
        Optional.empty()));
    double x = 70 / 8.0 / 12;
    KernelFacts conv = KernelFacts.of("implicit_convolve_sgemm", 102e-6).withFloorSeconds(2e-6);
    assertThat(m.predict(conv, BIG, SMALL).seconds()).isCloseTo(2e-6 + 100e-6 * 10e12 / (8e12 * x), offset(1e-15));
    KernelFacts gemm = KernelFacts.of("volta_sgemm_128x64_nn", 102e-6).withFloorSeconds(2e-6);
    assertThat(m.predict(gemm, BIG, SMALL).seconds())
        .isCloseTo(2e-6 + 100e-6 * 10e12 / (8e12 * x / 1.4), offset(1e-15));
  }

  /** Other kernels with FLOPs and bytes: the ratio of rooflines max(F / (P * cap), B / BW) (Choi et al. 2020). */
  @Test
  void otherKernelsScaleByTheRatioOfRooflines() {
    KernelFacts f = KernelFacts.of("my_kernel", 102e-6).withFloorSeconds(2e-6).withFlops(1e9).withBytes(1e8);
    double from = Math.max(1e9 / 10e12, 1e8 / 1000e9);
    double to = Math.max(1e9 / (8e12 * CAP_SMALL), 1e8 / 320e9);
    Prediction p = MODEL.predict(f, BIG, SMALL);
    assertThat(p.method()).isEqualTo(Prediction.Method.ROOFLINE_RATIO);
    assertThat(p.seconds()).isCloseTo(2e-6 + 100e-6 * to / from, offset(1e-15));
    assertThat(KernelAlternatives.rooflineRatio(f, BIG, SMALL, 1.4)).isCloseTo(p.seconds(), offset(1e-15));
  }

  @Test
  void communicationAndTheSameGpuKeepTheMeasurement() {
    Prediction nccl = MODEL.predict(KernelFacts.of("ncclKernel_AllReduce_RING_LL_Sum_float", 1e-3), BIG, SMALL);
    assertThat(nccl.seconds()).isEqualTo(1e-3);
    assertThat(nccl.method()).isEqualTo(Prediction.Method.KEPT);
    assertThat(nccl.notes()).anyMatch(n -> n.contains("communication"));
    KernelFacts gemm = KernelFacts.of("volta_sgemm_128x64_nn", 1e-3).withFlops(4e9);
    assertThat(MODEL.predict(gemm, BIG, BIG).seconds()).isEqualTo(1e-3);
  }

  @Test
  void aMissingFigureIsNamedAndTheNextRatioUsed() {
    KernelFacts gemm = KernelFacts.of("volta_sgemm_128x64_nn", 102e-6).withFlops(4e9).withFloorSeconds(2e-6);
    Prediction p = MODEL.predict(gemm, BIG, TestGpus.without(SMALL, "fp32"));
    assertThat(p.method()).isEqualTo(Prediction.Method.BANDWIDTH_RATIO);
    assertThat(p.seconds()).isCloseTo(2e-6 + 100e-6 * 1000 / 320.0, offset(1e-15));
    assertThat(p.notes()).contains("Small lacks peak_flops.fp32 (GEMM efficiency)", "Small lacks peak_flops.fp32",
        "scaled by the bandwidth-ratio instead");
    KernelFacts add = KernelFacts.of("elementwise_kernel", 102e-6).withBytes(1e6).withFloorSeconds(2e-6);
    Prediction q = MODEL.predict(add, BIG, TestGpus.without(SMALL, "l2", "bandwidth"));
    assertThat(q.method()).isEqualTo(Prediction.Method.SUSTAINED_FP32_RATIO);
    assertThat(q.notes()).contains("Small lacks l2_cache (memory efficiency)", "Small lacks memory_bandwidth");
    Prediction none = MODEL.predict(add, BIG, TestGpus.without(SMALL, "l2", "bandwidth", "fp32"));
    assertThat(none.method()).isEqualTo(Prediction.Method.KEPT);
    assertThat(none.seconds()).isEqualTo(102e-6);
    assertThat(none.notes()).contains("no figure to scale by: the measured time kept");
  }

  @Test
  void withoutAMeasuredTimeTheBytesGiveALowerBound() {
    Prediction p = MODEL.predict(KernelFacts.named("my_kernel").withBytes(32e6), BIG, SMALL);
    assertThat(p.lowerBound()).isTrue();
    assertThat(p.method()).isEqualTo(Prediction.Method.LOWER_BOUND);
    assertThat(p.seconds()).isCloseTo(KernelTimeModel.DEFAULT_FLOOR_SECONDS + 32e6 / 320e9, offset(1e-15));
    // a GEMM with its FLOPs needs no measurement
    Prediction g = MODEL.predict(KernelFacts.named("sgemm").withFlops(4e9), BIG, SMALL);
    assertThat(g.lowerBound()).isFalse();
    assertThat(g.method()).isEqualTo(Prediction.Method.GEMM_EFFICIENCY);
  }

  @Test
  void theBundledModelPredictsEveryCataloguedGpu() {
    KernelFacts f = KernelFacts.of("volta_sgemm_128x64_nn", 1e-3).withFlops(2e10).withFloorSeconds(3e-5);
    GpuSpec v100 = GpuCatalogue.bundled().find("Tesla V100-PCIE-32GB").orElseThrow();
    for (GpuSpec g : GpuCatalogue.bundled().gpus()) {
      Prediction p = KernelTimeModel.bundled().predict(f, v100, g);
      assertThat(p.seconds()).as(g.name()).isPositive().isFinite();
    }
  }

  @Test
  void aZeroTimeOrZeroBytesIsAValidFact() {
    Prediction p = MODEL.predict(KernelFacts.of("elementwise_kernel", 0).withBytes(0), BIG, SMALL);
    assertThat(p.seconds()).isZero();
  }
}
