package io.apptrace.graph;

import java.util.Arrays;

/**
 * Which value last wrote each byte range of one allocation. Most writes cover the whole
 * allocation, kept as one value; partial writes (a chunk of a buffer, a copy to a struct member)
 * split it into ranges, so that a later read depends only on the writes it overlaps.
 *
 * <p>The ranges are sorted, disjoint, in parallel arrays: an allocation is split into tens or
 * hundreds of ranges at most, where arrays and binary search beat a tree by far.
 */
final class WriteMap {
  private final long size;
  /** The value covering every byte, or -1 (nothing written, or ranges below). */
  private int whole = -1;
  private long[] starts;
  private long[] ends;
  private int[] values;
  private int n;
  /** Where the last {@link #firstEndingAfter} found its range (any index is a valid guess). */
  private int hint;

  WriteMap(long size) {
    this.size = size;
  }

  /** Records that {@code value} wrote {@code [offset, offset + bytes)}. */
  void write(long offset, long bytes, int value) {
    long end = Math.min(size, offset + Math.max(bytes, 1));
    offset = Math.max(0, offset);
    if (offset == 0 && end >= size) {
      whole = value;
      n = 0;
      starts = null;
      return;
    }
    if (starts == null) {
      starts = new long[8];
      ends = new long[8];
      values = new int[8];
      n = 0;
      if (whole >= 0) {
        append(0, size, whole);
      }
      whole = -1;
    }
    // first range ending after offset, and first range starting at or after end
    int lo = firstEndingAfter(offset);
    int hi = lo;
    while (hi < n && starts[hi] < end) {
      hi++;
    }
    // what survives of the ranges [lo, hi): a head before offset and a tail after end
    boolean head = lo < hi && starts[lo] < offset;
    boolean tail = lo < hi && ends[hi - 1] > end;
    long headStart = head ? starts[lo] : 0;
    int headValue = head ? values[lo] : 0;
    long tailEnd = tail ? ends[hi - 1] : 0;
    int tailValue = tail ? values[hi - 1] : 0;
    int replacement = 1 + (head ? 1 : 0) + (tail ? 1 : 0);
    resize(n - (hi - lo) + replacement);
    if (hi != lo + replacement) { // a write that replaces exactly what it overlaps moves nothing
      int move = n - hi;
      System.arraycopy(starts, hi, starts, lo + replacement, move);
      System.arraycopy(ends, hi, ends, lo + replacement, move);
      System.arraycopy(values, hi, values, lo + replacement, move);
    }
    int i = lo;
    if (head) {
      set(i++, headStart, offset, headValue);
    }
    set(i++, offset, end, value);
    if (tail) {
      set(i, end, tailEnd, tailValue);
    }
    n = n - (hi - lo) + replacement;
  }

  /** What {@link #forEach} reports: {@code value} last wrote {@code [start, end)}. */
  interface Range {
    void accept(long start, long end, int value);
  }

  /** Every written range, in address order. */
  void forEach(Range r) {
    if (starts == null) {
      if (whole >= 0) {
        r.accept(0, size, whole);
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      r.accept(starts[i], ends[i], values[i]);
    }
  }

  /**
   * The first range ending after {@code offset}. A chunked pipeline walks an allocation's chunks in
   * turn, so the range after the last one found is tried before a binary search, whose branches
   * a processor cannot predict.
   */
  private int firstEndingAfter(long offset) {
    int h = hint;
    if (h < n && ends[h] > offset && (h == 0 || ends[h - 1] <= offset)) {
      return h;
    }
    if (++h < n && ends[h] > offset && ends[h - 1] <= offset) {
      hint = h;
      return h;
    }
    hint = search(offset);
    return hint;
  }

  private int search(long offset) {
    int lo = 0;
    int hi = n;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (ends[mid] <= offset) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private void resize(int need) {
    if (need > starts.length) {
      int cap = Math.max(need, starts.length * 2);
      starts = Arrays.copyOf(starts, cap);
      ends = Arrays.copyOf(ends, cap);
      values = Arrays.copyOf(values, cap);
    }
  }

  private void append(long start, long end, int value) {
    resize(n + 1);
    set(n++, start, end, value);
  }

  private void set(int i, long start, long end, int value) {
    starts[i] = start;
    ends[i] = end;
    values[i] = value;
  }

  /**
   * The length of the written range that starts exactly at {@code offset}, or 0 when none does:
   * the unit a chunked pipeline copied in, which a kernel given a pointer to it works on.
   */
  long rangeStartingAt(long offset) {
    if (starts == null) {
      return whole >= 0 && offset == 0 ? size : 0;
    }
    int i = firstEndingAfter(offset);
    return i < n && starts[i] == offset ? ends[i] - offset : 0;
  }

  /** The value that wrote the range starting exactly at {@code offset}, or -1 when none does. */
  int valueStartingAt(long offset) {
    if (starts == null) {
      return whole >= 0 && offset == 0 ? whole : -1;
    }
    int i = firstEndingAfter(offset);
    return i < n && starts[i] == offset ? values[i] : -1;
  }

  /**
   * What reads found: values and how many bytes each supplied, one entry per range (a value can
   * appear more than once). Plain arrays, reused from one operation to the next.
   */
  static final class Reads {
    int[] values = new int[16];
    long[] bytes = new long[16];
    int size;

    void add(int value, long n) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
        bytes = Arrays.copyOf(bytes, size * 2);
      }
      values[size] = value;
      bytes[size++] = n;
    }

    void clear() {
      size = 0;
    }
  }

  /**
   * Adds to {@code out} the values that wrote any byte of {@code [offset, offset + bytes)}, each
   * with how many of those bytes it wrote; returns whether some byte of it was never written.
   */
  boolean read(long offset, long bytes, Reads out) {
    long end = Math.min(size, offset + Math.max(bytes, 1));
    offset = Math.max(0, offset);
    if (starts == null) {
      if (whole >= 0) {
        out.add(whole, Math.max(end - offset, 0));
        return false;
      }
      return true;
    }
    long covered = offset;
    boolean gap = false;
    for (int i = firstEndingAfter(offset); i < n && starts[i] < end; i++) {
      if (starts[i] > covered) {
        gap = true;
      }
      out.add(values[i], Math.min(ends[i], end) - Math.max(starts[i], offset));
      covered = Math.max(covered, ends[i]);
    }
    return gap || covered < end;
  }
}
