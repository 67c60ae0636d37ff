package io.apptrace.calibrate;

import java.util.ArrayList;
import java.util.List;

/**
 * How much a calibration measures: the copy sizes, the repetitions of each, the copies per
 * repetition, the chunk counts of the gap benchmark and the list lengths of the page-fault one.
 *
 * @param sizes copy sizes in bytes, increasing; the first is the L+o copy (1 byte)
 * @param reps repetitions of each size (its median, mean and spread are over these)
 * @param bytesPerRep a repetition makes copies until about this many bytes have moved ...
 * @param maxIterations ... but at most this many (each is timed on its own; a repetition reports their mean)
 * @param gapChunkBytes the chunk size of the gap benchmark
 * @param gapChunks the chunk counts m of the gap benchmark
 * @param faultSteps the list lengths of the page-fault benchmarks (Pearson 2018, sec. 5.2)
 */
public record Sizing(List<Long> sizes, int reps, long bytesPerRep, int maxIterations, long gapChunkBytes,
    List<Integer> gapChunks, List<Integer> faultSteps) {
  public Sizing {
    sizes = List.copyOf(sizes);
    gapChunks = List.copyOf(gapChunks);
    faultSteps = List.copyOf(faultSteps);
  }

  /** 1 B, then 256 B to 1 GiB in powers of 2; 5 repetitions (as Pearson's data has). */
  public static Sizing full() {
    return new Sizing(sizes(2, 1L << 30), 5, 256L << 20, 100, 64 << 10, List.of(1, 2, 4, 8, 16, 32),
        List.of(16, 32, 64, 128, 256, 512));
  }

  /** {@code --quick}: 1 B, then 256 B to 64 MiB in powers of 4; 3 repetitions. */
  public static Sizing quick() {
    return new Sizing(sizes(4, 64L << 20), 3, 16L << 20, 10, 64 << 10, List.of(1, 2, 4, 8),
        List.of(16, 32, 64, 128));
  }

  private static List<Long> sizes(int factor, long largest) {
    List<Long> s = new ArrayList<>();
    s.add(1L);
    for (long k = 256; k <= largest; k *= factor) {
      s.add(k);
    }
    return s;
  }

  /** The largest size. */
  public long largest() {
    return sizes.get(sizes.size() - 1);
  }

  /** Copies per repetition of a size: enough to move {@link #bytesPerRep}, 1 to {@link #maxIterations}. */
  public int iterations(long bytes) {
    long n = (bytesPerRep + bytes - 1) / bytes;
    return (int) Math.max(1, Math.min(maxIterations, n));
  }
}
