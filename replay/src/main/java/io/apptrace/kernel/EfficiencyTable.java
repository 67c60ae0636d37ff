package io.apptrace.kernel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A fitted efficiency as a function of one size feature: the natural logarithm of the efficiency
 * at the centre of each bin of width {@code step} from {@code start}, linearly interpolated between
 * centres and held constant beyond the first and last.
 *
 * @param feature how the size feature is computed (documentation, written into the file)
 * @param logEfficiency ln(efficiency) per bin
 * @param samples how many measurements each bin's value is the median of (0: interpolated from
 *     its neighbours)
 */
public record EfficiencyTable(String feature, double start, double step, double[] logEfficiency, int[] samples) {
  /** A bin needs this many measurements for its own median; fewer, and it is interpolated. */
  public static final int MIN_SAMPLES = 5;

  public EfficiencyTable {
    Objects.requireNonNull(feature, "feature");
    if (!(step > 0) || !Double.isFinite(start)) {
      throw new IllegalArgumentException("a table needs a finite start and a positive step");
    }
    if (logEfficiency.length == 0 || logEfficiency.length != samples.length) {
      throw new IllegalArgumentException("a table needs as many sample counts as values, at least one");
    }
    for (double v : logEfficiency) {
      if (!Double.isFinite(v)) {
        throw new IllegalArgumentException("a table value is not a number: " + v);
      }
    }
    logEfficiency = logEfficiency.clone();
    samples = samples.clone();
  }

  /** The efficiency at feature value {@code x}. */
  public double efficiency(double x) {
    int n = logEfficiency.length;
    double p = (x - start) / step - 0.5; // position in units of bins, 0 at the first bin's centre
    if (!(p > 0)) {
      return Math.exp(logEfficiency[0]);
    }
    if (p >= n - 1) {
      return Math.exp(logEfficiency[n - 1]);
    }
    int i = (int) p;
    double f = p - i;
    return Math.exp(logEfficiency[i] * (1 - f) + logEfficiency[i + 1] * f);
  }

  /**
   * Fits a table from measurements: the median of {@code y} (ln efficiency) over the {@code x}
   * in each of the {@code bins} bins from {@code start} (values outside fall in the first or last
   * bin); a bin with fewer than {@link #MIN_SAMPLES} takes the line between its nearest fitted
   * neighbours, or the nearest one's value at the ends.
   *
   * @throws IllegalArgumentException when no bin has enough measurements
   */
  public static EfficiencyTable fit(String feature, double start, double step, int bins, double[] x, double[] y,
      int count) {
    List<List<Double>> byBin = new ArrayList<>(bins);
    for (int b = 0; b < bins; b++) {
      byBin.add(new ArrayList<>());
    }
    for (int i = 0; i < count; i++) {
      int b = (int) Math.floor((x[i] - start) / step);
      byBin.get(Math.max(0, Math.min(bins - 1, b))).add(y[i]);
    }
    double[] v = new double[bins];
    int[] n = new int[bins];
    Arrays.fill(v, Double.NaN);
    for (int b = 0; b < bins; b++) {
      List<Double> ys = byBin.get(b);
      if (ys.size() >= MIN_SAMPLES) {
        v[b] = median(ys);
        n[b] = ys.size();
      }
    }
    fill(v);
    return new EfficiencyTable(feature, start, step, v, n);
  }

  private static double median(List<Double> ys) {
    double[] a = ys.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(a);
    int m = a.length / 2;
    return a.length % 2 == 1 ? a[m] : (a[m - 1] + a[m]) / 2;
  }

  /** Fills the NaN bins from their fitted neighbours. */
  private static void fill(double[] v) {
    int first = -1;
    for (int b = 0; b < v.length; b++) {
      if (!Double.isNaN(v[b])) {
        if (first < 0) {
          Arrays.fill(v, 0, b, v[b]);
        } else {
          for (int k = first + 1; k < b; k++) {
            v[k] = v[first] + (v[b] - v[first]) * (k - first) / (b - first);
          }
        }
        first = b;
      }
    }
    if (first < 0) {
      throw new IllegalArgumentException("no bin has " + MIN_SAMPLES + " measurements");
    }
    Arrays.fill(v, first + 1, v.length, v[first]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EfficiencyTable t && feature.equals(t.feature) && start == t.start && step == t.step
        && Arrays.equals(logEfficiency, t.logEfficiency) && Arrays.equals(samples, t.samples);
  }

  @Override
  public int hashCode() {
    return Objects.hash(feature, start, step, Arrays.hashCode(logEfficiency), Arrays.hashCode(samples));
  }

  @Override
  public String toString() {
    return "EfficiencyTable[" + feature + ", " + logEfficiency.length + " bins from " + start + " by " + step + "]";
  }
}
