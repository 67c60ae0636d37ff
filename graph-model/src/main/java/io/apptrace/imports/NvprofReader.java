package io.apptrace.imports;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads nvprof's SQLite profile ({@code nvprof --export-profile FILE.nvvp}, or {@code -o}): the
 * CUPTI_ACTIVITY_KIND_RUNTIME and _DRIVER calls (their functions as CUPTI callback ids, named by
 * {@link CuptiCallbacks}), the _KERNEL, _CONCURRENT_KERNEL, _MEMCPY, _MEMCPY2 and _MEMSET GPU
 * work ({@link NvprofGpuWork}), _SYNCHRONIZATION and _CUDA_EVENT records, stream kinds from
 * _STREAM (and the NULL stream of each _CONTEXT), process and thread names from _NAME, and the
 * machine from _DEVICE, _NVLINK and _PCIE ({@link NvprofTopology}), NVTX ranges and marks from
 * _MARKER ({@link NvprofMarkers}). Names are ids into
 * StringTable; every table has an {@code _id_} row id. Columns are probed: what a table lacks is
 * a warning, not an error.
 *
 * <p>nvprof writes one file per process, and its GPU records carry no process id: every record
 * joins under one process key, by correlation id. Its thread ids are CUPTI's, not kernel thread
 * ids, so threads are renumbered: in the order of their first call, {@code pid}, {@code pid + 1},
 * and so on (docs/IMPORT-NVPROF.md).
 */
final class NvprofReader {
  static final String PREFIX = "CUPTI_ACTIVITY_KIND_";
  static final String RUNTIME = PREFIX + "RUNTIME";
  static final String DRIVER = PREFIX + "DRIVER";
  static final String KERNEL = PREFIX + "KERNEL";
  static final String CONCURRENT_KERNEL = PREFIX + "CONCURRENT_KERNEL";
  static final String MEMCPY = PREFIX + "MEMCPY";
  static final String MEMCPY2 = PREFIX + "MEMCPY2";
  static final String MEMSET = PREFIX + "MEMSET";
  static final String SYNC = PREFIX + "SYNCHRONIZATION";
  static final String EVENT = PREFIX + "CUDA_EVENT";
  static final String STREAM = PREFIX + "STREAM";
  static final String CONTEXT = PREFIX + "CONTEXT";
  static final String NAME = PREFIX + "NAME";
  static final String DEVICE = PREFIX + "DEVICE";

  /** The one process key every record joins under. */
  private static final long PROC = 0;
  /** nvprof stores CUPTI's unsigned "invalid" ids (0xffffffff) as -1. */
  private static final long INVALID = 0xffffffffL;

  /** Counts of rows in the source, by what they are. */
  final Map<String, Long> source = new LinkedHashMap<>();
  private final SqliteFile db;
  private final ImportAssembler out;
  private StringTable strings;
  private final Map<Long, Long> contextDevice = new HashMap<>();
  /** (pid, CUPTI thread id) to the trace's thread id. */
  private final Map<Long, Long> tids = new HashMap<>();
  /** Threads numbered so far, per pid. */
  private final Map<Long, Long> threadsOfPid = new LinkedHashMap<>();

  NvprofReader(SqliteFile db, ImportAssembler out) {
    this.db = db;
    this.out = out;
  }

  /** Whether an SQLite file is an nvprof profile: StringTable, and CUPTI_ACTIVITY_KIND_* tables keyed by _id_. */
  static boolean isNvprof(SqliteFile db) {
    if (!db.has("StringTable", "_id_") || !db.has("StringTable", "value")) {
      return false;
    }
    for (String t : db.tables()) {
      if (t.regionMatches(true, 0, PREFIX, 0, PREFIX.length()) && db.has(t, "_id_")) {
        return true;
      }
    }
    return false;
  }

  void read() throws SQLException {
    absent(RUNTIME, "no runtime calls imported");
    absent(DRIVER, "no driver calls imported");
    absent(MEMCPY, "no copies imported");
    absent(MEMSET, "no memsets imported");
    absent(SYNC, "synchronizing calls imported without what they waited for");
    absent(EVENT, "event records imported without their stream");
    absent(STREAM, "streams other than each context's NULL stream taken as blocking streams");
    absent(DEVICE, "no GPU described");
    if (!db.has(KERNEL) && !db.has(CONCURRENT_KERNEL)) {
      out.warn("tables " + KERNEL + " and " + CONCURRENT_KERNEL + " absent: no kernels imported");
    }
    strings();
    contexts();
    threads();
    names();
    NvprofTopology topology = new NvprofTopology(db, out, strings);
    topology.devices();
    SourceDevices.nvprof(db, strings, out);
    streams();
    calls(RUNTIME, "runtime calls", true);
    calls(DRIVER, "driver calls", false);
    NvprofGpuWork gpu = new NvprofGpuWork(db, out, strings, PROC);
    source.put("kernels", gpu.kernels(KERNEL) + gpu.kernels(CONCURRENT_KERNEL));
    source.put("memcpys", gpu.memcpys(MEMCPY) + gpu.memcpys(MEMCPY2));
    source.put("memsets", gpu.memsets(MEMSET));
    source.put("synchronizations", syncs());
    source.put("event records", events());
    topology.links();
    NvprofMarkers markers = new NvprofMarkers(db, out, strings, this::markerThread);
    markers.read();
    if (markers.ranges > 0) {
      source.put("NVTX ranges", markers.ranges);
    }
    if (markers.marks > 0) {
      source.put("NVTX marks", markers.marks);
    }
  }

