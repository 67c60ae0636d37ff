package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UnitsTest {
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
