package io.apptrace.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Kernel classes from the names cuBLAS, cuDNN, CUTLASS, PyTorch and NCCL give their kernels. */
class KernelClassTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "maxwell_sgemm_128x64_nn | GEMM",
      "volta_sgemm_32x128_tn | GEMM",
      "ampere_sgemm_64x32_sliced1x4_tn | GEMM",
      "sgemm_128x128x8_NT_vec | GEMM",
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params) | GEMM",
      "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false> | GEMM",
      "cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1 | CONVOLUTION",
      "void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>(int) | CONVOLUTION",
      "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw | CONVOLUTION",
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> > | ELEMENTWISE",
      "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int) | REDUCTION",
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false> | REDUCTION",
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> > | REDUCTION",
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 4> | COPY",
      "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*) | COMMUNICATION",
      "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL | COMMUNICATION",
      "my_custom_kernel | OTHER",
      "'' | OTHER"})
  void theClassComesFromTheName(String name, KernelClass expected) {
    assertThat(KernelClass.of(name)).isEqualTo(expected);
  }
}
