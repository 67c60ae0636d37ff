package io.apptrace.kernel;

import io.apptrace.node.CataloguePeak;
import io.apptrace.node.GpuSpec;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The arithmetic a GEMM or convolution kernel runs, told from its name, and the catalogue peak that
 * bounds it on a GPU: on tensor cores where the GPU has them for that precision, else on the CUDA
 * cores (docs/COST-MODEL.md, "Kernels on another GPU"). cuBLAS, cuDNN and CUTLASS name their
 * kernels by it: {@code s884gemm} (Volta: FP16 inputs on tensor cores, FP32 out), {@code h1688gemm},
 * {@code h16816gemm} (FP16), {@code cutlass_80_tensorop_s1688gemm} (single precision through TF32
 * tensor cores), {@code bf16}, {@code i8816} (INT8), {@code dgemm} (FP64); PyTorch's and
 * DeepBench's names say {@code fp16}, {@code half}, {@code bf16}. A name that says none is FP32.
 */
public enum KernelPrecision {
  FP32("fp32", List.of(CataloguePeak.FP32)),
  TF32("tf32", List.of(CataloguePeak.TENSOR_TF32, CataloguePeak.FP32)),
  FP16("fp16", List.of(CataloguePeak.TENSOR_FP16, CataloguePeak.FP16, CataloguePeak.FP32)),
  BF16("bf16", List.of(CataloguePeak.TENSOR_BF16, CataloguePeak.BF16, CataloguePeak.FP32)),
  INT8("int8", List.of(CataloguePeak.TENSOR_INT8, CataloguePeak.FP32)),
  FP64("fp64", List.of(CataloguePeak.TENSOR_FP64, CataloguePeak.FP64));

  private final String key;
  private final List<CataloguePeak> peaks;

  KernelPrecision(String key, List<CataloguePeak> peaks) {
    this.key = key;
    this.peaks = peaks;
  }

  public String key() {
    return key;
  }

  /** The precision a kernel's name says; FP32 for a name that says none (or no name). */
  public static KernelPrecision of(String name) {
    if (name == null) {
      return FP32;
    }
    String n = name.toLowerCase(Locale.ROOT);
    if (KernelClass.has(n, "i8816", "i8832", "imma", "int8")) {
      return INT8;
    }
    if (KernelClass.has(n, "bf16")) {
      return BF16;
    }
    if (KernelClass.has(n, "h884", "h1688", "h16816", "s884", "hmma", "fp16", "half", "f16f16")) {
      return FP16;
    }
    if (KernelClass.has(n, "tf32") || (n.contains("tensorop") && KernelClass.has(n, "s1688", "s16816"))) {
      return TF32;
    }
    if (KernelClass.has(n, "dgemm", "d884", "dmma", "fp64", "double")) {
      return FP64;
    }
    return FP32;
  }

  /**
   * The catalogue peak that bounds this precision on {@code gpu}: the first it has of, for FP16,
   * {@code tensor_fp16}, {@code fp16}, {@code fp32}; for TF32 {@code tensor_tf32}, {@code fp32}
   * (without TF32 tensor cores single precision runs on the CUDA cores); for BF16 {@code
   * tensor_bf16}, {@code bf16}, {@code fp32}; for INT8 {@code tensor_int8}, {@code fp32}; for FP64
   * {@code tensor_fp64}, {@code fp64}. Empty when it has none of them.
   */
  public Optional<CataloguePeak> peakKey(GpuSpec gpu) {
    return peaks.stream().filter(p -> gpu.peak(p).isPresent()).findFirst();
  }

  /** {@link #peakKey}'s value, times the GPU's power-cap fraction ({@link PowerCap}); empty without one. */
  public OptionalDouble sustainedPeak(GpuSpec gpu, double threshold) {
    Optional<CataloguePeak> k = peakKey(gpu);
    return k.isEmpty() ? OptionalDouble.empty()
        : OptionalDouble.of(gpu.peak(k.get()).getAsDouble() * PowerCap.fraction(gpu, threshold));
  }
}
