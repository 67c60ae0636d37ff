package io.apptrace.kernel;

import io.apptrace.node.CataloguePeak;
import io.apptrace.node.GpuSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/** Made-up GPUs with round figures, for checking the model's equations by hand. */
final class TestGpus {
  private TestGpus() {}

  /**
   * 100 SMs, 10 TFLOP/s FP32, 1000 GB/s, 4 MiB L2, 2048 threads / 32 blocks / 65536 registers /
   * 96 KiB per SM, 300 W, volta (12 nm): x = 300 / 10 / 12 = 2.5, never power-capped below 2.5.
   */
  static GpuSpec big() {
    return gpu("Big", "volta", 100, 10e12, 1000e9, 4 << 20, 2048, 300);
  }

  /** 40 SMs, 8 TFLOP/s, 320 GB/s, 4 MiB L2, 1024 threads per SM, 70 W, turing (12 nm): x = 70 / 8 / 12 = 0.729. */
  static GpuSpec small() {
    return gpu("Small", "turing", 40, 8e12, 320e9, 4 << 20, 1024, 70);
  }

  static GpuSpec gpu(String name, String arch, int sms, double fp32, double bw, double l2, int threads, double tdp) {
    return new GpuSpec(name, List.of(), arch, "7.0", OptionalInt.of(sms), OptionalDouble.of(1.5e9),
        OptionalDouble.of(16.0 * (1L << 30)), OptionalDouble.of(bw), OptionalDouble.of(l2), Map.of(CataloguePeak.FP32, fp32),
        Optional.of(new GpuSpec.PerSm(threads, threads == 1024 ? 16 : 32, 65536, 96 * 1024)), OptionalDouble.of(tdp),
        List.of());
  }

  /** As {@code g} without the figures named ({@code fp32}, {@code bandwidth}, {@code l2}, {@code sms}, {@code tdp}). */
  static GpuSpec without(GpuSpec g, String... figures) {
    List<String> f = List.of(figures);
    return new GpuSpec(g.name(), g.aliases(), g.architecture(), g.computeCapability(),
        f.contains("sms") ? OptionalInt.empty() : g.sms(), g.boostClockHz(), g.memoryBytes(),
        f.contains("bandwidth") ? OptionalDouble.empty() : g.memoryBandwidth(),
        f.contains("l2") ? OptionalDouble.empty() : g.l2Bytes(), f.contains("fp32") ? Map.of() : g.peakFlops(),
        g.perSm(), f.contains("tdp") ? OptionalDouble.empty() : g.tdpWatts(), g.sources());
  }

  /** Coefficients with flat tables: GEMM efficiency 0.5, elementwise 0.8, reduction 0.4; threshold 1.4. */
  static KernelCoefficients flat() {
    return new KernelCoefficients(1.4, Map.of(KernelClass.GEMM, table(0.5), KernelClass.ELEMENTWISE, table(0.8),
        KernelClass.REDUCTION, table(0.4)), Optional.empty());
  }

  static EfficiencyTable table(double efficiency) {
    return new EfficiencyTable("x", 0, 1, new double[] {Math.log(efficiency), Math.log(efficiency)}, new int[] {9, 9});
  }
}