  private void absent(String table, String consequence) {
    if (!db.has(table)) {
      out.warn("table " + table + " absent: " + consequence);
    }
  }

  private String column(String table, String... choices) {
    return column(db, out, table, choices);
  }

  /** The first of {@code choices} the table has; null, counted in a warning, when it has none. */
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

  private static long key(long a, long b) {
    return a * 0x1_0000_0001L ^ b;
  }

  /** The StringTable entries the other tables refer to. */
  private void strings() throws SQLException {
    List<String> refs = new ArrayList<>();
    for (String t : List.of(KERNEL, CONCURRENT_KERNEL, DEVICE, NAME, NvprofMarkers.MARKER)) {
      if (db.has(t, "name")) {
        refs.add("SELECT name FROM " + t);
      }
    }
    if (db.has(NvprofMarkers.MARKER, "domain")) {
      refs.add("SELECT domain FROM " + NvprofMarkers.MARKER);
    }
    strings = new StringTable(db, "StringTable", "_id_", "value", refs);
  }

  /** Each context's device, and its NULL stream. */
  private void contexts() throws SQLException {
    if (!db.has(CONTEXT, "contextId") || !db.has(CONTEXT, "deviceId")) {
      return;
    }
    String nul = or(db.first(CONTEXT, "nullStreamId"), "NULL");
    try (ResultSet rs = db.query("SELECT contextId, deviceId, " + nul + " FROM " + CONTEXT)) {
      while (rs.next()) {
        contextDevice.put(rs.getLong(1), rs.getLong(2));
        if (rs.getObject(3) != null && valid(rs.getLong(3)) >= 0) {
          out.streamKind(PROC, rs.getLong(3), StreamKind.LEGACY);
        }
      }
    }
  }

  /** Renumbers CUPTI's thread ids: per process, in the order of each thread's first call. */
  private void threads() throws SQLException {
    List<String> parts = new ArrayList<>();
    for (String t : List.of(RUNTIME, DRIVER)) {
      if (db.has(t, "start")) {
        parts.add("SELECT " + or(db.first(t, "processId"), "0") + " AS p, " + or(db.first(t, "threadId"), "0")
            + " AS t, start FROM " + t);
      }
    }
    if (parts.isEmpty()) {
      return;
    }
    try (ResultSet rs = db.query("SELECT p, t, MIN(start) FROM (" + String.join(" UNION ALL ", parts)
        + ") GROUP BY p, t ORDER BY 3, 1, 2")) {
      while (rs.next()) {
        number(rs.getLong(1) & INVALID, rs.getLong(2) & INVALID);
      }
    }
    if (!threadsOfPid.isEmpty()) {
      long first = threadsOfPid.keySet().iterator().next();
      out.processPid(PROC, first);
      if (threadsOfPid.size() > 1) {
        out.warn("calls of " + threadsOfPid.size() + " processes in one file: GPU work is joined to its call by"
            + " correlation id alone, and GPU work with no call goes to process " + first);
      }
    }
  }

  /** The next number of process {@code pid} for CUPTI thread {@code thread}. */
  private long number(long pid, long thread) {
    long n = threadsOfPid.merge(pid, 1L, Long::sum) - 1;
    long tid = Math.max(pid, 1) + n; // tid 0 means "the collector" in a trace
    tids.put(key(pid, thread), tid);
    out.threadName(pid, tid, "nvprof thread " + thread);
    return tid;
  }

  private long tid(long pid, long thread) {
    return tids.getOrDefault(key(pid, thread), Math.max(pid, 1));
  }

  /**
   * The trace's thread of an NVTX marker: that of its calls, or, for a thread that made none, a
   * number after the others'; a marker of a process (thread -1) goes on its first thread.
   */
  private long markerThread(long pid, long thread) {
    if (thread < 0) {
      return tid(pid, thread);
    }
    Long tid = tids.get(key(pid, thread));
    return tid != null ? tid : number(pid, thread);
  }

  /** Process and thread names (CUpti_ActivityName: objectId is {processId, threadId}). */
  private void names() throws SQLException {
    if (!db.has(NAME, "objectKind") || !db.has(NAME, "objectId") || !db.has(NAME, "name")) {
      return;
    }
    try (ResultSet rs = db.query("SELECT objectKind, objectId, name FROM " + NAME + " WHERE objectKind IN (1, 2)")) {
      while (rs.next()) {
        Object id = rs.getObject(2);
        long pid = u32(id, 0);
        String name = strings.get(rs.getLong(3));
        long thread = u32(id, 4);
        if (rs.getLong(1) == 1) {
          out.processName(pid, name);
        } else if (tids.containsKey(key(pid, thread))) { // a thread that made no call is not in the trace
          out.threadName(pid, tids.get(key(pid, thread)), name);
        }
      }
    }
  }

