package io.apptrace.calibrate;

import java.util.Arrays;

/**
 * Summary statistics of repeated measurements, in seconds: what each size of a benchmark reports
 * (the median, mean, sample standard deviation, minimum and maximum over its repetitions, as the
 * columns of Pearson's memcpy_summary.csv do).
 */
public record Stats(int count, double median, double mean, double stddev, double min, double max) {
  public Stats {
    if (count < 1) {
      throw new IllegalArgumentException("no samples");
    }
  }

  /** The statistics of {@code samples} (at least one). */
  public static Stats of(double... samples) {
    if (samples.length == 0) {
      throw new IllegalArgumentException("no samples");
    }
    double[] s = samples.clone();
    Arrays.sort(s);
    int n = s.length;
    double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    double sum = 0;
    for (double v : s) {
      sum += v;
    }
    double mean = sum / n;
    double squares = 0;
    for (double v : s) {
      squares += (v - mean) * (v - mean);
    }
    double stddev = n > 1 ? Math.sqrt(squares / (n - 1)) : 0;
    return new Stats(n, median, mean, stddev, s[0], s[n - 1]);
  }

  /** The spread: the standard deviation relative to the median (0 for one sample). */
  public double relativeSpread() {
    return median > 0 ? stddev / median : 0;
  }
}
