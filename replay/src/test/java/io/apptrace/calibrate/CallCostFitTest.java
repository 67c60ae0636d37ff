package io.apptrace.calibrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.calibrate.CalibrationResult.CallSeries;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import io.apptrace.node.ApiClass;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fit of a CUDA call's own cost, fixed + per MiB, to the medians of its calls (docs/CALIBRATE.md). */
class CallCostFitTest {
  private static final long MIB = 1L << 20;

  @Test
  void callsOnAnExactLineGiveBackItsInterceptAndSlope() {
    // the bundled defaults' cudaHostAlloc: 880 us + 696 us per MiB
    List<CallCostFit.Point> points = List.of(4096L, MIB, 4 * MIB, 16 * MIB, 64 * MIB).stream()
        .map(b -> new CallCostFit.Point(b, 880e-6 + 696e-6 * b / MIB)).toList();
    CallCostFit.Cost c = CallCostFit.fit(points);
    assertThat(c.fixedSeconds()).isCloseTo(880e-6, within(1e-12));
    assertThat(c.perMibSeconds()).isCloseTo(696e-6, within(1e-12));
    assertThat(c.sizes()).isEqualTo(5);
  }

  @Test
  void theSlopeIsTheWeightedLeastSquaresOneThroughTheSmallestSize() {
    // (0, 11), (1, 11), (2, 15), (3, 15): through (0, 11) with weights 1/m, (11 + 15 + 15 - 3 x 11) / (1 + 2 + 3)
    List<CallCostFit.Point> points = List.of(new CallCostFit.Point(0, 11), new CallCostFit.Point(MIB, 11),
        new CallCostFit.Point(2 * MIB, 15), new CallCostFit.Point(3 * MIB, 15));
    CallCostFit.Cost c = CallCostFit.fit(points);
    assertThat(c.perMibSeconds()).isCloseTo(8.0 / 6, within(1e-12));
    assertThat(c.fixedSeconds()).isEqualTo(11);
    // it minimizes sum (t - 11 - s m)^2 / m, whose derivative in s, -2 sum (t - 11 - s m) m / m, is zero there
    double s = c.perMibSeconds();
    double derivative = 0;
    for (CallCostFit.Point p : points.subList(1, 4)) {
      derivative += -2 * (p.seconds() - 11 - s * p.bytes() / MIB);
    }
    assertThat(derivative).isCloseTo(0, within(1e-12));
  }

  @Test
  void pinningThatGrowsFasterThanLinearlyStillHasAPositiveFixedCost() {
    // the simulated runtime's cudaHostAlloc on a loaded machine: 5.8 us at 4 KiB, 94 us at 1 MiB, 546 us at 4 MiB
    CallCostFit.Cost c = CallCostFit.fit(List.of(new CallCostFit.Point(4096, 5.8e-6),
        new CallCostFit.Point(MIB, 94e-6), new CallCostFit.Point(4 * MIB, 546e-6)));
    assertThat(c.fixedSeconds()).isPositive().isLessThan(5.8e-6);
    assertThat(c.perMibSeconds()).isCloseTo((94e-6 + 546e-6 - 2 * 5.8e-6) / (5 - 2 * 4096.0 / MIB), within(1e-15));
  }

  @Test
  void oneSizeIsItsMedianWithNoCostPerMib() {
    CallCostFit.Cost c = CallCostFit.fit(List.of(new CallCostFit.Point(0, 3e-6)));
    assertThat(c.fixedSeconds()).isEqualTo(3e-6);
    assertThat(c.perMibSeconds()).isZero();
    assertThat(c.sizes()).isEqualTo(1);
  }

  @Test
  void negativeFiguresAreZeroInANodeFile() {
    CallCostFit.Cost c = CallCostFit.fit(List.of(new CallCostFit.Point(0, 2e-6), new CallCostFit.Point(MIB, 1e-6)));
    assertThat(c.perMibSeconds()).isCloseTo(-1e-6, within(1e-15)); // two points: the line through them
    assertThat(c.perMibOrZero()).isZero();
    assertThat(c.fixedOrZero()).isCloseTo(2e-6, within(1e-15));
    assertThat(new CallCostFit.Cost(-1e-7, 0, 1).fixedOrZero()).isZero();
  }

  @Test
  void aSeriesIsNetOfTheJnaCall() {
    CallSeries s = new CallSeries(ApiClass.HOST_REGISTER, "cudaHostRegister", List.of(
        new SizeStats(4096, 3, 1, Stats.of(5e-6, 6e-6, 7e-6)),
        new SizeStats(2 * MIB, 3, 1, Stats.of(9e-6, 10e-6, 11e-6))));
    CallCostFit.Cost c = s.cost(1e-6);
    // medians 6 us and 10 us less 1 us: a line through (4 KiB, 5 us) and (2 MiB, 9 us)
    double slope = 4e-6 / (2 - 4096.0 / MIB);
    assertThat(c.perMibSeconds()).isCloseTo(slope, within(1e-15));
    assertThat(c.fixedSeconds()).isCloseTo(5e-6 - slope * 4096.0 / MIB, within(1e-15));
  }

  @Test
  void noPointsIsAnError() {
    assertThatThrownBy(() -> CallCostFit.fit(List.of())).isInstanceOf(IllegalArgumentException.class);
  }
}
