package io.apptrace.imports;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A query's rows read on a thread of its own ({@link ReadAhead}), over a connection of its own,
 * every column as a long, a batch at a time: SQLite's stepping and sqlite-jdbc's column calls are
 * most of an SQLite import, and this way one table is read on the second core while the
 * importer's thread reads another (docs/BENCHMARKS.md). At most {@link #DEPTH} batches wait,
 * which bounds the memory; an error of the query reaches the consumer after every row before it.
 */
final class PrefetchedRows implements AutoCloseable {
  /** Rows in a batch. */
  static final int BATCH = 4096;
  private static final int DEPTH = 4;

  /** Rows read: {@code columns} longs a row, row after row. */
  static final class Rows {
    final long[] cells;
    /** The rows the batch holds. */
    int size;

    private Rows(int columns) {
      cells = new long[BATCH * columns];
    }
  }

  private final int columns;
  private final SqliteFile db;
  private final ReadAhead<Rows, SQLException> ahead;
  private ResultSet rs;

  /**
   * Starts reading.
   *
   * @param db a connection for this reader alone, closed by {@link #close}
   * @param columns the query's columns, each read with {@code getLong}
   */
  PrefetchedRows(SqliteFile db, String sql, int columns) {
    this.db = db;
    this.columns = columns;
    List<Rows> batches = new ArrayList<>();
    for (int i = 0; i < DEPTH + 2; i++) {
      batches.add(new Rows(columns));
    }
    ahead = new ReadAhead<>("apptrace-import-rows", batches, b -> fill(sql, b));
  }

  /** On the reading thread: the next rows of the query (run on the first call). */
  private boolean fill(String sql, Rows b) throws SQLException {
    if (rs == null) {
      rs = db.query(sql);
    }
    b.size = 0;
    while (b.size < BATCH) {
      // stopped, or at the end (after a failure, closing the connection closes the query)
      if (Thread.currentThread().isInterrupted() || !rs.next()) {
        rs.close();
        return false;
      }
      int at = b.size * columns;
      for (int c = 0; c < columns; c++) {
        b.cells[at + c] = rs.getLong(c + 1);
      }
      b.size++;
    }
    return true;
  }

  /** The next batch, or null after the last; hand it back with {@link #recycle} once read. */
  Rows next() throws SQLException {
    try {
      return ahead.next();
    } catch (SQLException e) {
      throw new SQLException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while reading the file");
    }
  }

  /** A batch read, for reuse. */
  void recycle(Rows b) {
    ahead.recycle(b);
  }

  @Override
  public void close() {
    ahead.close();
    db.close();
  }
}
