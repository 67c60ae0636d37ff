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

/**
 * The sorted runs of a {@link RecordSorter} on disk: temporary files of fixed-width records of
 * longs, each already in key order, written as chunks fill, merged into one when {@link #MAX_RUNS}
 * are kept (so that the final merge reads a bounded number of files, each through a buffer of its
 * own, whatever the number of records), merged in key order at the end, and deleted on close.
 */
final class SortedRuns implements Closeable {
  /** Runs kept before they are merged into one (each is read through a buffer of its own). */
  static final int MAX_RUNS = 256;

  private final int width;
  private final int keys;
  private final Path tmpDir;
  private final List<Path> runs = new ArrayList<>();
  private ByteBuffer writeBuf;

  /**
   * @param width longs per record
   * @param keys how many leading fields are the sort key
   * @param tmpDir where the runs go
   */
  SortedRuns(int width, int keys, Path tmpDir) {
    this.width = width;
    this.keys = keys;
    this.tmpDir = tmpDir;
  }

  /** Whether no run was written. */
  boolean isEmpty() {
    return runs.isEmpty();
  }

  /** Whether {@link #MAX_RUNS} runs are kept: they are to be {@link #compact}ed before the next. */
  boolean full() {
    return runs.size() >= MAX_RUNS;
  }

  /** A new, empty run file, in the runs' order. */
  Path newRun() {
    try {
      Path p = Files.createTempFile(tmpDir, "apptrace-import-", ".run");
      runs.add(p);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a temporary file in " + tmpDir + ": " + e.getMessage(), e);
    }
  }

  /** Writes a chunk's records in the given order to a run (on the spilling thread, or the caller's). */
  void write(Path p, long[] data, int[] order) {
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
  void compact() {
    try {
      Path p = Files.createTempFile(tmpDir, "apptrace-import-", ".run");
      try (RecordSorter.Cursor m = merged(); FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
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
      deleteAll();
      runs.add(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a temporary file in " + tmpDir + ": " + e.getMessage(), e);
    }
  }

  /** The records of every run, merged in key order. */
  RecordSorter.Cursor merged() {
    List<RunCursor> cursors = new ArrayList<>();
    for (Path p : runs) {
      cursors.add(new RunCursor(p, width));
    }
    return new MergeCursor(cursors, keys, width);
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

  /** Deletes the runs. */
  @Override
  public void close() {
    deleteAll();
  }

  private void deleteAll() {
    for (Path p : runs) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException ignored) {
        // a temporary file left behind is harmless
      }
    }
    runs.clear();
  }

  /** One run on disk, read a buffer at a time. */
  private static final class RunCursor implements RecordSorter.Cursor {
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
  private static final class MergeCursor implements RecordSorter.Cursor {
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
