package io.apptrace.imports;

import io.apptrace.proto.CopyKind;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.MemoryKind;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an Nsight Systems SQLite export ({@code nsys export --type sqlite}): the
 * CUPTI_ACTIVITY_KIND_RUNTIME calls (and _DRIVER where an export has it), the _KERNEL, _MEMCPY
 * and _MEMSET GPU work, _SYNCHRONIZATION and _CUDA_EVENT records, stream kinds from
 * TARGET_INFO_CUDA_STREAM (or the older TARGET_INFO_CUDA_NULL_STREAM), GPUs from TARGET_INFO_GPU,
 * thread and process names, the host name, and NVTX ranges and marks. Names are ids into
 * StringIds. Column sets differ between nsys versions: each is probed, and what a table lacks is a
 * warning, not an error. This class reads the GPU tables; the calls are {@link NsysCalls}', what
 * the export says of the system {@link NsysSystem}'s, the NVTX ranges {@link NsysNvtx}'s.
 */
final class NsysReader {
  static final String RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME";
  static final String DRIVER = "CUPTI_ACTIVITY_KIND_DRIVER";
  static final String KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL";
  static final String MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY";
  static final String MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET";
  static final String SYNC = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  static final String EVENT = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";

  /** Ids the profiler writes for "not valid" in unsigned 32-bit columns. */
  private static final long INVALID = 0xffffffffL;

  /** Counts of rows in the source, by what they are. */
  final Map<String, Long> source = new LinkedHashMap<>();
  private final SqliteFile db;
  private final ImportAssembler out;
  private StringTable names;

  NsysReader(SqliteFile db, ImportAssembler out) {
    this.db = db;
    this.out = out;
  }

  /** Whether a SQLite file is an Nsight Systems export. */
  static boolean isNsys(SqliteFile db) {
    return db.has("StringIds") && (db.has(RUNTIME) || db.has(KERNEL) || db.has(MEMCPY) || db.has("TARGET_INFO_GPU"));
  }

  /** nsys writes the pid in bits 24-47 of a global thread or process id, the tid in bits 0-23. */
  static long pidOf(long globalId) {
    return globalId >>> 24 & 0xffffff;
  }

  static long tidOf(long globalTid) {
    return globalTid & 0xffffff;
  }

  void read() throws SQLException {
    for (String t : List.of(RUNTIME, KERNEL, MEMCPY, MEMSET, SYNC)) {
      if (!db.has(t)) {
        out.warn("table " + t + " absent (nsys writes it only when the run had such records): none imported");
      }
    }
    strings();
    NsysSystem system = new NsysSystem(db, out, names);
    system.system();
    system.streams();
    calls = new NsysCalls(db, out, names, source);
    calls.startRuntime();
    if (db.has(DRIVER)) {
      source.put("driver calls", 0L);
    }
    try {
      calls.first();
      kernels();
      memcpys();
      memsets();
      syncs();
      events();
      calls.drain();
    } finally {
      calls.close();
    }
    calls.driver();
    NsysNvtx nvtx = new NsysNvtx(db, out, names);
    nvtx.read();
    if (nvtx.ranges > 0) {
      source.put("NVTX ranges", nvtx.ranges);
    }
    if (nvtx.marks > 0) {
      source.put("NVTX marks", nvtx.marks);
    }
  }

  /** The calls, read ahead while the GPU tables are read. */
  private NsysCalls calls;

  /** A GPU row read: lets the runtime calls read ahead move on. */
  private void tick() throws SQLException {
    calls.tick();
  }

  private String column(String table, String... choices) {
    return column(db, out, table, choices);
  }

  /** {@code table}'s first column of {@code choices}; null, and a warning, when it has none. */
  static String column(SqliteFile db, ImportAssembler out, String table, String... choices) {
    String c = db.first(table, choices);
    if (c == null) {
      out.warn("column " + choices[0] + " absent from " + table + ": taken as unknown");
    }
    return c;
  }

  /** {@code col} or a constant when the table lacks it. */
  static String or(String col, String constant) {
    return col != null ? col : constant;
  }

  /** The names the other tables refer to (StringIds also holds every symbol). */
  private void strings() throws SQLException {
    List<String> refs = new ArrayList<>();
    for (String[] tc : new String[][] {{RUNTIME, "nameId"}, {DRIVER, "nameId"}, {KERNEL, "demangledName"},
        {KERNEL, "shortName"}, {KERNEL, "mangledName"}, {"ThreadNames", "nameId"}, {NsysNvtx.TABLE, "textId"}}) {
      if (db.has(tc[0], tc[1])) {
        refs.add("SELECT " + tc[1] + " FROM " + tc[0]);
      }
    }
    names = new StringTable(db, "StringIds", "id", "value", refs);
  }

