package io.apptrace.imports;

import java.io.Closeable;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Sorts fixed-width records of longs by their first {@code keys} fields (signed, ascending), in
 * bounded memory: records collect in a chunk; a full chunk is sorted and written to a temporary
 * file (a run, {@link SortedRuns}); {@link #sorted()} merges the runs. A sorter that never filled a
 * chunk never touches the disk. Ties keep the order records were added in only if a key field says
 * so (give every record a sequence number as its last key). A full chunk is sorted and written on
 * another thread while the next one fills, so the caller's work and the sorting use two cores.
 */
final class RecordSorter implements Closeable {
  /** Records per chunk by default: 32 Ki records of 32 longs is 8 MiB. */
  static final int DEFAULT_CHUNK = 1 << 15;

  private final int width;
  private final int keys;
  private final int chunkRecords;
  private long[] chunk;
  private int count;
  private long total;
  private final SortedRuns runs;
  private boolean finished;
  /** The spill being sorted and written on another thread, if any. */
  private Future<?> pending;
  /** A chunk array a finished spill gave back, for the next chunk. */
  private volatile long[] spare;

  private static final ExecutorService SPILLS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "apptrace-import-sort");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param width longs per record
   * @param keys how many leading fields are the sort key
   * @param tmpDir where runs go when the records outgrow one chunk
   * @param chunkRecords records held in memory at most
   */
  RecordSorter(int width, int keys, Path tmpDir, int chunkRecords) {
    if (keys < 1 || keys > width || chunkRecords < 2) {
      throw new IllegalArgumentException("width " + width + ", keys " + keys + ", chunk " + chunkRecords);
    }
    this.width = width;
    this.keys = keys;
    this.runs = new SortedRuns(width, keys, tmpDir);
    this.chunkRecords = chunkRecords;
    this.chunk = new long[Math.min(chunkRecords, 1024) * width];
  }

  int width() {
    return width;
  }

  /** Records added so far. */
  long size() {
    return total;
  }

  /** Adds a record: the first {@link #width()} longs of {@code r}. */
  void add(long[] r) {
    if (finished) {
      throw new IllegalStateException("sorted() was already called");
    }
    if (count == chunkRecords) {
      spill();
    }
    if ((count + 1) * width > chunk.length) {
      chunk = java.util.Arrays.copyOf(chunk, Math.min(chunkRecords, count * 2) * width);
    }
    System.arraycopy(r, 0, chunk, count * width, width);
    count++;
    total++;
  }

  /** The records in key order; the sorter takes no more records. */
  Cursor sorted() {
    finished = true;
    awaitSpill();
    int[] order = order(chunk, count);
    if (runs.isEmpty()) {
      return new MemoryCursor(chunk, order, width);
    }
    if (count > 0) {
      runs.write(runs.newRun(), chunk, order);
    }
    chunk = null;
    spare = null;
    return runs.merged();
  }

  /** Hands the full chunk to another thread to sort and write, and starts a fresh one. */
  private void spill() {
    awaitSpill();
    if (runs.full()) {
      runs.compact();
    }
    long[] full = chunk;
    int n = count;
    Path p = runs.newRun();
    long[] next = spare;
    spare = null;
    chunk = next != null && next.length == chunkRecords * width ? next : new long[chunkRecords * width];
    count = 0;
    pending = SPILLS.submit(() -> {
      runs.write(p, full, order(full, n));
      spare = full;
    });
  }

  /** Waits for the spill in progress; its failure is this sorter's. */
  private void awaitSpill() {
    Future<?> f = pending;
    pending = null;
    if (f == null) {
      return;
    }
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new java.io.InterruptedIOException("interrupted while sorting"));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UncheckedIOException u) {
        throw u;
      }
      throw new IllegalStateException("sorting failed", e.getCause());
    }
  }

  /** The indices of a chunk's first {@code n} records in key order (a stable merge sort over indices). */
  private int[] order(long[] data, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    int[] tmp = new int[n];
    mergeSort(data, a, tmp, 0, n);
    return a;
  }

  private void mergeSort(long[] d, int[] a, int[] tmp, int from, int to) {
    if (to - from < 24) {
      for (int i = from + 1; i < to; i++) {
        int v = a[i];
        int j = i - 1;
        while (j >= from && compare(d, a[j], v) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(d, a, tmp, from, mid);
    mergeSort(d, a, tmp, mid, to);
    if (compare(d, a[mid - 1], a[mid]) <= 0) {
      return;
    }
    System.arraycopy(a, from, tmp, from, to - from);
    int i = from;
    int j = mid;
    for (int k = from; k < to; k++) {
      if (j >= to || (i < mid && compare(d, tmp[i], tmp[j]) <= 0)) {
        a[k] = tmp[i++];
      } else {
        a[k] = tmp[j++];
      }
    }
  }

  private int compare(long[] d, int x, int y) {
    int ox = x * width;
    int oy = y * width;
    for (int k = 0; k < keys; k++) {
      int c = Long.compare(d[ox + k], d[oy + k]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @Override
  public void close() {
    try {
      awaitSpill();
    } catch (RuntimeException e) {
      // the runs are deleted all the same
    }
    runs.close();
  }

  /** Records in order, one at a time. */
  interface Cursor extends Closeable {
    /** Moves to the next record; false at the end. */
    boolean next();

    /** Field {@code i} of the current record. */
    long get(int i);

    @Override
    void close();
  }

  private static final class MemoryCursor implements Cursor {
    private final long[] data;
    private final int[] order;
    private final int width;
    private int at = -1;
    private int base;

    MemoryCursor(long[] data, int[] order, int width) {
      this.data = data;
      this.order = order;
      this.width = width;
    }

    @Override
    public boolean next() {
      if (++at >= order.length) {
        return false;
      }
      base = order[at] * width;
      return true;
    }

    @Override
    public long get(int i) {
      return data[base + i];
    }

    @Override
    public void close() {}
  }
}
