package io.apptrace.calibrate;

import java.util.List;
import java.util.Objects;

/**
 * Fits a CUDA call's own cost, {@code fixed + per MiB x MiB} (the form of the replay's host-overhead model,
 * docs/REPLAY.md "CUDA calls"), to the median times of its calls at one or more sizes, as {@link LogGpFit} fits
 * L+o and G to copies: with one size, the fixed cost is its median and there is no cost per MiB; with several, the
 * cost per MiB is the least-squares slope, weights 1 / size, of the line through the smallest size's median
 * (van Werkhoven et al. 2014, sec. V-A: {@code per MiB = (t_1 + ... + t_n - n t_0) / (m_1 + ... + m_n)} over the
 * n larger sizes of m_i MiB), and the fixed cost that line's value at no bytes. <b>Choice</b>: anchored at the
 * smallest size (4 KiB, nearly no bytes) rather than an unweighted line through all of them, whose intercept
 * the large sizes' spread decides, and which came out negative where pinning grows faster than linearly.
 */
public final class CallCostFit {
  private static final double MIB = 1024.0 * 1024.0;

  /** Calls of {@code bytes} whose median own time is {@code seconds}. */
  public record Point(long bytes, double seconds) {
    public Point {
      if (bytes < 0 || !Double.isFinite(seconds)) {
        throw new IllegalArgumentException("a point needs bytes >= 0 and a finite time: " + bytes + ", " + seconds);
      }
    }
  }

  /**
   * A fit. Either figure may come out negative (a call cheaper than the JNA call it is net of, or one whose cost
   * falls with the size within the noise): {@link #fixedOrZero} and {@link #perMibOrZero} are what a node file takes.
   *
   * @param fixedSeconds the cost of a call of no bytes
   * @param perMibSeconds the cost per MiB (0 with one size)
   * @param sizes the distinct sizes fitted
   */
  public record Cost(double fixedSeconds, double perMibSeconds, int sizes) {
    public double fixedOrZero() {
      return Math.max(0, fixedSeconds);
    }

    public double perMibOrZero() {
      return Math.max(0, perMibSeconds);
    }
  }

  private CallCostFit() {}

  /**
   * The fit of {@code points}.
   *
   * @throws IllegalArgumentException if there are none
   */
  public static Cost fit(List<Point> points) {
    Objects.requireNonNull(points, "points");
    if (points.isEmpty()) {
      throw new IllegalArgumentException("no points to fit");
    }
    int sizes = (int) points.stream().mapToLong(Point::bytes).distinct().count();
    long smallest = points.stream().mapToLong(Point::bytes).min().orElseThrow();
    double t0 = Stats.of(points.stream().filter(p -> p.bytes() == smallest).mapToDouble(Point::seconds).toArray())
        .median();
    if (sizes == 1) {
      return new Cost(t0, 0, 1);
    }
    double time = 0;
    double mib = 0;
    int n = 0;
    for (Point p : points) {
      if (p.bytes() != smallest) {
        time += p.seconds();
        mib += p.bytes() / MIB;
        n++;
      }
    }
    double m0 = smallest / MIB;
    // the weighted least-squares slope of t - t0 = s (m - m0)
    double slope = (time - n * t0) / (mib - n * m0);
    return new Cost(t0 - slope * m0, slope, sizes);
  }
}
