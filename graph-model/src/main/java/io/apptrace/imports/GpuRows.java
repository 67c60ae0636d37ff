package io.apptrace.imports;

import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.MemoryKind;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.LongFunction;

/**
 * What the two SQLite importers (Nsight Systems, nvprof) share in reading GPU work: every query
 * for it starts with the same six columns, and their memset rows differ only in how the profiler
 * numbers memory kinds.
 */
final class GpuRows {
  private GpuRows() {}

  /** Told of each row read (the nsys importer moves its calls read ahead on by it). */
  interface Tick {
    void row() throws SQLException;
  }

  /** Columns 1-6 of every GPU query: start, end, device, stream, correlation id, process key. */
  static void common(GpuOpRow r, ResultSet rs, GpuActivityKind kind) throws SQLException {
    r.kind(kind).startNs(rs.getLong(1)).endNs(rs.getLong(2)).device(rs.getLong(3)).stream(rs.getLong(4))
        .corr(rs.getLong(5)).proc(rs.getLong(6));
  }

  /**
   * An SQL expression of a kernel table's resources as {@link GpuOpRow#resources()} packs them:
   * registers per thread and, where the table has both, static shared memory (then its dynamic
   * shared memory, read as the row's shared memory, is the launch's share). CUPTI's kernel
   * records have both.
   */
  static String resources(SqliteFile db, String table) {
    String regs = db.has(table, "registersPerThread") ? "(ifnull(registersPerThread, 0) & 65535)" : "0";
    if (!db.has(table, "staticSharedMemory") || !db.has(table, "dynamicSharedMemory")) {
      return regs;
    }
    return "(" + regs + " | " + GpuOpRow.RES_SPLIT + " | (max(ifnull(staticSharedMemory, 0), 0) << 20))";
  }

  /**
   * Nsight Systems' graph id and graph node id of the work a CUDA graph launch ran, as two columns
   * (0 where the export has no such column, or the work was not a graph's).
   */
  static String graphColumns(SqliteFile db, String table) {
    String graph = db.has(table, "graphId") ? "max(ifnull(graphId, 0), 0)" : "0";
    String node = db.has(table, "graphNodeId") ? "max(ifnull(graphNodeId, 0), 0)" : "0";
    return graph + ", " + node;
  }

  /**
   * Hands every memset row over: columns 1-6 as {@link #common}, then bytes, value, the
   * profiler's memory kind and the context, and Nsight Systems' graph and graph node ids where the
   * query selects them. {@code tick} is told of each row.
   *
   * @return the rows read
   */
  static long memsets(ResultSet rs, ImportAssembler out, LongFunction<MemoryKind> kinds, Tick tick)
      throws SQLException {
    long n = 0;
    boolean graphs = rs.getMetaData().getColumnCount() >= 12; // Nsight Systems' graphId, graphNodeId
    while (rs.next()) {
      n++;
      tick.row();
      GpuOpRow r = out.gpuOp();
      common(r, rs, GpuActivityKind.GPU_MEMSET);
      r.bytes(rs.getLong(7)).value(rs.getLong(8)).memsetKind(kinds.apply(rs.getLong(9))).context(rs.getLong(10));
      if (graphs) {
        r.graph(rs.getLong(11), rs.getLong(12));
      }
      out.gpu(r);
    }
    return n;
  }
}
