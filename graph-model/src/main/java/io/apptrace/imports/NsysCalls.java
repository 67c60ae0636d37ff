package io.apptrace.imports;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The API calls of an Nsight Systems SQLite export: CUPTI_ACTIVITY_KIND_RUNTIME, and _DRIVER where
 * the export has it, each call with its thread, times, correlation id, function (by its id into
 * StringIds, without the version suffix nsys adds) and return value. The runtime calls, half the
 * rows of a typical export, are read on a second thread while {@link NsysReader} reads the GPU
 * tables, and taken from it a batch at a time in a fixed rhythm (the first batch first, then one
 * every {@link PrefetchedRows#BATCH} GPU rows), so that the trace does not depend on timing.
 */
final class NsysCalls {
  private static final int CALL_COLUMNS = 6;

  private final SqliteFile db;
  private final ImportAssembler out;
  private final StringTable names;
  /** Counts of rows in the source, by what they are (the reader's). */
  private final Map<String, Long> source;
  /** The runtime calls read ahead on a thread of their own, or null (read in turn then). */
  private CallLane lane;

  NsysCalls(SqliteFile db, ImportAssembler out, StringTable names, Map<String, Long> source) {
    this.db = db;
    this.out = out;
    this.names = names;
    this.source = source;
  }

  /**
   * Starts reading the runtime calls ahead on a thread of their own; where that cannot be, reads
   * them all now, in turn.
   */
  void startRuntime() throws SQLException {
    lane = runtimeCalls();
    if (lane == null) {
      calls(NsysReader.RUNTIME, "runtime calls");
    } else {
      source.put("runtime calls", 0L);
    }
  }

  /** Hands the first batch of the runtime calls read ahead over, before any GPU row. */
  void first() throws SQLException {
    if (lane != null) {
      lane.take();
    }
  }

  /** A GPU row read: lets the runtime calls read ahead move on. */
  void tick() throws SQLException {
    if (lane != null) {
      lane.tick();
    }
  }

  /** Hands the rest of the runtime calls read ahead over, after the last GPU row. */
  void drain() throws SQLException {
    if (lane != null) {
      lane.drain();
    }
  }

  /** Stops the read-ahead thread, if any. */
  void close() {
    if (lane != null) {
      lane.rows.close();
    }
  }

  /** Reads the driver calls, where the export has them. */
  void driver() throws SQLException {
    if (db.has(NsysReader.DRIVER)) {
      calls(NsysReader.DRIVER, "driver calls");
    }
  }

  /** The calls of a table that names functions by id, as {@link #calls} reads them, read ahead. */
  private final class CallLane {
    final PrefetchedRows rows;
    final Map<Long, String> functions = new HashMap<>();
    long n;
    int sinceTake;
    boolean done;

    CallLane(PrefetchedRows rows) {
      this.rows = rows;
    }

    /** Hands the next batch of calls over. */
    void take() throws SQLException {
      PrefetchedRows.Rows b = rows.next();
      if (b == null) {
        done = true;
        source.put("runtime calls", n);
        return;
      }
      long[] c = b.cells;
      for (int at = 0; at < b.size * CALL_COLUMNS; at += CALL_COLUMNS) {
        n++;
        call(c[at], c[at + 1], c[at + 2], c[at + 3], function(functions, c[at + 4]), c[at + 5]);
      }
      rows.recycle(b);
    }

    /** Counts a GPU row; every {@link PrefetchedRows#BATCH} of them, a batch of calls. */
    void tick() throws SQLException {
      if (!done && ++sinceTake == PrefetchedRows.BATCH) {
        sinceTake = 0;
        take();
      }
    }

    void drain() throws SQLException {
      while (!done) {
        take();
      }
    }
  }

  /** The query of a table's calls: start, duration, globalTid, correlation id, name, return value. */
  private String callQuery(String table, String nameExpr) {
    String ret = NsysReader.or(NsysReader.column(db, out, table, "returnValue"), "0");
    String corr = NsysReader.or(NsysReader.column(db, out, table, "correlationId"), "0");
    return "SELECT start, end - start, globalTid, " + corr + ", " + nameExpr + ", " + ret + " FROM " + table;
  }

  private CallLane runtimeCalls() {
    String name = db.first(NsysReader.RUNTIME, "nameId");
    if (!db.has(NsysReader.RUNTIME) || name == null) {
      return null;
    }
    String sql = callQuery(NsysReader.RUNTIME, name);
    SqliteFile own;
    try {
      own = db.reopen();
    } catch (SQLException e) {
      return null; // read in turn, on this thread's connection
    }
    return new CallLane(new PrefetchedRows(own, sql, CALL_COLUMNS));
  }

  private void call(long start, long duration, long globalTid, long correlation, String fn, long ret) {
    long pid = NsysReader.pidOf(globalTid);
    out.call(pid, correlation, pid, NsysReader.tidOf(globalTid), start, duration, fn, ret);
  }

  /** A function's name by its id, with its version suffix removed once. */
  private String function(Map<Long, String> functions, long id) throws SQLException {
    String fn = functions.get(id);
    if (fn == null) {
      fn = stripVersion(names.get(id));
      functions.put(id, fn);
    }
    return fn;
  }

  private void calls(String table, String what) throws SQLException {
    if (!db.has(table)) {
      source.put(what, 0L);
      return;
    }
    String name = db.first(table, "nameId");
    String nameExpr = name != null ? name : NsysReader.or(db.first(table, "name"), "''");
    long n = 0;
    // the function names of the calls, by name id, with their version suffix removed once
    Map<Long, String> functions = new HashMap<>();
    try (ResultSet rs = db.query(callQuery(table, nameExpr))) {
      while (rs.next()) {
        n++;
        String fn = name != null ? function(functions, rs.getLong(5)) : stripVersion(String.valueOf(rs.getString(5)));
        call(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), fn, rs.getLong(6));
      }
    }
    source.put(what, n);
  }

  /**
   * The function's name without the CUPTI callback-version suffix nsys adds ("cudaMemcpy_v3020",
   * "cudaLaunchKernel_v7000"); "cudaStreamGetCaptureInfo_v2" is a real name and keeps its suffix.
   */
  static String stripVersion(String fn) {
    int u = fn.lastIndexOf("_v");
    if (u > 0 && fn.length() - u - 2 >= 4) {
      for (int i = u + 2; i < fn.length(); i++) {
        if (!Character.isDigit(fn.charAt(i))) {
          return fn;
        }
      }
      return fn.substring(0, u);
    }
    return fn;
  }
}
