package io.apptrace.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** IntRows against plain arrays, across chunk boundaries and after trimming. */
class IntRowsTest {
  @Test
  void keepsEveryFieldOfEveryRow() {
    int width = 5;
    int n = 3 * 4096 + 17;
    IntRows rows = new IntRows(width);
    int[] ints = new int[n * 3];
    long[] longs = new long[n];
    Random rnd = new Random(7);
    for (int r = 0; r < n; r++) {
      assertThat(rows.addRow()).isEqualTo(r);
      for (int c = 0; c < 3; c++) {
        ints[r * 3 + c] = rnd.nextInt();
        rows.set(r, c, ints[r * 3 + c]);
      }
      longs[r] = rnd.nextLong();
      if (r % 2 == 0) {
        rows.setLong(r, 3, longs[r]);
      } else { // the whole-row path writes the same layout
        IntRows.putLong(rows.chunk(r), rows.base(r) + 3, longs[r]);
      }
    }
    rows.trim();
    for (int r = 0; r < n; r++) {
      for (int c = 0; c < 3; c++) {
        assertThat(rows.get(r, c)).isEqualTo(ints[r * 3 + c]);
      }
      assertThat(rows.getLong(r, 3)).isEqualTo(longs[r]);
    }
    assertThat(rows.size()).isEqualTo(n);
    for (int r = 0; r < n; r += 1000) { // a row read in place holds what get gives
      int[] chunk = rows.chunk(r);
      assertThat(chunk[rows.base(r) + 2]).isEqualTo(rows.get(r, 2));
    }
  }

  @Test
  void aRowOrColumnOutsideTheTableIsRefused() {
    IntRows rows = new IntRows(2);
    rows.addRow();
    assertThat(rows.get(0, 1)).isZero();
    assertThatThrownBy(() -> rows.get(1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> rows.get(0, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> rows.setLong(0, 1, 5)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> rows.chunk(1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> rows.chunk(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
