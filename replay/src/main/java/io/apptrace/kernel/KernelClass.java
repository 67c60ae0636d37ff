package io.apptrace.kernel;

import java.util.Locale;

/**
 * What kind of work a kernel does, told from its name: the class decides which ratio or which
 * fitted efficiency re-times it (docs/COST-MODEL.md, "Kernels on another GPU").
 */
public enum KernelClass {
  /** Dense matrix products: cuBLAS ({@code sgemm}, {@code volta_sgemm_128x64_nn}), CUTLASS, {@code gemv}. */
  GEMM("gemm"),
  /**
   * Convolutions: cuDNN's ({@code scudnn}, {@code winograd}, {@code implicit_convolve_sgemm}),
   * CUTLASS's ({@code implicit_gemm}, {@code fprop}, {@code dgrad}, {@code wgrad}), {@code conv}.
   */
  CONVOLUTION("conv"),
  /** One output element per input element: PyTorch's {@code elementwise_kernel}s, activations. */
  ELEMENTWISE("elementwise"),
  /** Reductions, normalizations, softmax. */
  REDUCTION("reduction"),
  /** Copies and fills done by a kernel. */
  COPY("copy"),
  /** NCCL collectives and sends: their time is the links', kept unchanged. */
  COMMUNICATION("communication"),
  /** Anything else, or no name. */
  OTHER("other");

  private final String key;

  KernelClass(String key) {
    this.key = key;
  }

  /** The class's name in outputs ({@code gemm}, {@code elementwise}, ...). */
  public String key() {
    return key;
  }

  /**
   * The class of a kernel by its (mangled or demangled) name; {@link #OTHER} for an empty or null
   * name. Communication first (an NCCL kernel may contain "reduce"), convolutions before GEMMs
   * (cuDNN's {@code implicit_convolve_sgemm} is a convolution).
   */
  public static KernelClass of(String name) {
    if (name == null || name.isBlank()) {
      return OTHER;
    }
    String n = name.toLowerCase(Locale.ROOT);
    if (n.contains("nccl")) {
      return COMMUNICATION;
    }
    if (has(n, "conv", "winograd", "scudnn", "hcudnn", "fprop", "dgrad", "wgrad", "implicit_gemm")) {
      return CONVOLUTION;
    }
    if (has(n, "gemm", "gemv", "cutlass", "cublas", "matmul")) {
      return GEMM;
    }
    if (has(n, "softmax", "norm", "reduce", "reduction", "welford", "argmax", "argmin", "cumsum", "scan")) {
      return REDUCTION;
    }
    if (has(n, "memcpy", "memset", "copy", "fill", "cat_array", "catarray")) {
      return COPY;
    }
    if (has(n, "elementwise", "pointwise", "activation", "relu", "gelu", "sigmoid", "tanh", "dropout")) {
      return ELEMENTWISE;
    }
    return OTHER;
  }

  /** Whether {@code n} contains any of {@code parts}. */
  static boolean has(String n, String... parts) {
    for (String p : parts) {
      if (n.contains(p)) {
        return true;
      }
    }
    return false;
  }
}
