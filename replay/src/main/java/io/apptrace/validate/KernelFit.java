package io.apptrace.validate;

import io.apptrace.node.CataloguePeak;
import io.apptrace.kernel.EfficiencyTable;
import io.apptrace.kernel.KernelClass;
import io.apptrace.kernel.KernelCoefficients;
import io.apptrace.kernel.KernelTimeModel;
import io.apptrace.kernel.PowerCap;
import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Fits the kernel model's coefficients ({@link KernelCoefficients}) to measured kernel times of
 * the training GPUs, and nothing else (docs/ACCURACY.md):
 *
 * <ol>
 *   <li>each row's work is its time above its floor, the least time of its operation on its GPU
 *       (at least 1 us);
 *   <li>GEMM rows (by kernel name) give {@code ln(flops / (work * P32 * cap))} at {@code
 *       log10(flops / SMs)}; elementwise, copy and reduction rows {@code ln(bytes / (work * BW))}
 *       at {@code log2(bytes / L2) + 20}; each table is the median per bin ({@link
 *       EfficiencyTable#fit});
 *   <li>the power-cap threshold is the value, of 0.50, 0.55, ..., 2.50, whose GEMM table predicts
 *       the training GEMM rows with the least WMAPE (the smallest such value on a tie);
 *   <li>the convolutions' threshold is the value, of the same, whose ratio of sustained FP32 carries
 *       the convolutions of each training GPU to every other training GPU with the least mean WMAPE
 *       over those ordered pairs (rows paired by operation and shape); with fewer than two training
 *       GPUs with convolutions, the GEMMs' threshold.
 * </ol>
 */
public final class KernelFit {
  /** The least work a row is taken to have, seconds: below it a time is all floor and noise. */
  static final double MIN_WORK_SECONDS = 1e-6;

  private KernelFit() {}

  /** Measurements of one class on one GPU, in the table's terms. */
  private static final class Samples {
    double[] x = new double[1024];
    double[] y = new double[1024];
    double[] work = new double[1024];
    double[] timeUs = new double[1024];
    double[] flopsOverPeak = new double[1024];
    int[] gpu = new int[1024];
    int n;

    void add(double xi, double yi, double w, double t, double f, int g) {
      if (n == x.length) {
        x = java.util.Arrays.copyOf(x, 2 * n);
        y = java.util.Arrays.copyOf(y, 2 * n);
        work = java.util.Arrays.copyOf(work, 2 * n);
        timeUs = java.util.Arrays.copyOf(timeUs, 2 * n);
        flopsOverPeak = java.util.Arrays.copyOf(flopsOverPeak, 2 * n);
        gpu = java.util.Arrays.copyOf(gpu, 2 * n);
      }
      x[n] = xi;
      y[n] = yi;
      work[n] = w;
      timeUs[n] = t;
      flopsOverPeak[n] = f;
      gpu[n++] = g;
    }
  }

  /**
   * Coefficients fitted to the rows of {@code training}.
   *
   * @param fittedTo what the coefficients file will say it was fitted to
   * A class without {@link EfficiencyTable#MIN_SAMPLES} rows in one bin gets no table (the model
   * prices it by a ratio).
   *
   * @throws DataException when no class gets a table
   */
  public static KernelCoefficients fit(List<KernelTimesCsv.Row> data, GpuCatalogue catalogue, List<GpuSpec> training,
      KernelCoefficients.FittedTo fittedTo) throws DataException {
    Map<String, Optional<GpuSpec>> gpus = KernelValidation.gpus(data, catalogue);
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < training.size(); i++) {
      index.put(training.get(i).name(), i);
    }
    Map<String, Double> floors = new HashMap<>();
    for (KernelTimesCsv.Row r : data) {
      gpus.get(r.gpu()).filter(g -> index.containsKey(g.name()))
          .ifPresent(g -> floors.merge(g.name() + '\u0000' + r.op(), r.timeUs(), Math::min));
    }
    Map<String, Map<String, double[]>> convs = new HashMap<>(); // GPU -> op and shape -> {time, floor}, us
    Samples gemm = new Samples();
    Map<KernelClass, Samples> memory = new EnumMap<>(KernelClass.class);
    for (KernelTimesCsv.Row r : data) {
      Optional<GpuSpec> g = gpus.get(r.gpu()).filter(x -> index.containsKey(x.name()));
      if (g.isEmpty()) {
        continue;
      }
      GpuSpec s = g.get();
      double floor = floors.get(s.name() + '\u0000' + r.op());
      double w = Math.max((r.timeUs() - floor) * 1e-6, MIN_WORK_SECONDS);
      KernelClass k = KernelClass.of(r.kernelName() != null ? r.kernelName() : r.op());
      if (k == KernelClass.CONVOLUTION) {
        convs.computeIfAbsent(s.name(), x -> new HashMap<>())
            .putIfAbsent(r.op() + '\u0000' + r.shape(), new double[] {r.timeUs(), floor});
      }
      if (k == KernelClass.GEMM && r.flops() > 0 && s.sms().isPresent() && s.peak(CataloguePeak.FP32).isPresent()) {
        double p = s.peak(CataloguePeak.FP32).getAsDouble();
        gemm.add(Math.log10(r.flops() / s.sms().getAsInt()), Math.log(r.flops() / (w * p)), w, r.timeUs(),
            r.flops() / p, index.get(s.name()));
      } else if ((k == KernelClass.ELEMENTWISE || k == KernelClass.COPY || k == KernelClass.REDUCTION) && r.bytes() > 0
          && s.memoryBandwidth().isPresent() && s.l2Bytes().isPresent()) {
        double x = Math.log(r.bytes() / s.l2Bytes().getAsDouble()) / Math.log(2) + 20;
        memory.computeIfAbsent(k == KernelClass.REDUCTION ? k : KernelClass.ELEMENTWISE, c -> new Samples())
            .add(x, Math.log(r.bytes() / (w * s.memoryBandwidth().getAsDouble())), w, r.timeUs(), 0, index.get(s.name()));
      }
    }
    Map<KernelClass, EfficiencyTable> tables = new EnumMap<>(KernelClass.class);
    for (Map.Entry<KernelClass, Samples> e : memory.entrySet()) {
      table(KernelTimeModel.MEMORY_FEATURE, KernelTimeModel.MEMORY_START, KernelTimeModel.MEMORY_STEP,
          KernelTimeModel.MEMORY_BINS, e.getValue(), e.getValue().y).ifPresent(t -> tables.put(e.getKey(), t));
    }
    double threshold = 1.0;
    if (enough(gemm)) {
      double best = Double.POSITIVE_INFINITY;
      EfficiencyTable bestTable = null;
      for (int step = 0; step <= 40; step++) {
        double th = 0.5 + 0.05 * step;
        double[] lnCap = lnCaps(training, th);
        double[] y = new double[gemm.n];
        for (int i = 0; i < gemm.n; i++) {
          y[i] = gemm.y[i] - lnCap[gemm.gpu[i]];
        }
        EfficiencyTable t = table(KernelTimeModel.GEMM_FEATURE, KernelTimeModel.GEMM_START,
            KernelTimeModel.GEMM_STEP, KernelTimeModel.GEMM_BINS, gemm, y).orElseThrow();
        double err = gemmWmape(gemm, t, lnCap);
        if (err < best) {
          best = err;
          bestTable = t;
          threshold = th;
        }
      }
      tables.put(KernelClass.GEMM, bestTable);
    }
    if (tables.isEmpty()) {
      throw new DataException("nothing to fit: no kernel class has " + EfficiencyTable.MIN_SAMPLES
          + " measurements of one size (GEMMs with flops, elementwise and reduction kernels with bytes_min)");
    }
    double gemmThreshold = Math.round(threshold * 100) / 100.0;
    double convThreshold = convThreshold(convs, training).orElse(gemmThreshold);
    return new KernelCoefficients(gemmThreshold, convThreshold, tables, Optional.of(fittedTo));
  }

  /**
   * The convolutions' power-cap threshold: the least mean WMAPE over the ordered pairs of training
   * GPUs of {@code floor_a + (t_a - floor_a) * S_a / S_b} against {@code t_b}, S the power-capped
   * FP32 peak; empty with fewer than two GPUs with convolutions in common.
   */
  private static OptionalDouble convThreshold(Map<String, Map<String, double[]>> convs,
      List<GpuSpec> training) {
    List<GpuSpec[]> gpuPairs = new ArrayList<>();
    List<double[][]> rows = new ArrayList<>(); // per pair: {t_a, floor_a, t_b} per shared row
    for (GpuSpec a : training) {
      for (GpuSpec b : training) {
        Map<String, double[]> ra = convs.get(a.name());
        Map<String, double[]> rb = convs.get(b.name());
        if (a == b || ra == null || rb == null || a.peak(CataloguePeak.FP32).isEmpty() || b.peak(CataloguePeak.FP32).isEmpty()) {
          continue;
        }
        List<double[]> shared = new ArrayList<>();
        ra.forEach((key, v) -> {
          double[] w = rb.get(key);
          if (w != null) {
            shared.add(new double[] {v[0], v[1], w[0]});
          }
        });
        if (!shared.isEmpty()) {
          gpuPairs.add(new GpuSpec[] {a, b});
          rows.add(shared.toArray(new double[0][]));
        }
      }
    }
    if (gpuPairs.isEmpty()) {
      return OptionalDouble.empty();
    }
    double best = Double.POSITIVE_INFINITY;
    double bestThreshold = Double.NaN;
    for (int step = 0; step <= 40; step++) {
      double th = 0.5 + 0.05 * step;
      double sum = 0;
      for (int p = 0; p < gpuPairs.size(); p++) {
        double r = PowerCap.sustainedFp32(gpuPairs.get(p)[0], th).getAsDouble()
            / PowerCap.sustainedFp32(gpuPairs.get(p)[1], th).getAsDouble();
        double err = 0;
        double total = 0;
        for (double[] v : rows.get(p)) {
          err += Math.abs(v[1] + (v[0] - v[1]) * r - v[2]);
          total += v[2];
        }
        sum += err / total;
      }
      if (sum < best) {
        best = sum;
        bestThreshold = th;
      }
    }
    return OptionalDouble.of(Math.round(bestThreshold * 100) / 100.0);
  }

  private static double[] lnCaps(List<GpuSpec> training, double threshold) {
    double[] out = new double[training.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Math.log(PowerCap.fraction(training.get(i), threshold));
    }
    return out;
  }

  /** A table, or empty when no bin has enough measurements (the model then falls back to a ratio). */
  private static Optional<EfficiencyTable> table(String feature, double start, double step, int bins, Samples s,
      double[] y) {
    try {
      return Optional.of(EfficiencyTable.fit(feature, start, step, bins, s.x, y, s.n));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Whether some GEMM bin will have enough measurements. */
  private static boolean enough(Samples s) {
    Map<Integer, Integer> perBin = new HashMap<>();
    for (int i = 0; i < s.n; i++) {
      int b = Math.max(0, Math.min(KernelTimeModel.GEMM_BINS - 1,
          (int) Math.floor((s.x[i] - KernelTimeModel.GEMM_START) / KernelTimeModel.GEMM_STEP)));
      if (perBin.merge(b, 1, Integer::sum) >= EfficiencyTable.MIN_SAMPLES) {
        return true;
      }
    }
    return false;
  }

  /** WMAPE of {@code floor + flops / (P32 * cap * e)} over the training GEMM rows. */
  private static double gemmWmape(Samples s, EfficiencyTable t, double[] lnCap) {
    double err = 0;
    double sum = 0;
    for (int i = 0; i < s.n; i++) {
      double floorUs = s.timeUs[i] - s.work[i] * 1e6;
      double predictedUs = floorUs + s.flopsOverPeak[i] / (Math.exp(lnCap[s.gpu[i]]) * t.efficiency(s.x[i])) * 1e6;
      err += Math.abs(predictedUs - s.timeUs[i]);
      sum += s.timeUs[i];
    }
    return err / sum;
  }
}
