package io.apptrace.node;

import java.util.Arrays;

/**
 * Measured bandwidth by size, as transfer times: the time of a size between two points is
 * interpolated on a log-log scale (time against size), which is exact for a power law between the
 * points. Below the smallest size a transfer takes the smallest size's time (small transfers cost
 * their fixed overhead); above the largest it is extrapolated at the largest's bandwidth.
 */
public final class Curve {
  private final double[] sizes;
  private final double[] bandwidths;
  private final double[] seconds;

  /** Points sorted by size, with distinct sizes; bandwidths in bytes per second. */
  public Curve(double[] sizes, double[] bandwidths) {
    if (sizes.length != bandwidths.length || sizes.length == 0) {
      throw new IllegalArgumentException("a curve needs points");
    }
    this.sizes = sizes.clone();
    this.bandwidths = bandwidths.clone();
    this.seconds = new double[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      if (i > 0 && !(sizes[i] > sizes[i - 1])) {
        throw new IllegalArgumentException("sizes must increase");
      }
      seconds[i] = sizes[i] / bandwidths[i];
    }
  }

  /** The time of a transfer of {@code bytes}. */
  public double seconds(double bytes) {
    int n = sizes.length;
    if (bytes <= sizes[0]) {
      return seconds[0]; // small transfers cost their fixed overhead: never less than the smallest
    }
    if (bytes >= sizes[n - 1]) {
      return seconds[n - 1] * bytes / sizes[n - 1];
    }
    int i = Arrays.binarySearch(sizes, bytes);
    if (i >= 0) {
      return seconds[i];
    }
    int hi = -i - 1;
    int lo = hi - 1;
    double f = Math.log(bytes / sizes[lo]) / Math.log(sizes[hi] / sizes[lo]);
    return Math.exp(Math.log(seconds[lo]) + f * Math.log(seconds[hi] / seconds[lo]));
  }

  public double minSize() {
    return sizes[0];
  }

  public double maxSize() {
    return sizes[sizes.length - 1];
  }

  public int points() {
    return sizes.length;
  }

  /** Point {@code i}'s size, bytes. */
  public double size(int i) {
    return sizes[i];
  }

  /** Point {@code i}'s bandwidth, bytes per second, as the node file gives it. */
  public double bandwidth(int i) {
    return bandwidths[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Curve c && Arrays.equals(sizes, c.sizes) && Arrays.equals(bandwidths, c.bandwidths);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(sizes) + Arrays.hashCode(bandwidths);
  }
}
