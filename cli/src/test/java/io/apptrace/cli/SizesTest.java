package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.node.Units;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Byte sizes as users type them and as apptrace prints them. */
class SizesTest {
  /** A plain number is bytes; units are as written (KB = 1000, KiB = 1024). */
  @ParameterizedTest
  @CsvSource({
    "4096, 4096",
    "262144000, 262144000",
    "20000, 20000",
    "1B, 1",
    "1 B, 1",
    "0, 0",
    "4KB, 4000",
    "4 kB, 4000",
    "4KiB, 4096",
    "256KiB, 262144",
    "1.5 KiB, 1536",
    "16 MiB, 16777216",
    "1GiB, 1073741824",
    "1 GB, 1000000000",
    "2TiB, 2199023255552",
    "0.1 KiB, 102",
    "4K, 4096",
  })
  void sizesMeanWhatTheySay(String text, long bytes) {
    assertThat(Sizes.parse(text, "--bytes")).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource({"99999999999999999999", "-1", "1.5", "1.5 B", "4 XB", "KiB", "''", "16777216 TiB"})
  void whatIsNotASizeIsBadUsage(String text) {
    assertThatThrownBy(() -> Sizes.parse(text, "--bytes")).isInstanceOf(UserException.class)
        .hasMessageContaining("--bytes").satisfies(e -> assertThat(((UserException) e).exitCode()).isEqualTo(2));
  }

  /**
   * Every size apptrace prints parses back to itself: to the same bytes when it is printed as a
   * whole number of its unit, else to within half of its last digit (one decimal of its unit).
   */
  @Test
  void everyPrintedSizeParsesBackToItself() {
    SplittableRandom random = new SplittableRandom(20261125);
    for (int i = 0; i < 100_000; i++) {
      long n = switch (i % 3) {
        case 0 -> random.nextLong(0, 1L << 20);
        case 1 -> 1L << random.nextInt(0, 50);
        default -> random.nextLong(0, 1L << 50);
      };
      String printed = Units.size(n);
      long back = Sizes.parse(printed, "size");
      if (!printed.contains(".")) {
        assertThat(back).as("%d printed as %s", n, printed).isEqualTo(n);
      } else {
        String unit = printed.substring(printed.indexOf(' ') + 1);
        long one = Sizes.parse("1 " + unit, "size");
        assertThat((double) Math.abs(back - n)).as("%d printed as %s parses to %d", n, printed, back)
            .isLessThanOrEqualTo(0.05 * one + 0.5);
      }
    }
  }
}
