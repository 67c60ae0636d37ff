package io.apptrace.imports;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * Small Nsight Systems SQLite exports written for the tests, in the two schema generations the
 * importer reads: the recent one (nsys 2024, export schema 3.x: greenContextId, META_DATA_EXPORT,
 * TARGET_INFO_CUDA_STREAM.flag) and an older one (nsys 2022, schema 2.x: each runtime call
 * recorded twice under two names, TARGET_INFO_CUDA_NULL_STREAM, no MEMSET or CUDA_EVENT table).
 * Table and column names are those of the real exports in ../shared/realdata.
 */
final class NsysFixture {
  static final long PID = 4242;
  static final long MAIN = 4242;
  static final long WORKER = 4243;
  static final long INVALID = 0xffffffffL;

  private final Connection db;
  private final Map<String, Long> ids = new HashMap<>();
  private final boolean recent;

  private NsysFixture(Path file, boolean recent) throws SQLException {
    this.db = DriverManager.getConnection("jdbc:sqlite:" + file);
    this.recent = recent;
  }

  static long globalTid(long pid, long tid) {
    return (1L << 48) | pid << 24 | tid;
  }

  private void exec(String sql) throws SQLException {
    try (Statement s = db.createStatement()) {
      s.execute(sql);
    }
  }

  private long id(String s) throws SQLException {
    Long id = ids.get(s);
    if (id == null) {
      id = (long) ids.size() + 10;
      ids.put(s, id);
      try (PreparedStatement p = db.prepareStatement("INSERT INTO StringIds VALUES (?, ?)")) {
        p.setLong(1, id);
        p.setString(2, s);
        p.execute();
      }
    }
    return id;
  }

