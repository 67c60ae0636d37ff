package io.apptrace.calibrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The LogGP fits of {@link LogGpFit} on exact synthetic curves (van Werkhoven et al. 2014, sec. V-A,
 * docs/COST-MODEL.md).
 */
class LogGpFitTest {
  /**
   * van Werkhoven et al. 2014, Table I, host to device (PCIe 3.0, GTX Titan): L+o 0.009420 ms, G 8.318392e-8
   * ms/B, g 0.002503 ms.
   */
  private static final double LATENCY = 0.009420e-3;
  private static final double G = 8.318392e-8 * 1e-3;
  private static final double GAP = 0.002503e-3;

  /** 1 B and 256 B to 1 GiB, powers of two: the sizes of a full calibration. */
  private static List<LogGpFit.Point> exactCurve(double latency, double g) {
    List<LogGpFit.Point> points = new ArrayList<>();
    points.add(new LogGpFit.Point(1, latency + g));
    for (long k = 256; k <= 1L << 30; k *= 2) {
      points.add(new LogGpFit.Point(k, latency + k * g)); // docs/COST-MODEL.md: T(n) = (L + o) + n G
    }
    return points;
  }

  @Test
  void anExactLogGpCurveGivesBackItsParameters() {
    LogGpFit.Fit fit = LogGpFit.fit(exactCurve(LATENCY, G));
    // L + o is the 1-byte time, which holds one byte's G (Abdelhafez et al. 2019, sec. IV-C measures it so)
    assertThat(fit.latencySeconds()).isCloseTo(LATENCY + G, within(1e-18));
    assertThat(fit.latencyBytes()).isEqualTo(1);
    // van Werkhoven et al. 2014, sec. V-A: G = (sum t - n (L + o)) / sum k over the sizes above 1 MiB (2 MiB .. 1
    // GiB: 10 sizes);
    // the 1-byte time holds G once, so G comes back low by exactly n G / sum k (5e-9 of it)
    assertThat(fit.fittedSizes()).isEqualTo(10);
    double sumK = (1L << 31) - (1L << 21);
    assertThat(fit.secondsPerByte()).isCloseTo(G - 10 * G / sumK, within(G * 1e-12));
    assertThat(fit.bandwidthBytesPerSec()).isCloseTo(1 / G, within(1 / G * 1e-8));
  }

  @Test
  void gIsTheWeightedLeastSquaresFitOf001SecVA() {
    // van Werkhoven et al. 2014, sec. V-A on three copies by hand: t = 2 us + k / 10 GB/s, plus noise that sums to zero
    double lo = 2e-6;
    List<LogGpFit.Point> p = List.of(new LogGpFit.Point(1, lo), new LogGpFit.Point(2 << 20, lo + (2 << 20) / 10e9 + 1e-6),
        new LogGpFit.Point(4 << 20, lo + (4 << 20) / 10e9 - 1e-6), new LogGpFit.Point(8 << 20, lo + (8 << 20) / 10e9));
    LogGpFit.Fit fit = LogGpFit.fit(p);
    assertThat(fit.latencySeconds()).isEqualTo(lo);
    double sumT = p.get(1).seconds() + p.get(2).seconds() + p.get(3).seconds();
    double sumK = (2 << 20) + (4 << 20) + (8 << 20);
    assertThat(fit.secondsPerByte()).isCloseTo((sumT - 3 * lo) / sumK, within(1e-24));
    assertThat(fit.bandwidthBytesPerSec()).isCloseTo(10e9, within(1.0));
  }

  @Test
  void theSmallestSizeMeasuredSeveralTimesGivesItsMedian() {
    List<LogGpFit.Point> p = List.of(new LogGpFit.Point(1, 9e-6), new LogGpFit.Point(1, 11e-6),
        new LogGpFit.Point(1, 10e-6), new LogGpFit.Point(1 << 22, 10e-6 + (1 << 22) / 5e9));
    assertThat(LogGpFit.fit(p).latencySeconds()).isEqualTo(10e-6);
  }

  @Test
  void withNoSizeAbove1MiBTheLargestAloneGivesG() {
    List<LogGpFit.Point> p = List.of(new LogGpFit.Point(256, 5e-6), new LogGpFit.Point(1 << 16, 5e-6 + (1 << 16) / 8e9));
    LogGpFit.Fit fit = LogGpFit.fit(p);
    assertThat(fit.fittedSizes()).isEqualTo(1);
    assertThat(fit.bandwidthBytesPerSec()).isCloseTo(8e9, within(1e-3));
  }

  @Test
  void theGapIsTheSlopeOverChunksLessTheChunksBytes() {
    // docs/COST-MODEL.md; van Werkhoven et al. 2014, sec. V: m chunks of c bytes back to back take L + o + m c G +
    // (m - 1) g
    long c = 64 << 10;
    int[] m = {1, 2, 4, 8, 16};
    double[] t = new double[m.length];
    for (int i = 0; i < m.length; i++) {
      t[i] = LATENCY + m[i] * c * G + (m[i] - 1) * GAP;
    }
    assertThat(LogGpFit.gap(c, G, m, t)).isCloseTo(GAP, within(1e-15));
  }

  @Test
  void aSlopeNeedsTwoDifferentX() {
    assertThatThrownBy(() -> LogGpFit.slope(new double[] {1, 1}, new double[] {1, 2}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LogGpFit.fit(List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void statsOfRepetitions() {
    Stats s = Stats.of(4, 1, 3, 2);
    assertThat(s.median()).isEqualTo(2.5);
    assertThat(s.mean()).isEqualTo(2.5);
    assertThat(s.stddev()).isCloseTo(Math.sqrt(5.0 / 3), within(1e-12));
    assertThat(s.min()).isEqualTo(1);
    assertThat(s.max()).isEqualTo(4);
    assertThat(Stats.of(7).stddev()).isZero();
  }
}
