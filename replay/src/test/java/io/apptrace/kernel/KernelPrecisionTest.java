package io.apptrace.kernel;

import io.apptrace.node.CataloguePeak;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The precision a kernel's name says, and the peak that bounds it on each GPU. */
class KernelPrecisionTest {
  private static final GpuCatalogue CAT = GpuCatalogue.bundled();

  @ParameterizedTest
  @CsvSource({
      "ampere_sgemm_128x64_nn, FP32",
      "volta_sgemm_64x64_tn, FP32",
      "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>, TF32",
      "volta_s884gemm_fp16_128x128_ldg8_f2f_nn, FP16",
      "turing_h1688gemm_256x128_ldg8_tn, FP16",
      "volta_h884cudnn_256x64_ldg8_relu_exp_small_nhwc_tn_v1, FP16",
      "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize96x128x32, BF16",
      "ampere_i8816gemm_int8_256x128_ldg16, INT8",
      "volta_dgemm_64x64_nn, FP64",
      "gemm_train_fp16mixed, FP16",
      "'', FP32"})
  void theNameSaysThePrecision(String name, KernelPrecision expected) {
    assertThat(KernelPrecision.of(name)).isEqualTo(expected);
  }

  /** Tensor cores where the GPU has them for the precision, else the CUDA cores. */
  @Test
  void thePeakIsTheTensorCoresWhereTheGpuHasThem() throws Exception {
    GpuSpec a100 = CAT.resolve("NVIDIA A100-SXM4-80GB");
    GpuSpec v100 = CAT.resolve("Tesla V100-SXM2-32GB");
    GpuSpec p100 = CAT.resolve("Tesla P100-SXM2-16GB");
    assertThat(KernelPrecision.TF32.peakKey(a100)).contains(CataloguePeak.TENSOR_TF32);
    assertThat(KernelPrecision.TF32.peakKey(v100)).contains(CataloguePeak.FP32);
    assertThat(KernelPrecision.FP16.peakKey(v100)).contains(CataloguePeak.TENSOR_FP16);
    assertThat(KernelPrecision.FP16.peakKey(p100)).contains(CataloguePeak.FP16);
    assertThat(KernelPrecision.FP32.peakKey(a100)).contains(CataloguePeak.FP32);
  }

  /**
   * A TF32 tensor-core GEMM measured on an A100 and replayed on a V100 (no TF32 tensor cores: its
   * CUDA cores' FP32): the work times 156 / 15.7 TFLOP/s, both GPUs uncapped.
   */
  @Test
  void aTensorCoreGemmScalesByThePeaksOfItsPrecision() throws Exception {
    GpuSpec a100 = CAT.resolve("NVIDIA A100-SXM4-80GB");
    GpuSpec v100 = CAT.resolve("Tesla V100-SXM2-32GB");
    KernelFacts f = KernelFacts.of("cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1", 1002e-6)
        .withFloorSeconds(2e-6).withFlops(1e12);
    Prediction p = KernelTimeModel.bundled().predict(f, a100, v100);
    assertThat(p.method()).isEqualTo(Prediction.Method.SUSTAINED_PEAK_RATIO);
    assertThat(p.seconds()).isCloseTo(2e-6 + 1000e-6 * a100.peak(CataloguePeak.TENSOR_TF32).getAsDouble()
        / v100.peak(CataloguePeak.FP32).getAsDouble(), offset(1e-12));
    assertThat(p.notes()).anyMatch(n -> n.startsWith("tf32 on NVIDIA A100-SXM4-80GB at its tensor_tf32"));
    // an FP32 GEMM with its FLOPs is priced from them, as before
    KernelFacts s = KernelFacts.of("ampere_sgemm_128x64_nn", 1002e-6).withFloorSeconds(2e-6).withFlops(1e12);
    assertThat(KernelTimeModel.bundled().predict(s, a100, v100).method())
        .isEqualTo(Prediction.Method.GEMM_EFFICIENCY);
  }
}
