package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The importers' external sort: records come back complete and in key order whether they fit one
 * chunk, spill to a few runs, or spill to more runs than are ever kept at once (which are then
 * merged into one as they come, so memory does not grow with the input).
 */
class RecordSorterTest {
  @TempDir Path tmp;

  private List<long[]> roundTrip(int n, int chunk) throws IOException {
    Random rnd = new Random(n * 31L + chunk);
    List<long[]> in = new ArrayList<>();
    List<long[]> out = new ArrayList<>();
    try (RecordSorter s = new RecordSorter(3, 2, tmp, chunk)) {
      for (int i = 0; i < n; i++) {
        long[] r = {rnd.nextInt(50) - 25, i, rnd.nextLong()}; // keys: a small value, then a unique sequence
        in.add(r);
        s.add(r);
      }
      assertThat(s.size()).isEqualTo(n);
      try (RecordSorter.Cursor c = s.sorted()) {
        while (c.next()) {
          out.add(new long[] {c.get(0), c.get(1), c.get(2)});
        }
      }
    }
    in.sort(Comparator.<long[]>comparingLong(r -> r[0]).thenComparingLong(r -> r[1]));
    assertThat(out).hasSize(n);
    for (int i = 0; i < n; i++) {
      assertThat(out.get(i)).as("record %d", i).containsExactly(in.get(i));
    }
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left).as("temporary runs are deleted on close").isEmpty();
    }
    return out;
  }

  @Test
  void recordsThatFitOneChunkComeBackSorted() throws IOException {
    roundTrip(1000, 4096);
  }

  @Test
  void recordsSpilledToAFewRunsComeBackSorted() throws IOException {
    roundTrip(1000, 100);
  }

  @Test
  void moreRunsThanAreKeptAtOnceAreMergedAndComeBackSorted() throws IOException {
    // 5,000 records in chunks of 4: 1,250 runs, far beyond MAX_RUNS, so runs are merged as they come
    assertThat(5000 / 4).isGreaterThan(SortedRuns.MAX_RUNS * 4);
    roundTrip(5000, 4);
  }
}
