package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The importers' read-ahead: what the reading thread fills reaches the consumer in the order it
 * was filled, through batches reused many times over; a failure of the reading reaches the
 * consumer after everything read before it, as the same exception; closing stops the reading
 * thread, even one blocked because nobody takes its batches.
 */
class ReadAheadTest {
  /** A batch of up to 7 numbers. */
  private static final class Ints {
    final int[] items = new int[7];
    int size;
  }

  private static List<Ints> batches(int n) {
    List<Ints> b = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      b.add(new Ints());
    }
    return b;
  }

  /** Numbers 0, 1, 2, ... up to {@code end} (exclusive), failing with {@code failure} at {@code failAt}. */
  private static ReadAhead.Producer<Ints, IOException> counter(int end, int failAt, IOException failure) {
    int[] next = {0};
    return b -> {
      b.size = 0;
      while (b.size < b.items.length) {
        if (next[0] == failAt) {
          throw failure;
        }
        if (next[0] == end) {
          return false;
        }
        b.items[b.size++] = next[0]++;
      }
      return true;
    };
  }

  /** Everything the consumer is given, until the end or a failure (then rethrown). */
  private static List<Integer> drain(ReadAhead<Ints, IOException> ahead, List<Integer> into) throws Exception {
    for (Ints b = ahead.next(); b != null; b = ahead.next()) {
      for (int i = 0; i < b.size; i++) {
        into.add(b.items[i]);
      }
      ahead.recycle(b);
    }
    return into;
  }

  @Test
  void batchesArriveInTheOrderTheyWereFilled() throws Exception {
    // 10,000 numbers through two batches of 7: each batch is refilled about 700 times
    List<Integer> seen;
    try (ReadAhead<Ints, IOException> ahead = new ReadAhead<>("test-read-ahead", batches(2),
        counter(10_000, -1, null))) {
      seen = drain(ahead, new ArrayList<>());
      assertThat(ahead.next()).as("after the end").isNull();
    }
    assertThat(seen).hasSize(10_000);
    for (int i = 0; i < seen.size(); i++) {
      assertThat(seen.get(i)).isEqualTo(i);
    }
  }

  @Test
  void aFailureOfTheReadingReachesTheConsumerAfterEverythingReadBeforeIt() throws Exception {
    IOException failure = new IOException("unexpected end of the file");
    List<Integer> seen = new ArrayList<>();
    // fails at 1,234: part way through a batch (1,234 = 176 batches of 7 and 2)
    try (ReadAhead<Ints, IOException> ahead = new ReadAhead<>("test-read-ahead", batches(3),
        counter(10_000, 1_234, failure))) {
      assertThatThrownBy(() -> drain(ahead, seen)).isSameAs(failure);
    }
    assertThat(seen).hasSize(1_234);
    assertThat(seen.get(1_233)).isEqualTo(1_233);
  }

  @Test
  void anUncheckedFailureReachesTheConsumerAsItself() throws Exception {
    IllegalStateException failure = new IllegalStateException("corrupt");
    try (ReadAhead<Ints, IOException> ahead = new ReadAhead<>("test-read-ahead", batches(2), b -> {
      throw failure;
    })) {
      Ints first = ahead.next();
      assertThat(first.size).as("the batch being filled when it failed").isZero();
      ahead.recycle(first);
      assertThatThrownBy(ahead::next).isSameAs(failure);
    }
  }

  @Test
  void closeStopsTheReadingThreadEvenWhenItWaitsForABatch() throws Exception {
    AtomicReference<Thread> reader = new AtomicReference<>();
    CountDownLatch allFull = new CountDownLatch(3);
    ReadAhead<Ints, IOException> ahead = new ReadAhead<>("test-read-ahead", batches(3), b -> {
      reader.set(Thread.currentThread());
      b.size = 1;
      allFull.countDown();
      return true; // no end: only close() stops it
    });
    // every batch is full and none is given back: the reading thread waits for one
    assertThat(allFull.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(reader.get().isAlive()).isTrue();
    ahead.close();
    assertThat(reader.get().isAlive()).as("joined by close()").isFalse();
  }
}
