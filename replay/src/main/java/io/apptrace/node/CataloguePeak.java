package io.apptrace.node;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A dense peak the GPU catalogue's {@code peak_flops} may give (docs/NODE-FORMAT.md, "The GPU
 * catalogue"): a precision on the CUDA cores ({@code fp32}) or on the tensor cores ({@code
 * tensor_fp16}), as the datasheets list them.
 */
public enum CataloguePeak {
  FP64("fp64"),
  FP32("fp32"),
  FP16("fp16"),
  BF16("bf16"),
  TENSOR_FP64("tensor_fp64"),
  TENSOR_TF32("tensor_tf32"),
  TENSOR_FP16("tensor_fp16"),
  TENSOR_BF16("tensor_bf16"),
  TENSOR_FP8("tensor_fp8"),
  TENSOR_INT8("tensor_int8");

  private final String key;

  CataloguePeak(String key) {
    this.key = key;
  }

  /** The name the catalogue file uses ({@code tensor_fp16}). */
  public String key() {
    return key;
  }

  /** The peak named {@code key}, if there is one. */
  public static Optional<CataloguePeak> parse(String key) {
    for (CataloguePeak p : values()) {
      if (p.key.equals(key)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Every key in catalogue order: for error messages that list what is known. */
  public static String known() {
    return Arrays.stream(values()).map(CataloguePeak::key).collect(Collectors.joining(", "));
  }

  @Override
  public String toString() {
    return key;
  }
}
