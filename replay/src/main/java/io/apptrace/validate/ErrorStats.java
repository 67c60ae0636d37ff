package io.apptrace.validate;

/**
 * Accumulates actual times A_i and projected times P_i (docs/COST-MODEL.md): {@code WMAPE = 100 *
 * sum |A_i - P_i| / sum A_i}, and the plain mean absolute percentage error beside it.
 */
public final class ErrorStats {
  private long count;
  private double sumAbsError;
  private double sumActual;
  private double sumRelative;

  public void add(double actual, double projected) {
    if (!(actual > 0)) {
      throw new IllegalArgumentException("an actual time must be positive: " + actual);
    }
    double err = Math.abs(actual - projected);
    count++;
    sumAbsError += err;
    sumActual += actual;
    sumRelative += err / actual;
  }

  public void addAll(ErrorStats other) {
    count += other.count;
    sumAbsError += other.sumAbsError;
    sumActual += other.sumActual;
    sumRelative += other.sumRelative;
  }

  public long count() {
    return count;
  }

  /** {@code 100 * sum |A - P| / sum A}; NaN with no data. */
  public double wmapePct() {
    return count == 0 ? Double.NaN : 100 * sumAbsError / sumActual;
  }

  /** {@code 100 * mean(|A - P| / A)}; NaN with no data. */
  public double mapePct() {
    return count == 0 ? Double.NaN : 100 * sumRelative / count;
  }
}
