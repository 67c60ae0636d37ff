package io.apptrace.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** WriteMap against the obvious model: one writer per byte. */
class WriteMapTest {
  @Test
  void agreesWithAPerByteModelOnRandomWritesAndReads() {
    Random rnd = new Random(42);
    for (int round = 0; round < 200; round++) {
      int size = 1 + rnd.nextInt(256);
      WriteMap m = new WriteMap(size);
      int[] model = new int[size];
      Arrays.fill(model, -1);
      for (int step = 0; step < 60; step++) {
        int off = rnd.nextInt(size);
        int len = 1 + rnd.nextInt(rnd.nextBoolean() ? size : 16);
        if (rnd.nextInt(10) == 0) {
          off = 0;
          len = size;
        }
        if (rnd.nextBoolean()) {
          m.write(off, len, step);
          for (int i = off; i < Math.min(size, off + len); i++) {
            model[i] = step;
          }
        } else {
          WriteMap.Reads got = new WriteMap.Reads();
          boolean gap = m.read(off, len, got);
          Map<Integer, Long> expected = new TreeMap<>();
          boolean expectedGap = false;
          for (int i = off; i < Math.min(size, off + len); i++) {
            if (model[i] < 0) {
              expectedGap = true;
            } else {
              expected.merge(model[i], 1L, Long::sum);
            }
          }
          Map<Integer, Long> actual = new TreeMap<>();
          for (int i = 0; i < got.size; i++) {
            actual.merge(got.values[i], got.bytes[i], Long::sum);
          }
          assertThat(actual).as("bytes by value, round %d step %d read [%d,+%d)", round, step, off, len)
              .isEqualTo(expected);
          assertThat(gap).as("gap, round %d step %d", round, step).isEqualTo(expectedGap);
        }
      }
    }
  }

  /** A chunked pipeline's pattern (each chunk written, then read, in turn), where lookups start from a guess. */
  @Test
  void chunksWalkedInTurnReadWhatWroteThem() {
    WriteMap m = new WriteMap(32 * 100);
    int value = 0;
    for (int pass = 0; pass < 3; pass++) {
      for (int c = 0; c < 32; c++) {
        m.write(c * 100L, 100, value);
        WriteMap.Reads got = new WriteMap.Reads();
        assertThat(m.read(c * 100L, 100, got)).as("gap").isFalse();
        assertThat(Arrays.copyOf(got.values, got.size)).containsExactly(value);
        assertThat(m.rangeStartingAt(c * 100L)).isEqualTo(100);
        value++;
      }
      for (int c = 31; c >= 0; c--) { // and backwards, away from the guess
        WriteMap.Reads got = new WriteMap.Reads();
        assertThat(m.read(c * 100L + 50, 100, got)).isFalse();
        int[] values = Arrays.copyOf(got.values, got.size);
        if (c < 31) {
          assertThat(values).containsExactly(value - 32 + c, value - 31 + c);
        } else {
          assertThat(values).containsExactly(value - 1); // clipped at the allocation's end
        }
      }
    }
  }

  @Test
  void rangeStartingAtNamesTheChunkAWriteLeft() {
    WriteMap m = new WriteMap(4096);
    m.write(1024, 1024, 1);
    assertThat(m.rangeStartingAt(1024)).isEqualTo(1024);
    assertThat(m.rangeStartingAt(1025)).isZero();
    assertThat(m.rangeStartingAt(0)).isZero();
    m.write(0, 4096, 2);
    assertThat(m.rangeStartingAt(0)).isEqualTo(4096);
  }
}