  private String name(long id) throws SQLException {
    return names.get(id);
  }

  /** The pid of a GPU record: globalPid when the table has it. */
  private String pidExpr(String table) {
    return db.has(table, "globalPid") ? "(globalPid >> 24) & 16777215" : "0";
  }

  private void kernels() throws SQLException {
    if (!db.has(KERNEL)) {
      source.put("kernels", 0L);
      return;
    }
    String nameCol = or(db.first(KERNEL, "demangledName", "shortName", "name"), "NULL");
    String mangled = or(db.first(KERNEL, "mangledName"), "NULL");
    String[] d = new String[6];
    String[] dims = {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"};
    for (int i = 0; i < dims.length; i++) {
      d[i] = "(" + or(db.first(KERNEL, dims[i]), "1") + ")";
    }
    // grid and block packed as the rows keep them, by SQLite: two columns read, not six
    String grid = GpuOpRow.gridSql(d[0], d[1], d[2]);
    String block = GpuOpRow.blockSql(d[3], d[4], d[5]);
    String sel = "SELECT start, end, deviceId, streamId, " + or(column(KERNEL, "correlationId"), "0") + ", "
        + pidExpr(KERNEL) + ", ifnull(" + nameCol + ", -1), ifnull(" + mangled + ", -1), " + grid + ", " + block
        + ", " + or(db.first(KERNEL, "dynamicSharedMemory"), "0") + ", " + or(db.first(KERNEL, "contextId"), "0")
        + ", " + GpuRows.resources(db, KERNEL) + ", " + GpuRows.graphColumns(db, KERNEL);
    long n = 0;
    Map<Long, Integer> nameIds = new HashMap<>(); // StringIds id to the assembler's string id
    Map<Long, Integer> mangledIds = new HashMap<>();
    try (ResultSet rs = db.query(sel + " FROM " + KERNEL)) {
      while (rs.next()) {
        n++;
        tick();
        GpuOpRow r = out.gpuOp();
        GpuRows.common(r, rs, GpuActivityKind.GPU_KERNEL);
        long id = rs.getLong(7);
        Integer nameId = nameIds.get(id);
        if (nameId == null) {
          String kn = id < 0 ? "" : name(id);
          nameId = out.strings.id(kn.isEmpty() ? "kernel" : kn);
          nameIds.put(id, nameId);
        }
        r.nameId(nameId);
        long m = rs.getLong(8);
        if (m >= 0) {
          Integer mangledId = mangledIds.get(m);
          if (mangledId == null) {
            String mn = name(m);
            mangledId = mn.isEmpty() ? -1 : out.strings.id(mn);
            mangledIds.put(m, mangledId);
          }
          if (mangledId >= 0) {
            r.mangledId(mangledId);
          }
        }
        r.packedGrid(rs.getLong(9)).packedBlock(rs.getLong(10)).sharedMemBytes(rs.getLong(11)).context(rs.getLong(12))
            .resources(rs.getLong(13)).graph(rs.getLong(14), rs.getLong(15));
        out.gpu(r);
      }
    }
    source.put("kernels", n);
  }

  /** nsys's ENUM_CUDA_MEM_KIND (0 pageable, 1 pinned, 2 device, 3 array, 4 managed, ...). */
  static MemoryKind memoryKind(long k) {
    return switch ((int) k) {
      case 0 -> MemoryKind.PAGEABLE;
      case 1 -> MemoryKind.PINNED;
      case 2, 5 -> MemoryKind.DEVICE;
      case 3 -> MemoryKind.ARRAY;
      case 4, 6 -> MemoryKind.MANAGED;
      default -> MemoryKind.MEMORY_KIND_UNSPECIFIED;
    };
  }

  /** nsys's ENUM_CUDA_MEMCPY_OPER (CUPTI's CUpti_ActivityMemcpyKind). */
  static CopyKind copyKind(long k) {
    return switch ((int) k) {
      case 1, 3, 11 -> CopyKind.HOST_TO_DEVICE;
      case 2, 4, 12 -> CopyKind.DEVICE_TO_HOST;
      case 5, 6, 7, 8, 10, 13 -> CopyKind.DEVICE_TO_DEVICE;
      case 9 -> CopyKind.HOST_TO_HOST;
      default -> CopyKind.COPY_KIND_UNSPECIFIED;
    };
  }

  private void memcpys() throws SQLException {
    if (!db.has(MEMCPY)) {
      source.put("memcpys", 0L);
      return;
    }
    String sql = "SELECT start, end, deviceId, streamId, " + or(column(MEMCPY, "correlationId"), "0") + ", "
        + pidExpr(MEMCPY) + ", " + or(column(MEMCPY, "bytes"), "0") + ", " + or(column(MEMCPY, "copyKind"), "0")
        + ", " + or(column(MEMCPY, "srcKind"), "7") + ", " + or(column(MEMCPY, "dstKind"), "7") + ", "
        + or(db.first(MEMCPY, "srcDeviceId"), "NULL") + ", " + or(db.first(MEMCPY, "dstDeviceId"), "NULL") + ", "
        + or(db.first(MEMCPY, "contextId"), "0") + ", " + GpuRows.graphColumns(db, MEMCPY) + " FROM " + MEMCPY;
    long n = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        n++;
        tick();
        GpuOpRow r = out.gpuOp();
        long ck = rs.getLong(8);
        GpuRows.common(r, rs, ck == 10 ? GpuActivityKind.GPU_MEMCPY_PEER : GpuActivityKind.GPU_MEMCPY);
        r.bytes(rs.getLong(7)).copy(copyKind(ck), memoryKind(rs.getLong(9)), memoryKind(rs.getLong(10)));
        if (ck == 10 && rs.getObject(11) != null && rs.getObject(12) != null) {
          r.peers(rs.getLong(11), rs.getLong(12));
        }
        r.context(rs.getLong(13)).graph(rs.getLong(14), rs.getLong(15));
        out.gpu(r);
      }
    }
    source.put("memcpys", n);
  }

  private void memsets() throws SQLException {
    if (!db.has(MEMSET)) {
      source.put("memsets", 0L);
      return;
    }
    String sql = "SELECT start, end, deviceId, streamId, " + or(column(MEMSET, "correlationId"), "0") + ", "
        + pidExpr(MEMSET) + ", " + or(column(MEMSET, "bytes"), "0") + ", " + or(db.first(MEMSET, "value"), "0") + ", "
        + or(db.first(MEMSET, "memKind"), "2") + ", " + or(db.first(MEMSET, "contextId"), "0") + ", "
        + GpuRows.graphColumns(db, MEMSET) + " FROM " + MEMSET;
    long n;
    try (ResultSet rs = db.query(sql)) {
      n = GpuRows.memsets(rs, out, NsysReader::memoryKind, this::tick);
    }
    source.put("memsets", n);
  }

  /** Events are named by the profiler's event id, plus one (0 means "unknown"). */
  private static long eventHandle(long eventId) {
    return eventId < 0 || eventId == INVALID ? 0 : eventId + 1;
  }

  private static long valid(long id) {
    return id < 0 || id == INVALID ? -1 : id;
  }

  private void syncs() throws SQLException {
    if (!db.has(SYNC)) {
      source.put("synchronizations", 0L);
      return;
    }
    String sql = "SELECT " + or(column(SYNC, "correlationId"), "0") + ", " + pidExpr(SYNC) + ", "
        + or(column(SYNC, "syncType"), "0") + ", " + or(db.first(SYNC, "streamId"), "-1") + ", "
        + or(db.first(SYNC, "eventId"), "-1") + ", " + or(db.first(SYNC, "deviceId"), "-1") + " FROM " + SYNC;
    long n = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        n++;
        tick();
        int type = (int) rs.getLong(3);
        type = type >= 1 && type <= 4 ? type : SyncRow.TYPE_UNKNOWN;
        out.sync(rs.getLong(2), rs.getLong(1), type, valid(rs.getLong(4)), eventHandle(rs.getLong(5)), -1,
            valid(rs.getLong(6)));
      }
    }
    source.put("synchronizations", n);
  }

  /** CUPTI_ACTIVITY_KIND_CUDA_EVENT: which stream each cudaEventRecord recorded on. */
  private void events() throws SQLException {
    if (!db.has(EVENT)) {
      return;
    }
    String sql = "SELECT " + or(column(EVENT, "correlationId"), "0") + ", " + pidExpr(EVENT) + ", "
        + or(column(EVENT, "streamId"), "-1") + ", " + or(column(EVENT, "eventId"), "-1") + ", "
        + or(db.first(EVENT, "deviceId"), "-1") + " FROM " + EVENT;
    long n = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        n++;
        tick();
        out.eventRecord(rs.getLong(2), rs.getLong(1), valid(rs.getLong(3)), eventHandle(rs.getLong(4)),
            valid(rs.getLong(5)));
      }
    }
    source.put("event records", n);
  }
}