  /** An unsigned 32-bit little-endian field of a CUPTI union nvprof stores as a BLOB (or an integer). */
  static long u32(Object blob, int offset) {
    if (blob instanceof byte[] b) {
      if (b.length < offset + 4) {
        return -1;
      }
      return (b[offset] & 0xffL) | (b[offset + 1] & 0xffL) << 8 | (b[offset + 2] & 0xffL) << 16
          | (b[offset + 3] & 0xffL) << 24;
    }
    if (blob instanceof Number n && offset == 0) {
      return n.longValue() & INVALID;
    }
    return -1;
  }

  /** Stream kinds: _STREAM.flag is a CUPTI_ACTIVITY_STREAM_CREATE_FLAG_* value. */
  private void streams() throws SQLException {
    if (!db.has(STREAM, "streamId") || !db.has(STREAM, "flag")) {
      return;
    }
    try (ResultSet rs = db.query("SELECT streamId, flag FROM " + STREAM)) {
      while (rs.next()) {
        StreamKind k = switch ((int) rs.getLong(2)) {
          case 3 -> StreamKind.LEGACY; // the NULL stream
          case 2 -> StreamKind.NON_BLOCKING;
          default -> StreamKind.BLOCKING; // 1 default flags, 0 unknown
        };
        out.streamKind(PROC, rs.getLong(1), k);
      }
    }
  }

  private void calls(String table, String what, boolean runtime) throws SQLException {
    if (!db.has(table)) {
      source.put(what, 0L);
      return;
    }
    String sql = "SELECT " + or(column(table, "cbid"), "0") + ", start, end, " + or(column(table, "processId"), "0")
        + ", " + or(column(table, "threadId"), "0") + ", " + or(column(table, "correlationId"), "0") + ", "
        + or(column(table, "returnValue"), "0") + " FROM " + table;
    long n = 0;
    long unnamed = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        n++;
        long cbid = rs.getLong(1);
        String fn = runtime ? CuptiCallbacks.runtime(cbid) : CuptiCallbacks.driver(cbid);
        if (fn == null) {
          unnamed++;
          fn = (runtime ? "runtime" : "driver") + " cbid " + cbid;
        }
        long pid = rs.getLong(4) & INVALID;
        out.call(PROC, rs.getLong(6), pid, tid(pid, rs.getLong(5) & INVALID), rs.getLong(2),
            rs.getLong(3) - rs.getLong(2), fn, rs.getLong(7));
      }
    }
    out.warn(what + " whose CUPTI callback id the tables of this build do not name: kept as \"" + (runtime ? "runtime"
        : "driver") + " cbid N\"", unnamed);
    source.put(what, n);
  }

  static long valid(long id) {
    return id < 0 || id == INVALID ? -1 : id;
  }

  /** Events are named by CUPTI's event id plus one (0 means "unknown"). */
  private static long eventHandle(long eventId) {
    return valid(eventId) < 0 ? 0 : eventId + 1;
  }

  private long device(long context) {
    return contextDevice.getOrDefault(context, -1L);
  }

  /** _SYNCHRONIZATION: type is a CUpti_ActivitySynchronizationType, as ImportAssembler's SYNC_* are. */
  private long syncs() throws SQLException {
    if (!db.has(SYNC)) {
      return 0;
    }
    String sql = "SELECT " + or(column(SYNC, "correlationId"), "0") + ", " + or(column(SYNC, "type", "syncType"), "0")
        + ", " + or(column(SYNC, "streamId"), "-1") + ", " + or(column(SYNC, "cudaEventId", "eventId"), "-1") + ", "
        + or(db.first(SYNC, "contextId"), "-1") + " FROM " + SYNC;
    long n = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        n++;
        int type = (int) rs.getLong(2);
        type = type >= 1 && type <= 4 ? type : SyncRow.TYPE_UNKNOWN;
        out.sync(PROC, rs.getLong(1), type, valid(rs.getLong(3)), eventHandle(rs.getLong(4)), -1,
            device(rs.getLong(5)));
      }
    }
    return n;
  }

  /** _CUDA_EVENT: which stream each cudaEventRecord recorded on. */
  private long events() throws SQLException {
    if (!db.has(EVENT)) {
      return 0;
    }
    String sql = "SELECT " + or(column(EVENT, "correlationId"), "0") + ", " + or(column(EVENT, "streamId"), "-1")
        + ", " + or(column(EVENT, "eventId"), "-1") + ", " + or(db.first(EVENT, "contextId"), "-1") + " FROM " + EVENT;
    long n = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        n++;
        out.eventRecord(PROC, rs.getLong(1), valid(rs.getLong(2)), eventHandle(rs.getLong(3)), device(rs.getLong(4)));
      }
    }
    return n;
  }
}
