package io.apptrace.imports;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A query's rows read on a thread of its own, over a connection of its own, every column as a
 * long, a batch at a time: SQLite's stepping and sqlite-jdbc's column calls are most of an
 * SQLite import, and this way one table is read on the second core while the importer's thread
 * reads another (docs/BENCHMARKS.md). At most {@link #DEPTH} batches wait, which bounds the
 * memory; an error of the query reaches the consumer after every row before it.
 */
final class PrefetchedRows implements AutoCloseable {
  /** Rows in a batch. */
  static final int BATCH = 4096;
  private static final int DEPTH = 4;
  private static final long[] END = new long[0];

  private final int columns;
  private final SqliteFile db;
  private final BlockingQueue<Object> full = new ArrayBlockingQueue<>(DEPTH + 1);
  private final BlockingQueue<long[]> free = new ArrayBlockingQueue<>(DEPTH + 2);
  private final Thread thread;
  private volatile boolean stop;
  private boolean ended;

  /**
   * Starts reading.
   *
   * @param db a connection for this reader alone, closed by {@link #close}
   * @param columns the query's columns, each read with {@code getLong}
   */
  PrefetchedRows(SqliteFile db, String sql, int columns) {
    this.db = db;
    this.columns = columns;
    for (int i = 0; i < DEPTH + 2; i++) {
      free.add(new long[BATCH * columns]);
    }
    thread = new Thread(() -> read(sql), "apptrace-import-rows");
    thread.setDaemon(true);
    thread.start();
  }

  int columns() {
    return columns;
  }

  private void read(String sql) {
    try {
      try (ResultSet rs = db.query(sql)) {
        long[] b = free.take();
        int n = 0;
        while (!stop && rs.next()) {
          int at = n * columns;
          for (int c = 0; c < columns; c++) {
            b[at + c] = rs.getLong(c + 1);
          }
          if (++n == BATCH) {
            full.put(b);
            b = free.take();
            n = 0;
          }
        }
        if (n > 0) {
          full.put(java.util.Arrays.copyOf(b, n * columns));
        }
      } catch (SQLException | RuntimeException e) {
        full.put(e);
        return;
      }
      full.put(END);
    } catch (InterruptedException e) {
      // the consumer closed the reader
    }
  }

  /**
   * The next batch ({@code columns} longs a row, row after row), or null after the last; hand
   * it back with {@link #recycle} once read.
   */
  long[] next() throws SQLException {
    if (ended) {
      return null;
    }
    Object o;
    try {
      o = full.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while reading the file");
    }
    if (o == END) {
      ended = true;
      return null;
    }
    if (o instanceof SQLException e) {
      ended = true;
      throw new SQLException(e.getMessage(), e);
    }
    if (o instanceof RuntimeException e) {
      ended = true;
      throw e;
    }
    return (long[]) o;
  }

  /** A batch read, for reuse. */
  void recycle(long[] b) {
    if (b.length == BATCH * columns) {
      free.offer(b);
    }
  }

  @Override
  public void close() {
    stop = true;
    thread.interrupt();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    db.close();
  }
}
