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
 * @param callSamples the calls timed of each class of the host-overhead benchmarks (their median is its cost)
 * @param pinSizes the sizes of the host-overhead benchmarks' calls that pin or unpin memory, increasing
 * @param pinSamples the calls timed of each of those sizes
 */
public record Sizing(List<Long> sizes, int reps, long bytesPerRep, int maxIterations, long gapChunkBytes,
    List<Integer> gapChunks, List<Integer> faultSteps, int callSamples, List<Long> pinSizes, int pinSamples) {
  private static final long KIB = 1024;
  private static final long MIB = 1024 * KIB;

  public Sizing {
    sizes = List.copyOf(sizes);
    gapChunks = List.copyOf(gapChunks);
    faultSteps = List.copyOf(faultSteps);
    pinSizes = List.copyOf(pinSizes);
  }

  /**
   * 1 B, then 256 B to 1 GiB in powers of 2; 5 repetitions (as Pearson's data has); 101 calls of each class, 11 of
   * each pinning size from 4 KiB to 64 MiB.
   */
  public static Sizing full() {
    return new Sizing(sizes(2, 1L << 30), 5, 256L << 20, 100, 64 << 10, List.of(1, 2, 4, 8, 16, 32),
        List.of(16, 32, 64, 128, 256, 512), 101, List.of(4 * KIB, MIB, 4 * MIB, 16 * MIB, 64 * MIB), 11);
  }

  /**
   * {@code --quick}: 1 B, then 256 B to 64 MiB in powers of 4; 3 repetitions; 31 calls of each class, 5 of each
   * pinning size from 4 KiB to 4 MiB.
   */
  public static Sizing quick() {
    return new Sizing(sizes(4, 64L << 20), 3, 16L << 20, 10, 64 << 10, List.of(1, 2, 4, 8),
        List.of(16, 32, 64, 128), 31, List.of(4 * KIB, MIB, 4 * MIB), 5);
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