  private void call(String name, long start, long end, long corr, long tid, long ret) throws SQLException {
    String cols = recent ? "(start, end, eventClass, globalTid, correlationId, nameId, returnValue, callchainId)"
        : "(start, end, eventClass, globalTid, correlationId, nameId, returnValue, callchainId, name)";
    String vals = recent ? "(?, ?, 1, ?, ?, ?, ?, NULL)" : "(?, ?, 1, ?, ?, ?, ?, NULL, NULL)";
    try (PreparedStatement p = db.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME " + cols + " VALUES "
        + vals)) {
      p.setLong(1, start);
      p.setLong(2, end);
      p.setLong(3, globalTid(PID, tid));
      p.setLong(4, corr);
      p.setLong(5, id(name));
      p.setLong(6, ret);
      p.execute();
    }
  }

  private void kernel(long corr, long stream, long start, long end, String name, String shortName, String mangled,
      int gx, int gy, int gz, int bx, int by, int bz, int dynSmem) throws SQLException {
    String green = recent ? "greenContextId, " : "";
    try (PreparedStatement p = db.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId,"
        + " contextId, " + green + "streamId, correlationId, globalPid, demangledName, shortName, mangledName,"
        + " gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) VALUES (?, ?, 0,"
        + " 1, " + (recent ? "NULL, " : "") + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)")) {
      p.setLong(1, start);
      p.setLong(2, end);
      p.setLong(3, stream);
      p.setLong(4, corr);
      p.setLong(5, PID << 24 | 1L << 48);
      p.setLong(6, id(name));
      p.setLong(7, id(shortName));
      p.setLong(8, id(mangled));
      p.setInt(9, gx);
      p.setInt(10, gy);
      p.setInt(11, gz);
      p.setInt(12, bx);
      p.setInt(13, by);
      p.setInt(14, bz);
      p.setInt(15, dynSmem);
      p.execute();
    }
  }

  private void memcpy(long corr, long stream, long start, long end, long bytes, int copyKind, int src, int dst,
      long srcDev, long dstDev) throws SQLException {
    String green = recent ? "greenContextId, " : "";
    try (PreparedStatement p = db.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId,"
        + " contextId, " + green + "streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind,"
        + " srcDeviceId, dstDeviceId) VALUES (?, ?, 0, 1, " + (recent ? "NULL, " : "") + "?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      p.setLong(1, start);
      p.setLong(2, end);
      p.setLong(3, stream);
      p.setLong(4, corr);
      p.setLong(5, PID << 24 | 1L << 48);
      p.setLong(6, bytes);
      p.setInt(7, copyKind);
      p.setInt(8, src);
      p.setInt(9, dst);
      p.setLong(10, srcDev);
      p.setLong(11, dstDev);
      p.execute();
    }
  }

  private void sync(long corr, int type, long stream, long event) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end,"
        + " deviceId, contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES (0, 0, 0, 1, ?, ?, ?,"
        + " ?, ?)")) {
      p.setLong(1, stream);
      p.setLong(2, corr);
      p.setLong(3, PID << 24 | 1L << 48);
      p.setInt(4, type);
      p.setLong(5, event);
      p.execute();
    }
  }

  private void common() throws SQLException {
    exec("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)");
    exec("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER"
        + " NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,"
        + " callchainId INTEGER" + (recent ? "" : ", name INTEGER") + ")");
    String green = recent ? " greenContextId INTEGER," : "";
    exec("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT"
        + " NULL, contextId INTEGER NOT NULL," + green + " streamId INTEGER NOT NULL, correlationId INTEGER,"
        + " globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,"
        + " launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER, gridX INTEGER NOT NULL, gridY"
        + " INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ"
        + " INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
        + " localMemoryPerThread INTEGER, localMemoryTotal INTEGER, gridId INTEGER, sharedMemoryExecuted INTEGER,"
        + " graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER)");
    exec("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT"
        + " NULL, contextId INTEGER NOT NULL," + green + " streamId INTEGER NOT NULL, correlationId INTEGER,"
        + " globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind"
        + " INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId"
        + " INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER)");
    exec("CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId"
        + " INTEGER NOT NULL, contextId INTEGER NOT NULL," + green + " streamId INTEGER NOT NULL, correlationId"
        + " INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL)");
    exec("CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER NOT NULL, name TEXT, busLocation TEXT, totalMemory"
        + " INTEGER, smCount INTEGER, asyncEngines INTEGER)");
    exec("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100-SXM4-40GB', '0000:03:00.0', 42505273344, 108, 5)");
    exec("INSERT INTO TARGET_INFO_GPU VALUES (0, 1, 'NVIDIA A100-SXM4-40GB', '0000:41:00.0', 42505273344, 108, 5)");
    exec("CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER)");
    exec("CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT)");
    exec("INSERT INTO PROCESSES VALUES (" + (PID << 24 | 1L << 48) + ", " + PID + ", 'app')");
    exec("INSERT INTO PROCESSES VALUES (" + (1L << 24 | 1L << 48) + ", 1, 'systemd')");
    exec("CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT, name TEXT, nameEnum INTEGER,"
        + " value TEXT)");
    exec("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, '', 'Hostname', 0, 'nid001608')");
    exec("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, '', 'CpuCores', 0, '128')");
    try (PreparedStatement p = db.prepareStatement("INSERT INTO ThreadNames VALUES (?, 10, ?)")) {
      p.setLong(1, id("main"));
      p.setLong(2, globalTid(PID, MAIN));
      p.execute();
      p.setLong(1, id("worker"));
      p.setLong(2, globalTid(PID, WORKER));
      p.execute();
    }
  }

  /**
   * The recent schema: every kind of record. Times in ns. See NsysImportTest for what each row
   * must become.
   */
  static void recent(Path file) throws SQLException {
    NsysFixture f = new NsysFixture(file, true);
    try (Connection c = f.db) {
      f.common();
      f.exec("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER"
          + " NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId"
          + " INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind"
          + " INTEGER)");
      f.exec("CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
          + " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, eventId INTEGER NOT NULL)");
      f.exec("CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL, vmId INTEGER NOT"
          + " NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL, priority INTEGER NOT NULL, flag INTEGER"
          + " NOT NULL)");
      f.exec("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)");
      f.exec("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2')");
      // streams: 7 the NULL stream, 13 non-blocking, 14 created with default flags
      f.exec("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (7, 0, 1, " + PID + ", 1, 0, 3)");
      f.exec("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (13, 0, 1, " + PID + ", 1, 0, 2)");
      f.exec("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (14, 0, 1, " + PID + ", 1, 4294967291, 1)");
      f.call("cudaMalloc_v3020", 1_000, 51_000, 1, MAIN, 0);
      f.call("cudaMemcpyAsync_v3020", 100_000, 110_000, 2, MAIN, 0);
      f.memcpy(2, 13, 105_000, 125_000, 1 << 20, 1, 1, 2, 0, 0); // HtoD pinned -> device
      f.call("cudaLaunchKernel_v7000", 120_000, 125_000, 3, MAIN, 0);
      f.kernel(3, 13, 130_000, 230_000, "void k1<float>(float*)", "k1", "_Z2k1IfEvPT_", 4, 2, 1, 128, 1, 1, 256);
      f.call("cudaMemsetAsync_v3020", 130_000, 134_000, 4, MAIN, 0);
      f.exec("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (231000, 233000, 0, 1, NULL, 13, 4, "
          + (PID << 24 | 1L << 48) + ", 0, 4096, NULL, 2)");
      f.call("cudaEventRecord_v3020", 140_000, 142_000, 5, MAIN, 0);
      f.exec("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 13, 5, " + (PID << 24 | 1L << 48) + ", 7)");
      f.call("cudaStreamWaitEvent_v3020", 145_000, 147_000, 6, MAIN, 0);
      f.sync(6, 2, 14, 7);
      f.call("cudaLaunchKernel_v7000", 150_000, 155_000, 7, MAIN, 0);
      f.kernel(7, 14, 240_000, 290_000, "k2(int)", "k2", "_Z2k2i", 1, 1, 1, 32, 1, 1, 0);
      f.call("cudaMemcpyAsync_v3020", 160_000, 168_000, 8, MAIN, 0);
      f.memcpy(8, 14, 291_000, 301_000, 2048, 2, 2, 0, 0, 0); // DtoH device -> pageable
      f.call("cudaStreamSynchronize_v3020", 170_000, 305_000, 9, MAIN, 0);
      f.sync(9, 3, 14, INVALID);
      f.call("cudaMemcpy_v3020", 310_000, 340_000, 10, MAIN, 0);
      f.memcpy(10, 7, 315_000, 335_000, 65536, 8, 2, 2, 0, 0); // DtoD on the NULL stream
      f.call("cudaDeviceSynchronize_v3020", 345_000, 348_000, 11, MAIN, 0);
      f.sync(11, 4, INVALID, INVALID);
      f.call("cudaEventSynchronize_v3020", 350_000, 352_000, 12, MAIN, 0);
      f.sync(12, 1, INVALID, 7);
      f.call("cudaMemcpyPeerAsync_v4000", 360_000, 366_000, 13, MAIN, 0);
      f.memcpy(13, 13, 370_000, 385_000, 1_000_000, 10, 2, 2, 0, 1); // PtoP gpu0 -> gpu1
      f.call("cudaFree_v3020", 400_000, 410_000, 14, MAIN, 0);
      f.call("cudaMalloc_v3020", 420_000, 421_000, 15, MAIN, 2); // cudaErrorMemoryAllocation
      f.call("cudaLaunchKernel_v7000", 200_000, 207_000, 20, WORKER, 0);
      f.kernel(20, 7, 400_500, 410_750, "triton_k", "triton_k", "triton_k", 8, 1, 1, 256, 1, 1, 0);
      // GPU work whose call is not in the export
      f.kernel(99, 13, 500_000, 505_000, "orphan", "orphan", "orphan", 1, 1, 1, 1, 1, 1, 0);
    }
  }

  /**
   * The recent schema with NVTX_EVENTS, its columns those of the SAXPY export in
   * ../shared/realdata (eventType 59 push/pop range, 60 start/end range, 34 mark, 75 domain
   * create, 39 a thread's name):
   *
   * <pre>
   * type  thread  time (ns)          text (or textId)  domain
   * 75    MAIN    500                "io" = domain 1
   * 59    MAIN    100,000-400,000    outer
   * 59    MAIN    120,000-160,000    textId "inner"
   * 60    WORKER  130,000-300,000    load              io (its end on MAIN)
   * 34    MAIN    150,000            go
   * 39    MAIN    1,000              "main thread"      (not a range)
   * 59    MAIN    410,000-           tail              (never popped: end NULL)
   * 59    pid 77  10,000-20,000      elsewhere         (a process with no CUDA call: left out)
   * 59    MAIN    200,000-210,000    lost              domain 9, which no row names
   * </pre>
   */
  static void withNvtx(Path file) throws SQLException {
    recent(file);
    NsysFixture f = new NsysFixture(file, true);
    try (Connection c = f.db) {
      f.exec("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId"
          + " INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId"
          + " INTEGER REFERENCES StringIds(id), domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue"
          + " REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT)");
      f.nvtx(500, null, 75, "io", null, MAIN, MAIN, 1);
      f.nvtx(100_000, 400_000L, 59, "outer", null, MAIN, MAIN, 0);
      f.exec("INSERT INTO StringIds VALUES (1000, 'inner')"); // past the ids recent() gave
      f.nvtx(120_000, 160_000L, 59, null, 1000L, MAIN, MAIN, 0);
      f.nvtx(130_000, 300_000L, 60, "load", null, WORKER, MAIN, 1);
      f.nvtx(150_000, null, 34, "go", null, MAIN, MAIN, 0);
      f.nvtx(1_000, null, 39, "main thread", null, MAIN, MAIN, 0);
      f.nvtx(410_000, null, 59, "tail", null, MAIN, MAIN, 0);
      try (PreparedStatement p = c.prepareStatement("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid,"
          + " domainId) VALUES (10000, 20000, 59, 'elsewhere', ?, 0)")) {
        p.setLong(1, (1L << 48) | 77L << 24 | 77);
        p.execute();
      }
      f.nvtx(200_000, 210_000L, 59, "lost", null, MAIN, MAIN, 9);
    }
  }

  private void nvtx(long start, Long end, int type, String text, Long textId, long tid, long endTid, long domain)
      throws SQLException {
    try (PreparedStatement p = db.prepareStatement("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid,"
        + " endGlobalTid, textId, domainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      p.setLong(1, start);
      p.setObject(2, end);
      p.setInt(3, type);
      p.setString(4, text);
      p.setLong(5, globalTid(PID, tid));
      p.setObject(6, type == 60 ? globalTid(PID, endTid) : null);
      p.setObject(7, textId);
      p.setLong(8, domain);
      p.execute();
    }
  }

  /** The older schema: duplicated call records, no MEMSET, CUDA_EVENT or TARGET_INFO_CUDA_STREAM. */
  static void older(Path file) throws SQLException {
    NsysFixture f = new NsysFixture(file, false);
    try (Connection c = f.db) {
      f.common();
      f.exec("CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL, vmId"
          + " INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL)");
      f.exec("INSERT INTO TARGET_INFO_CUDA_NULL_STREAM VALUES (7, 0, 1, " + PID + ", 0, 1)");
      f.exec("CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT)");
      f.exec("INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.9.1')");
      // each call twice: the outer record under the plain name, the inner one under the versioned name
      f.twice("cudaMalloc", 1_000, 41_000, 1);
      f.twice("cudaMemcpy", 50_000, 150_000, 2);
      f.memcpy(2, 7, 90_000, 140_000, 1 << 20, 1, 0, 2, 0, 0); // HtoD pageable
      f.twice("cudaLaunchKernel", 160_000, 170_000, 3);
      f.kernel(3, 7, 175_000, 275_000, "saxpy(int, float, float*, float*)", "saxpy", "_Z5saxpyifPfS_", 4096, 1, 1,
          256, 1, 1, 0);
      f.twice("cudaMemcpy", 171_000, 330_000, 4);
      f.memcpy(4, 7, 280_000, 320_000, 1 << 20, 2, 2, 0, 0, 0); // DtoH pageable, after the kernel
      f.twice("cudaStreamSynchronize", 331_000, 335_000, 5);
    }
  }

  private void twice(String name, long start, long end, long corr) throws SQLException {
    call(name, start, end, corr, MAIN, 0);
    call(name + "_v3020", start + 150, end - 200, corr, MAIN, 0);
  }
}
