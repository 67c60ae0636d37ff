package io.apptrace.validate;

import java.util.Arrays;

/**
 * Absolute percentage errors of projected against actual times: their WMAPE (docs/COST-MODEL.md,
 * {@code 100 * sum |A - P| / sum A}) and their median (MdAPE), which needs every error kept.
 */
public final class ApeStats {
  private double[] apes = new double[64];
  private int count;
  private double sumAbsError;
  private double sumActual;

  /** Adds one pair; a projection that is NaN (the method could not price it) is counted as missing. */
  public void add(double actual, double projected) {
    if (!(actual > 0)) {
      throw new IllegalArgumentException("an actual time must be positive: " + actual);
    }
    if (Double.isNaN(projected)) {
      return;
    }
    double err = Math.abs(actual - projected);
    if (count == apes.length) {
      apes = Arrays.copyOf(apes, count * 2);
    }
    apes[count++] = err / actual;
    sumAbsError += err;
    sumActual += actual;
  }

  public long count() {
    return count;
  }

  /** The sum of the actual times added. */
  public double sumActual() {
    return sumActual;
  }

  /** {@code 100 * sum |A - P| / sum A}; NaN with no data. */
  public double wmapePct() {
    return count == 0 ? Double.NaN : 100 * sumAbsError / sumActual;
  }

  /** {@code 100 * median(|A - P| / A)}; NaN with no data. */
  public double mdapePct() {
    if (count == 0) {
      return Double.NaN;
    }
    double[] a = Arrays.copyOf(apes, count);
    Arrays.sort(a);
    int m = count / 2;
    return 100 * (count % 2 == 1 ? a[m] : (a[m - 1] + a[m]) / 2);
  }
}
