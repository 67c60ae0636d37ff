package io.apptrace.calibrate;

import io.apptrace.cost.LogGp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Fits the LogGP transfer parameters (docs/COST-MODEL.md; van Werkhoven et al. 2014, sec. V) to measured copy times.
 *
 * <ul>
 *   <li>{@code L + o}: the time of the smallest copy measured, a 1-byte copy where there is one
 *       (Abdelhafez et al. 2019, sec. IV-C; van Werkhoven et al. 2014, sec. V-A), the median where that size was
 * measured more than once.
 *   <li>{@code G}: van Werkhoven et al. 2014, sec. V-A: over n copies of sizes k_1..k_n,
 *       {@code t_1 + ... + t_n = n (L + o) + G (k_1 + ... + k_n)}, so
 *       {@code G = (t_1 + ... + t_n - n (L + o)) / (k_1 + ... + k_n)}. This is the least-squares
 *       fit of {@code t - (L + o) = G k} with weights {@code 1 / k} (a copy's time varies in
 *       proportion to its size): setting the derivative of {@code sum (t_i - (L+o) - G k_i)^2 / k_i}
 *       to zero gives it. <b>Choice</b>: the copies are the sizes above {@link #G_FIT_ABOVE_BYTES}
 *       (1 MiB), where the LogGP form holds (docs/ACCURACY.md: below, the copy engine's pipeline
 *       is still filling); with none measured there, the largest size alone.
 *   <li>{@code g}: k bytes sent as m back-to-back chunks of c bytes take
 *       {@code L + o + m c G + (m - 1) g} (van Werkhoven et al. 2014, sec. V), so the time grows with m at the slope
 *       {@code c G + g}: {@code g} is the least-squares slope over m less {@code c G}.
 * </ul>
 */
public final class LogGpFit {
  /** G is fitted over the sizes above this: 1 MiB. */
  public static final long G_FIT_ABOVE_BYTES = 1L << 20;

  /** A copy of {@code bytes} that took {@code seconds} (a median of repetitions). */
  public record Point(long bytes, double seconds) {
    public Point {
      if (bytes < 1 || !(seconds > 0) || Double.isInfinite(seconds)) {
        throw new IllegalArgumentException("a point needs bytes >= 1 and a positive time: " + bytes + ", " + seconds);
      }
    }
  }

  /**
   * A fit.
   *
   * @param latencySeconds L + o
   * @param secondsPerByte G (0 or less when the times do not grow with the size)
   * @param latencyBytes the size whose time L + o is
   * @param fittedSizes how many sizes G was fitted over
   */
  public record Fit(double latencySeconds, double secondsPerByte, long latencyBytes, int fittedSizes) {
    /** 1 / G: the large-transfer bandwidth (infinite when G is not positive). */
    public double bandwidthBytesPerSec() {
      return secondsPerByte > 0 ? 1 / secondsPerByte : Double.POSITIVE_INFINITY;
    }

    /** The LogGP parameters with a gap g. */
    public LogGp logGp(double gapSeconds) {
      return new LogGp(latencySeconds, secondsPerByte, gapSeconds);
    }
  }

  private LogGpFit() {}

  /**
   * L + o and G of copies of several sizes.
   *
   * @throws IllegalArgumentException if there are no points
   */
  public static Fit fit(List<Point> points) {
    Objects.requireNonNull(points, "points");
    if (points.isEmpty()) {
      throw new IllegalArgumentException("no points to fit");
    }
    List<Point> sorted = new ArrayList<>(points);
    sorted.sort(Comparator.comparingLong(Point::bytes));
    long smallest = sorted.get(0).bytes();
    double latency = Stats.of(sorted.stream().filter(p -> p.bytes() == smallest).mapToDouble(Point::seconds)
        .toArray()).median();
    List<Point> above = sorted.stream().filter(p -> p.bytes() > G_FIT_ABOVE_BYTES).toList();
    if (above.isEmpty()) {
      long largest = sorted.get(sorted.size() - 1).bytes();
      above = sorted.stream().filter(p -> p.bytes() == largest).toList();
    }
    return new Fit(latency, secondsPerByte(above, latency), smallest, (int) above.stream().mapToLong(Point::bytes)
        .distinct().count());
  }

  /** van Werkhoven et al. 2014, sec. V-A: {@code G = (t_1 + ... + t_n - n (L + o)) / (k_1 + ... + k_n)}. */
  static double secondsPerByte(List<Point> copies, double latencySeconds) {
    double time = 0;
    double bytes = 0;
    for (Point p : copies) {
      time += p.seconds();
      bytes += p.bytes();
    }
    return (time - copies.size() * latencySeconds) / bytes;
  }

  /**
   * The gap g from the times of {@code chunks[i]} back-to-back copies of {@code chunkBytes} each
   * (docs/COST-MODEL.md; van Werkhoven et al. 2014, sec. V: {@code T(m) = L + o + m c G + (m - 1) g}).
   *
   * @throws IllegalArgumentException with fewer than two distinct chunk counts
   */
  public static double gap(long chunkBytes, double secondsPerByte, int[] chunks, double[] seconds) {
    double[] m = new double[chunks.length];
    for (int i = 0; i < m.length; i++) {
      m[i] = chunks[i];
    }
    return slope(m, seconds) - chunkBytes * secondsPerByte;
  }

  /**
   * The least-squares slope of y against x.
   *
   * @throws IllegalArgumentException with fewer than two distinct x values, or arrays of different
   *     lengths
   */
  public static double slope(double[] x, double[] y) {
    if (x.length != y.length) {
      throw new IllegalArgumentException("x and y differ in length");
    }
    int n = x.length;
    double mx = 0;
    double my = 0;
    for (int i = 0; i < n; i++) {
      mx += x[i] / n;
      my += y[i] / n;
    }
    double sxx = 0;
    double sxy = 0;
    for (int i = 0; i < n; i++) {
      sxx += (x[i] - mx) * (x[i] - mx);
      sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0)) {
      throw new IllegalArgumentException("a slope needs two different x values");
    }
    return sxy / sxx;
  }
}
