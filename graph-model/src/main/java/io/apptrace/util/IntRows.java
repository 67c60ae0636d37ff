package io.apptrace.util;

import java.util.Arrays;

/**
 * A growable table of rows of {@code width} {@code int}s, stored row after row in chunks of 4,096
 * rows: a row is appended with one bounds check and written in one place, where a column per
 * {@link IntList} costs a bounds check and a write stream per field. A {@code long} takes two
 * columns. Not thread-safe.
 */
public final class IntRows {
  private static final int SHIFT = 12;
  private static final int ROWS = 1 << SHIFT;
  private static final int MASK = ROWS - 1;

  private final int width;
  private int[][] chunks = new int[1][];
  private int size;

  public IntRows(int width) {
    if (width < 1) {
      throw new IllegalArgumentException("width " + width);
    }
    this.width = width;
  }

  /** Appends a row of zeros; returns its index. */
  public int addRow() {
    int c = size >>> SHIFT;
    if (c == chunks.length) {
      chunks = Arrays.copyOf(chunks, chunks.length * 2);
    }
    if (chunks[c] == null) {
      chunks[c] = new int[ROWS * width];
    }
    return size++;
  }

  public int get(int row, int column) {
    check(row, column);
    return chunks[row >>> SHIFT][(row & MASK) * width + column];
  }

  public void set(int row, int column, int v) {
    check(row, column);
    chunks[row >>> SHIFT][(row & MASK) * width + column] = v;
  }

  /**
   * The array that holds {@code row}, for the few places that write or read a whole row at once:
   * its columns are at {@link #base(int)} and on, one bounds check for the row instead of one per
   * column. Columns past the width belong to the next row: callers index it with their own
   * column constants only.
   */
  public int[] chunk(int row) {
    check(row, 0);
    return chunks[row >>> SHIFT];
  }

  /** Where {@code row}'s first column is in its {@link #chunk(int)}. */
  public int base(int row) {
    return (row & MASK) * width;
  }

  /** Writes a {@code long} to {@code chunk[at]} and {@code chunk[at + 1]} as {@link #setLong} does. */
  public static void putLong(int[] chunk, int at, long v) {
    chunk[at] = (int) (v >>> 32);
    chunk[at + 1] = (int) v;
  }

  /** The {@code long} in {@code column} and the next. */
  public long getLong(int row, int column) {
    check(row, column + 1);
    int[] chunk = chunks[row >>> SHIFT];
    int at = (row & MASK) * width + column;
    return ((long) chunk[at] << 32) | (chunk[at + 1] & 0xffffffffL);
  }

  /** Sets the {@code long} in {@code column} and the next. */
  public void setLong(int row, int column, long v) {
    check(row, column + 1);
    putLong(chunks[row >>> SHIFT], (row & MASK) * width + column, v);
  }

  private void check(int row, int column) {
    if (row >= size || row < 0 || column >= width || column < 0) {
      throw new IndexOutOfBoundsException("row " + row + " of " + size + ", column " + column + " of " + width);
    }
  }

  public int size() {
    return size;
  }

  /** Releases unused capacity once the table is complete. */
  public void trim() {
    int used = (size + MASK) >>> SHIFT;
    for (int c = used; c < chunks.length; c++) {
      chunks[c] = null;
    }
    if ((size & MASK) != 0) {
      int c = size >>> SHIFT;
      chunks[c] = Arrays.copyOf(chunks[c], (size & MASK) * width);
    }
  }
}
