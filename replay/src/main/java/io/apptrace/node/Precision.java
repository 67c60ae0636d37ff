package io.apptrace.node;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A precision a node file's {@code peak_flops} names (docs/NODE-FORMAT.md): the GPU's fastest dense
 * rate at that precision, on tensor cores where it has them. Each is found in the GPU catalogue
 * under the first of its {@link #catalogue() catalogue peaks} the entry has.
 */
public enum Precision {
  FP64("fp64", List.of(CataloguePeak.FP64)),
  FP32("fp32", List.of(CataloguePeak.FP32)),
  TF32("tf32", List.of(CataloguePeak.TENSOR_TF32)),
  FP16("fp16", List.of(CataloguePeak.TENSOR_FP16, CataloguePeak.FP16)),
  BF16("bf16", List.of(CataloguePeak.TENSOR_BF16, CataloguePeak.BF16)),
  FP8("fp8", List.of(CataloguePeak.TENSOR_FP8)),
  INT8("int8", List.of(CataloguePeak.TENSOR_INT8));

  private final String key;
  private final List<CataloguePeak> catalogue;

  Precision(String key, List<CataloguePeak> catalogue) {
    this.key = key;
    this.catalogue = catalogue;
  }

  /** The name node files and {@code --precision} use ({@code fp32}). */
  public String key() {
    return key;
  }

  /** The catalogue peaks this precision is read from, the first one present winning. */
  public List<CataloguePeak> catalogue() {
    return catalogue;
  }

  /** The precision named {@code key} ({@code fp32}, ...), if there is one. */
  public static Optional<Precision> parse(String key) {
    for (Precision p : values()) {
      if (p.key.equals(key)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Every key, sorted: for error messages that list what is known. */
  public static String known() {
    return Arrays.stream(values()).map(Precision::key).sorted().collect(Collectors.joining(", "));
  }

  @Override
  public String toString() {
    return key;
  }
}
