package io.apptrace.imports;

import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.KernelNames;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * The GPU work of an nvprof profile: CUPTI_ACTIVITY_KIND_KERNEL and _CONCURRENT_KERNEL,
 * _MEMCPY and _MEMCPY2 (peer copies), _MEMSET, handed to the {@link ImportAssembler} as GPU
 * records to join with their calls by correlation id. Columns are probed as in
 * {@link NvprofReader}.
 */
final class NvprofGpuWork {
  private final SqliteFile db;
  private final ImportAssembler out;
  private final StringTable strings;
  private final long proc;

  NvprofGpuWork(SqliteFile db, ImportAssembler out, StringTable strings, long proc) {
    this.db = db;
    this.out = out;
    this.strings = strings;
    this.proc = proc;
  }

  private String column(String table, String... choices) {
    return NvprofReader.column(db, out, table, choices);
  }

  private static String or(String col, String constant) {
    return NvprofReader.or(col, constant);
  }

  /** Columns 1-6 of every GPU query: start, end, deviceId, streamId, correlationId, process key. */
  private String common(String table) {
    return "SELECT start, end, " + or(column(table, "deviceId"), "0") + ", " + or(column(table, "streamId"), "0")
        + ", " + or(column(table, "correlationId"), "0") + ", " + proc;
  }

  long kernels(String table) throws SQLException {
    if (!db.has(table)) {
      return 0;
    }
    StringBuilder sel = new StringBuilder(common(table)).append(", ").append(or(column(table, "name"), "NULL"));
    for (String d : new String[] {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"}) {
      sel.append(", ").append(or(column(table, d), "1"));
    }
    sel.append(", ").append(or(db.first(table, "dynamicSharedMemory"), "0"));
    sel.append(", ").append(or(db.first(table, "contextId"), "0"));
    sel.append(", ").append(GpuRows.resources(db, table));
    long n = 0;
    try (ResultSet rs = db.query(sel + " FROM " + table)) {
      while (rs.next()) {
        n++;
        GpuOpRow r = out.gpuOp();
        GpuRows.common(r, rs, GpuActivityKind.GPU_KERNEL);
        // CUPTI names kernels by their mangled name; the trace's kernel name is the display name
        String mangled = rs.getObject(7) != null ? strings.get(rs.getLong(7)) : "";
        r.nameId(out.strings.id(mangled.isEmpty() ? "kernel" : KernelNames.fromMangled(mangled)));
        if (!mangled.isEmpty()) {
          r.mangledId(out.strings.id(mangled));
        }
        r.grid(rs.getLong(8), rs.getLong(9), rs.getLong(10)).block(rs.getLong(11), rs.getLong(12), rs.getLong(13))
            .sharedMemBytes(rs.getLong(14)).context(rs.getLong(15)).resources(rs.getLong(16));
        out.gpu(r);
      }
    }
    return n;
  }

  /**
   * CUpti_ActivityMemoryKind: 0 unknown, 1 pageable, 2 pinned, 3 device, 4 array, 5 managed, 6
   * device static, 7 managed static.
   */
  static MemoryKind memoryKind(long k) {
    return switch ((int) k) {
      case 1 -> MemoryKind.PAGEABLE;
      case 2 -> MemoryKind.PINNED;
      case 3, 6 -> MemoryKind.DEVICE;
      case 4 -> MemoryKind.ARRAY;
      case 5, 7 -> MemoryKind.MANAGED;
      default -> MemoryKind.MEMORY_KIND_UNSPECIFIED;
    };
  }

  /** _MEMCPY, or _MEMCPY2 (peer copies, with their source and destination devices). */
  long memcpys(String table) throws SQLException {
    if (!db.has(table)) {
      return 0;
    }
    boolean two = table.equals(NvprofReader.MEMCPY2);
    String sql = common(table) + ", " + or(column(table, "bytes"), "0") + ", " + or(column(table, "copyKind"), "0")
        + ", " + or(column(table, "srcKind"), "0") + ", " + or(column(table, "dstKind"), "0") + ", "
        + (two ? or(column(table, "srcDeviceId"), "NULL") : "NULL") + ", "
        + (two ? or(column(table, "dstDeviceId"), "NULL") : "NULL") + ", " + or(db.first(table, "contextId"), "0")
        + " FROM " + table;
    long n = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        n++;
        GpuOpRow r = out.gpuOp();
        long ck = rs.getLong(8);
        GpuRows.common(r, rs, two || ck == 10 ? GpuActivityKind.GPU_MEMCPY_PEER : GpuActivityKind.GPU_MEMCPY);
        r.bytes(rs.getLong(7)).copy(NsysReader.copyKind(ck), memoryKind(rs.getLong(9)), memoryKind(rs.getLong(10)));
        if (rs.getObject(11) != null && rs.getObject(12) != null) {
          r.peers(rs.getLong(11), rs.getLong(12));
        }
        r.context(rs.getLong(13));
        out.gpu(r);
      }
    }
    return n;
  }

  long memsets(String table) throws SQLException {
    if (!db.has(table)) {
      return 0;
    }
    String sql = common(table) + ", " + or(column(table, "bytes"), "0") + ", " + or(db.first(table, "value"), "0")
        + ", " + or(db.first(table, "memoryKind"), "3") + ", " + or(db.first(table, "contextId"), "0") + " FROM "
        + table;
    long n;
    try (ResultSet rs = db.query(sql)) {
      n = GpuRows.memsets(rs, out, NvprofGpuWork::memoryKind, () -> { });
    }
    return n;
  }
}
