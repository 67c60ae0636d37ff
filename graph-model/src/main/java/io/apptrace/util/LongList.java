package io.apptrace.util;

import java.util.Arrays;

/**
 * A growable list of {@code long}s, stored in chunks of 16,384: growing never copies what is
 * already stored (so a list of a billion bytes never needs twice its size to grow), and reading is
 * two array loads. Not thread-safe.
 */
public final class LongList {
  private static final int SHIFT = 14;
  private static final int CHUNK = 1 << SHIFT;
  private static final int MASK = CHUNK - 1;

  private long[][] chunks;
  private int size;

  public LongList() {
    this(16);
  }

  /** {@code capacity} is a hint for the first chunk. */
  public LongList(int capacity) {
    chunks = new long[1][];
    chunks[0] = new long[Math.min(Math.max(capacity, 1), CHUNK)];
  }

  /** Appends {@code v}; returns its index. */
  public int add(long v) {
    int c = size >>> SHIFT;
    int i = size & MASK;
    if (c == chunks.length) {
      chunks = Arrays.copyOf(chunks, chunks.length * 2);
    }
    long[] chunk = chunks[c];
    if (chunk == null) {
      chunk = chunks[c] = new long[CHUNK];
    } else if (i == chunk.length) {
      chunk = chunks[c] = Arrays.copyOf(chunk, Math.min(CHUNK, chunk.length * 2));
    }
    chunk[i] = v;
    return size++;
  }

  public long get(int i) {
    if (i >= size || i < 0) {
      throw new IndexOutOfBoundsException("index " + i + ", size " + size);
    }
    return chunks[i >>> SHIFT][i & MASK];
  }

  public void set(int i, long v) {
    if (i >= size || i < 0) {
      throw new IndexOutOfBoundsException("index " + i + ", size " + size);
    }
    chunks[i >>> SHIFT][i & MASK] = v;
  }

  public int size() {
    return size;
  }

  /** Empties the list, keeping its first chunk. */
  public void clear() {
    size = 0;
  }

  /** Releases unused capacity once the list is complete. */
  public void trim() {
    int used = (size + MASK) >>> SHIFT;
    for (int c = used; c < chunks.length; c++) {
      chunks[c] = null;
    }
    if (size > 0 && (size & MASK) != 0) {
      int c = size >>> SHIFT;
      chunks[c] = Arrays.copyOf(chunks[c], size & MASK);
    }
  }

  /** A copy of the elements. */
  public long[] toArray() {
    long[] out = new long[size];
    for (int i = 0; i < size; i += CHUNK) {
      System.arraycopy(chunks[i >>> SHIFT], 0, out, i, Math.min(CHUNK, size - i));
    }
    return out;
  }
}
