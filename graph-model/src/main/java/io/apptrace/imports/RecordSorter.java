package io.apptrace.imports;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Sorts fixed-width records of longs by their first {@code keys} fields (signed, ascending), in
 * bounded memory: records collect in a chunk; a full chunk is sorted and written to a temporary
 * file (a run); {@link #sorted()} merges the runs. A sorter that never filled a chunk never
 * touches the disk. Ties keep the order records were added in only if a key field says so (give
 * every record a sequence number as its last key). A full chunk is sorted and written on another
 * thread while the next one fills, so the caller's work and the sorting use two cores.
 */
final class RecordSorter implements Closeable {
  /** Records per chunk by default: 32 Ki records of 32 longs is 8 MiB. */
  static final int DEFAULT_CHUNK = 1 << 15;

  private final int width;
  private final int keys;
  private final Path tmpDir;
  private final int chunkRecords;
  private long[] chunk;
  private int count;
  private long total;
  private final List<Path> runs = new ArrayList<>();
  /** Runs kept before they are merged into one (each is read through a buffer of its own). */
  static final int MAX_RUNS = 256;
  private ByteBuffer writeBuf;
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
    this.tmpDir = tmpDir;
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
      writeRun(newRun(), chunk, order);
    }
    chunk = null;
    spare = null;
    List<RunCursor> cursors = new ArrayList<>();
    for (Path p : runs) {
      cursors.add(new RunCursor(p, width));
    }
    return new MergeCursor(cursors, keys, width);
  }

  /** Hands the full chunk to another thread to sort and write, and starts a fresh one. */
  private void spill() {
    awaitSpill();
    if (runs.size() >= MAX_RUNS) {
      compact();
    }
    long[] full = chunk;
    int n = count;
    Path p = newRun();
    long[] next = spare;
    spare = null;
    chunk = next != null && next.length == chunkRecords * width ? next : new long[chunkRecords * width];
    count = 0;
    pending = SPILLS.submit(() -> {
      writeRun(p, full, order(full, n));
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

  /** A new, empty run file, in the runs' order. */
  private Path newRun() {
    try {
      Path p = Files.createTempFile(tmpDir, "apptrace-import-", ".run");
      runs.add(p);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a temporary file in " + tmpDir + ": " + e.getMessage(), e);
    }
  }

  /** Writes a chunk's records in the given order to a run (on the spilling thread, or the caller's). */
  private void writeRun(Path p, long[] data, int[] order) {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
      ByteBuffer buf = writeBuffer();
      LongBuffer longs = buf.asLongBuffer();
      for (int i : order) {
        if (longs.remaining() < width) {
          flush(ch, buf, longs);
        }
        longs.put(data, i * width, width);
      }
      flush(ch, buf, longs);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a temporary file in " + tmpDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Merges every run into one, so that the final merge reads at most {@link #MAX_RUNS} runs, each
   * with a buffer of its own, whatever the number of records: memory does not grow with the file.
   */
  private void compact() {
    try {
      Path p = Files.createTempFile(tmpDir, "apptrace-import-", ".run");
      List<RunCursor> cursors = new ArrayList<>();
      for (Path r : runs) {
        cursors.add(new RunCursor(r, width));
      }
      try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE);
          MergeCursor m = new MergeCursor(cursors, keys, width)) {
        ByteBuffer buf = writeBuffer();
        LongBuffer longs = buf.asLongBuffer();
        while (m.next()) {
          if (longs.remaining() < width) {
            flush(ch, buf, longs);
          }
          for (int i = 0; i < width; i++) {
            longs.put(m.get(i));
          }
        }
        flush(ch, buf, longs);
      }
      close();
      runs.add(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a temporary file in " + tmpDir + ": " + e.getMessage(), e);
    }
  }

  private ByteBuffer writeBuffer() {
    if (writeBuf == null) {
      writeBuf = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.nativeOrder());
    }
    writeBuf.clear();
    return writeBuf;
  }

  private static void flush(FileChannel ch, ByteBuffer buf, LongBuffer longs) throws IOException {
    buf.position(0).limit(longs.position() * Long.BYTES);
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
    buf.clear();
    longs.clear();
  }

  @Override
  public void close() {
    try {
      awaitSpill();
    } catch (RuntimeException e) {
      // the runs are deleted all the same
    }
    for (Path p : runs) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException ignored) {
        // a temporary file left behind is harmless
      }
    }
    runs.clear();
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

  /** One run on disk, read a buffer at a time. */
  private static final class RunCursor implements Cursor {
    private final FileChannel ch;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(1 << 15).order(ByteOrder.nativeOrder());
    private LongBuffer longs;
    private final long[] current;
    private final int width;

    RunCursor(Path p, int width) {
      this.width = width;
      this.current = new long[width];
      try {
        ch = FileChannel.open(p, StandardOpenOption.READ);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read back a temporary file " + p + ": " + e.getMessage(), e);
      }
      longs = buf.asLongBuffer().limit(0);
    }

    @Override
    public boolean next() {
      if (longs.remaining() < width) {
        try {
          int keep = longs.remaining();
          long[] rest = new long[keep];
          longs.get(rest);
          buf.clear();
          buf.asLongBuffer().put(rest);
          buf.position(keep * Long.BYTES);
          while (buf.hasRemaining() && ch.read(buf) > 0) {
            // fill the buffer
          }
          int whole = buf.position() / Long.BYTES;
          longs = buf.position(0).asLongBuffer().limit(whole);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read back a temporary file: " + e.getMessage(), e);
        }
        if (longs.remaining() < width) {
          return false;
        }
      }
      longs.get(current);
      return true;
    }

    @Override
    public long get(int i) {
      return current[i];
    }

    @Override
    public void close() {
      try {
        ch.close();
      } catch (IOException ignored) {
        // read-only
      }
    }
  }

  /** The runs merged: a binary heap of cursors by their current record. */
  private static final class MergeCursor implements Cursor {
    private final RunCursor[] heap;
    private int n;
    private final int keys;
    private RunCursor current;
    private boolean started;

    MergeCursor(List<RunCursor> runs, int keys, int width) {
      this.keys = keys;
      heap = new RunCursor[runs.size()];
      for (RunCursor r : runs) {
        if (r.next()) {
          heap[n++] = r;
        } else {
          r.close();
        }
      }
      for (int i = n / 2 - 1; i >= 0; i--) {
        down(i);
      }
    }

    @Override
    public boolean next() {
      if (started && current != null) {
        if (current.next()) {
          heap[0] = current;
          down(0);
        } else {
          current.close();
          heap[0] = heap[--n];
          heap[n] = null;
          if (n > 0) {
            down(0);
          }
        }
      }
      started = true;
      current = n > 0 ? heap[0] : null;
      return current != null;
    }

    private int cmp(RunCursor a, RunCursor b) {
      for (int k = 0; k < keys; k++) {
        int c = Long.compare(a.current[k], b.current[k]);
        if (c != 0) {
          return c;
        }
      }
      return 0;
    }

    private void down(int i) {
      while (true) {
        int l = 2 * i + 1;
        if (l >= n) {
          return;
        }
        int m = l + 1 < n && cmp(heap[l + 1], heap[l]) < 0 ? l + 1 : l;
        if (cmp(heap[m], heap[i]) >= 0) {
          return;
        }
        RunCursor t = heap[m];
        heap[m] = heap[i];
        heap[i] = t;
        i = m;
      }
    }

    @Override
    public long get(int i) {
      return current.current[i];
    }

    @Override
    public void close() {
      for (int i = 0; i < n; i++) {
        heap[i].close();
      }
      n = 0;
    }
  }
}
