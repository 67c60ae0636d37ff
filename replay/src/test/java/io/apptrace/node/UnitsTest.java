package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UnitsTest {
  /** Units.fixed writes what String.format("%.Nf") writes: the figures of every table depend on it. */
  @Test
  void fixedPointIsWhatStringFormatWrites() {
    java.util.Random r = new java.util.Random(42);
    double[] edges = {0, -0.0, 0.125, 0.5, 1.005, 2.675, -1.005, -0.001, 0.0049999, 999.995, 1e20, 123456789.987654,
        4.35, 0.045, 1e-9, -1e-9, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY};
    for (int d = 0; d <= 4; d++) {
      for (double v : edges) {
        assertThat(Units.fixed(v, d)).as("%s to %d places", v, d)
            .isEqualTo(String.format(java.util.Locale.ROOT, "%." + d + "f", v));
      }
      for (int i = 0; i < 20_000; i++) {
        double v = switch (i % 4) {
          case 0 -> r.nextDouble() * 1000;
          case 1 -> (r.nextInt(2_000_000) - 1_000_000) / 1000.0; // three decimals exactly: the half-way cases
          case 2 -> Math.pow(10, r.nextInt(30) - 15) * r.nextDouble();
          default -> -r.nextDouble() * 1e6;
        };
        assertThat(Units.fixed(v, d)).as("%s to %d places", v, d)
            .isEqualTo(String.format(java.util.Locale.ROOT, "%." + d + "f", v));
      }
    }
  }

  @Test
  void quantitiesComeBackInBaseUnits() {
    assertThat(Units.parse("900 GB/s", Units.Kind.BANDWIDTH)).isEqualTo(900e9);
    assertThat(Units.parse("16 GiB", Units.Kind.SIZE)).isEqualTo(16.0 * (1L << 30));
    assertThat(Units.parse("256KiB", Units.Kind.SIZE)).isEqualTo(256 * 1024.0);
    assertThat(Units.parse("9.42 us", Units.Kind.TIME)).isEqualTo(9.42e-6, org.assertj.core.data.Offset.offset(1e-18));
    assertThat(Units.parse("24.1 µs", Units.Kind.TIME)).isEqualTo(24.1e-6, org.assertj.core.data.Offset.offset(1e-18));
    assertThat(Units.parse("1.53 GHz", Units.Kind.FREQUENCY)).isEqualTo(1.53e9);
    assertThat(Units.parse("15.7 TFLOP/s", Units.Kind.COMPUTE)).isEqualTo(15.7e12);
    assertThat(Units.parse("4096 bit", Units.Kind.WIDTH)).isEqualTo(4096);
    assertThat(Units.parse("70 W", Units.Kind.POWER)).isEqualTo(70);
    assertThat(Units.parse("1.2 kW", Units.Kind.POWER)).isEqualTo(1200);
    assertThat(Units.parse("1e3 B", Units.Kind.SIZE)).isEqualTo(1000);
  }

  @Test
  void aBareNumberOrAnUnknownUnitSaysHowToWriteIt() {
    assertThatThrownBy(() -> Units.parse("900", Units.Kind.BANDWIDTH))
        .hasMessage("\"900\" has no unit; write it like \"900 GB/s\"");
    assertThatThrownBy(() -> Units.parse("900 GBps", Units.Kind.BANDWIDTH))
        .hasMessage("\"900 GBps\" has no known bandwidth unit; write it like \"900 GB/s\"");
    assertThatThrownBy(() -> Units.parse("fast", Units.Kind.BANDWIDTH))
        .hasMessage("\"fast\" is not a bandwidth; write it like \"900 GB/s\"");
    assertThatThrownBy(() -> Units.parse("16 GB", Units.Kind.TIME))
        .hasMessage("\"16 GB\" has no known time unit; write it like \"9.42 us\"");
  }
}
