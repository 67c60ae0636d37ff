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
import java.util.Locale;
import java.util.Map;

/**
 * Reads an Nsight Systems SQLite export ({@code nsys export --type sqlite}): the
 * CUPTI_ACTIVITY_KIND_RUNTIME calls (and _DRIVER where an export has it), the _KERNEL, _MEMCPY
 * and _MEMSET GPU work, _SYNCHRONIZATION and _CUDA_EVENT records, stream kinds from
 * TARGET_INFO_CUDA_STREAM (or the older TARGET_INFO_CUDA_NULL_STREAM), GPUs from TARGET_INFO_GPU,
 * thread and process names, the host name, and NVTX ranges and marks ({@link NsysNvtx}). Names
 * are ids into StringIds. Column sets differ between nsys versions: each is probed, and what a
 * table lacks is a warning, not an error.
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
    system();
    streams();
    // the runtime calls, half the rows of a typical export, read on a second thread while this
    // one reads the GPU tables, and taken from it a batch at a time in a fixed rhythm (the first
    // batch first, then one every BATCH GPU rows), so that the trace does not depend on timing
    calls = runtimeCalls();
    if (calls == null) {
      calls(RUNTIME, "runtime calls");
    } else {
      source.put("runtime calls", 0L);
    }
    if (db.has(DRIVER)) {
      source.put("driver calls", 0L);
    }
    try {
      if (calls != null) {
        calls.take();
      }
      kernels();
      memcpys();
      memsets();
      syncs();
      events();
      if (calls != null) {
        calls.drain();
      }
    } finally {
      if (calls != null) {
        calls.rows.close();
      }
    }
    if (db.has(DRIVER)) {
      calls(DRIVER, "driver calls");
    }
    NsysNvtx nvtx = new NsysNvtx(db, out, names);
    nvtx.read();
    if (nvtx.ranges > 0) {
      source.put("NVTX ranges", nvtx.ranges);
    }
    if (nvtx.marks > 0) {
      source.put("NVTX marks", nvtx.marks);
    }
  }

  /** The runtime calls read ahead on a thread of their own, or null (read in turn then). */
  private CallLane calls;

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

  private static final int CALL_COLUMNS = 6;

  /** A GPU row read: lets the runtime calls read ahead move on. */
  private void tick() throws SQLException {
    if (calls != null) {
      calls.tick();
    }
  }

  /** The query of a table's calls: start, duration, globalTid, correlation id, name, return value. */
  private String callQuery(String table, String nameExpr) {
    String ret = or(column(table, "returnValue"), "0");
    String corr = or(column(table, "correlationId"), "0");
    return "SELECT start, end - start, globalTid, " + corr + ", " + nameExpr + ", " + ret + " FROM " + table;
  }

  private CallLane runtimeCalls() {
    String name = db.first(RUNTIME, "nameId");
    if (!db.has(RUNTIME) || name == null) {
      return null;
    }
    String sql = callQuery(RUNTIME, name);
    SqliteFile own;
    try {
      own = db.reopen();
    } catch (SQLException e) {
      return null; // read in turn, on this thread's connection
    }
    return new CallLane(new PrefetchedRows(own, sql, CALL_COLUMNS));
  }

  private void call(long start, long duration, long globalTid, long correlation, String fn, long ret) {
    long pid = pidOf(globalTid);
    out.call(pid, correlation, pid, tidOf(globalTid), start, duration, fn, ret);
  }

  /** A function's name by its id, with its version suffix removed once. */
  private String function(Map<Long, String> functions, long id) throws SQLException {
    String fn = functions.get(id);
    if (fn == null) {
      fn = stripVersion(name(id));
      functions.put(id, fn);
    }
    return fn;
  }

  private String column(String table, String... choices) {
    String c = db.first(table, choices);
    if (c == null) {
      out.warn("column " + choices[0] + " absent from " + table + ": taken as unknown");
    }
    return c;
  }

  /** {@code col} or a constant when the table lacks it. */
  private static String or(String col, String constant) {
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

  /**
   * The MPI rank the recorded environment names, when the profiled program ran under a job
   * launcher: the trace is then a rank of a job. Nsight Systems keeps the target process's
   * environment as strings of NUL-separated {@code NAME=value} entries in StringIds; where the
   * blocks that name a rank (a launcher's variables, {@link io.apptrace.trace.JobRanks}) all name
   * the same one, that is the rank.
   */
  private void jobRank(String host) throws SQLException {
    if (!db.has("StringIds", "value")) {
      return;
    }
    java.util.List<java.util.Map<String, String>> blocks = new java.util.ArrayList<>();
    // text functions stop at a NUL: the block is searched and read as bytes
    StringBuilder where = new StringBuilder();
    for (String v : new String[] {"PMI_RANK=", "OMPI_COMM_WORLD_RANK=", "PMIX_RANK=", "SLURM_PROCID="}) {
      where.append(where.length() == 0 ? "" : " OR ").append("instr(CAST(value AS BLOB), CAST('").append(v)
          .append("' AS BLOB)) > 0");
    }
    try (ResultSet rs = db.query("SELECT CAST(value AS BLOB) FROM StringIds WHERE instr(CAST(value AS BLOB), x'00') > 0"
        + " AND (" + where + ")")) {
      while (rs.next()) {
        java.util.Map<String, String> env = new java.util.HashMap<>();
        String block = new String(rs.getBytes(1), java.nio.charset.StandardCharsets.UTF_8);
        for (String entry : block.split("\u0000")) {
          int eq = entry.indexOf('=');
          if (eq > 0 && io.apptrace.trace.JobRanks.reads(entry.substring(0, eq))) {
            env.putIfAbsent(entry.substring(0, eq), entry.substring(eq + 1));
          }
        }
        blocks.add(env);
      }
    }
    // blocks may name the rank through different launchers' variables (PMI and Slurm): one rank if
    // they agree on it and on the job's size
    java.util.List<io.apptrace.proto.JobRank> ranks = new java.util.ArrayList<>();
    try {
      for (java.util.Map<String, String> env : blocks) {
        io.apptrace.trace.JobRanks.of(env, host).ifPresent(ranks::add);
      }
    } catch (IllegalArgumentException e) {
      out.warn("the recorded environment names no usable MPI rank (" + e.getMessage() + ")");
      return;
    }
    if (ranks.isEmpty()) {
      return;
    }
    io.apptrace.proto.JobRank first = ranks.get(0);
    if (ranks.stream().allMatch(r -> r.getRank() == first.getRank() && r.getWorldSize() == first.getWorldSize())) {
      out.job(first);
    } else {
      out.warn("the recorded environments name different MPI ranks: the trace is not taken as a rank of a job");
    }
  }

  /** Host name, GPUs, process and thread names. */
  private void system() throws SQLException {
    String host = "";
    if (db.has("TARGET_INFO_SYSTEM_ENV", "name") && db.has("TARGET_INFO_SYSTEM_ENV", "value")) {
      try (ResultSet rs = db.query("SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' LIMIT 1")) {
        if (rs.next()) {
          host = rs.getString(1);
          out.hostname(host);
        }
      }
    }
    jobRank(host);
    SourceDevices.nsys(db, out);
    if (db.has("TARGET_INFO_GPU", "name")) {
      String id = or(db.first("TARGET_INFO_GPU", "id", "cuDevice"), "-1");
      String sms = or(db.first("TARGET_INFO_GPU", "smCount"), "NULL");
      String mem = or(db.first("TARGET_INFO_GPU", "totalMemory"), "NULL");
      String bus = or(db.first("TARGET_INFO_GPU", "busLocation"), "NULL");
      String engines = or(db.first("TARGET_INFO_GPU", "asyncEngines"), "NULL");
      try (ResultSet rs = db.query("SELECT " + id + ", name, " + sms + ", " + mem + ", " + bus + ", " + engines
          + " FROM TARGET_INFO_GPU ORDER BY 1")) {
        while (rs.next()) {
          StringBuilder s = new StringBuilder("GPU ").append(rs.getLong(1)).append(": ").append(rs.getString(2));
          if (rs.getObject(3) != null) {
            s.append(", ").append(rs.getLong(3)).append(" SMs");
          }
          if (rs.getObject(4) != null) {
            s.append(String.format(Locale.ROOT, ", %.1f GiB", rs.getLong(4) / (double) (1L << 30)));
          }
          if (rs.getObject(6) != null) {
            s.append(", ").append(rs.getLong(6)).append(" copy engines");
          }
          if (rs.getObject(5) != null) {
            s.append(", bus ").append(rs.getString(5));
          }
          out.note(s.toString(), "info");
        }
      }
    }
    if (db.has("PROCESSES", "pid") && db.has("PROCESSES", "name")) {
      // only the processes that made CUDA calls: PROCESSES lists the whole machine
      String calls = db.has(RUNTIME, "globalTid") ? "SELECT DISTINCT (globalTid >> 24) & 16777215 FROM " + RUNTIME
          : "SELECT NULL";
      try (ResultSet rs = db.query("SELECT pid, name FROM PROCESSES WHERE pid IN (" + calls + ")")) {
        while (rs.next()) {
          out.processName(rs.getLong(1), rs.getString(2));
        }
      }
    }
    if (db.has("ThreadNames", "globalTid") && db.has("ThreadNames", "nameId")) {
      try (ResultSet rs = db.query("SELECT globalTid, nameId FROM ThreadNames")) {
        while (rs.next()) {
          long g = rs.getLong(1);
          out.threadName(pidOf(g), tidOf(g), name(rs.getLong(2)));
        }
      }
    }
  }

  /** Stream kinds: TARGET_INFO_CUDA_STREAM.flag is a CUPTI_ACTIVITY_STREAM_CREATE_FLAG_* value. */
  private void streams() throws SQLException {
    boolean any = false;
    if (db.has("TARGET_INFO_CUDA_STREAM", "flag") && db.has("TARGET_INFO_CUDA_STREAM", "processId")) {
      try (ResultSet rs = db.query("SELECT processId, streamId, flag FROM TARGET_INFO_CUDA_STREAM")) {
        while (rs.next()) {
          any = true;
          StreamKind k = switch ((int) rs.getLong(3)) {
            case 3 -> StreamKind.LEGACY; // NULL stream
            case 2 -> StreamKind.NON_BLOCKING;
            default -> StreamKind.BLOCKING; // 1 default flags, 0 unknown
          };
          out.streamKind(rs.getLong(1), rs.getLong(2), k);
        }
      }
    }
    if (db.has("TARGET_INFO_CUDA_NULL_STREAM", "processId")) {
      try (ResultSet rs = db.query("SELECT processId, streamId FROM TARGET_INFO_CUDA_NULL_STREAM")) {
        while (rs.next()) {
          any = true;
          out.streamKind(rs.getLong(1), rs.getLong(2), StreamKind.LEGACY);
        }
      }
    }
    if (!any) {
      out.warn("no stream table (TARGET_INFO_CUDA_STREAM): every stream taken as a blocking stream");
    }
  }

  private void calls(String table, String what) throws SQLException {
    if (!db.has(table)) {
      source.put(what, 0L);
      return;
    }
    String name = db.first(table, "nameId");
    String nameExpr = name != null ? name : or(db.first(table, "name"), "''");
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
