package io.apptrace.imports;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small nvprof profile written for the tests, in nvprof's SQLite schema: the table and column
 * names of the real profiles in ../shared/realdata/ahead-titan (nvprof, profile version 11),
 * except CUPTI_ACTIVITY_KIND_PCIE, which those lack: its columns here are the fields of
 * CUpti_ActivityPcie, named the way nvprof names the fields of the other records (unions as
 * BLOBs). Every table the importer reads is there; CUPTI_ACTIVITY_KIND_KERNEL is empty (nvprof
 * records kernels in CONCURRENT_KERNEL unless kernels are serialized), and {@link #write} leaves
 * out the tables and columns it is asked to (a profile of another nvprof version).
 *
 * <pre>
 * process 31337 "app --size=1", two host threads: MAIN (CUPTI thread 0xae6f2720) and WORKER
 * (0x00c0ffee, named "worker" in _NAME); GPU 0 (context 1, NULL stream 7) and GPU 1 (context 2,
 * NULL stream 20), both V100, joined by NVLink; stream 13 non-blocking, 14 default flags.
 *
 *  MAIN  corr  call                    GPU work (ns)                  stream
 *        30    cuInit (driver)
 *        1     cudaMalloc
 *        2     cudaMemcpyAsync         HtoD pinned 1 MiB 105-125 us   13
 *        3     cudaLaunchKernel        scale 130-230 us, grid 4x2     13
 *        4     cudaMemsetAsync         4 KiB 231-233 us               13
 *        5     cudaEventRecord         event 6 on                     13
 *        6     cudaStreamWaitEvent     stream 14 waits for event 6
 *        7     cudaLaunchKernel        fill 240-290 us                14
 *        8     cudaMemcpyAsync         DtoH to pageable 2 KiB         14
 *        9     cudaStreamSynchronize   stream 14
 *        10    cudaMemcpy              DtoD 64 KiB                    7 (NULL)
 *        11    cudaDeviceSynchronize
 *        12    cudaEventSynchronize    event 6
 *        13    cudaMemcpyPeerAsync     GPU 0 -> GPU 1, 1 MB (MEMCPY2) 13
 *        14    cudaFree
 *        15    cudaMalloc              fails: 2 (cudaErrorMemoryAllocation)
 *        16    callback id 9999        (no function of that id)
 *        31    cuCtxSynchronize (driver)
 *  WORKER 20   cudaLaunchKernel        scale on GPU 1, 400.5-410.75 us  20 (NULL of GPU 1)
 *  (none) 99                           scale 500-505 us               13
 * </pre>
 */
final class NvprofFixture {
  static final long PID = 31337;
  /** CUPTI's thread ids, as nvprof stores them (signed 32-bit). */
  static final int MAIN_THREAD = 0xae6f2720;
  static final int WORKER_THREAD = 0x00c0ffee;

  /** Column lists of nvprof's tables (every one has an _id_ row id first). */
  static final Map<String, String> TABLES = new LinkedHashMap<>();

  static {
    TABLES.put("Version", "version");
    TABLES.put("StringTable", "value");
    TABLES.put("CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind srcKind dstKind flags bytes start end deviceId contextId"
        + " streamId correlationId runtimeCorrelationId");
    TABLES.put("CUPTI_ACTIVITY_KIND_MEMCPY2", "copyKind srcKind dstKind flags bytes start end deviceId contextId"
        + " streamId srcDeviceId srcContextId dstDeviceId dstContextId correlationId");
    TABLES.put("CUPTI_ACTIVITY_KIND_MEMSET", "value bytes start end deviceId contextId streamId correlationId flags"
        + " memoryKind");
    String kernel = "cacheConfig sharedMemoryConfig registersPerThread partitionedGlobalCacheRequested"
        + " partitionedGlobalCacheExecuted start end completed deviceId contextId streamId gridX gridY gridZ blockX"
        + " blockY blockZ staticSharedMemory dynamicSharedMemory localMemoryPerThread localMemoryTotal correlationId"
        + " gridId name queued submitted launchType isSharedMemoryCarveoutRequested sharedMemoryCarveoutRequested";
    TABLES.put("CUPTI_ACTIVITY_KIND_KERNEL", kernel);
    TABLES.put("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", kernel);
    String api = "cbid start end processId threadId correlationId returnValue";
    TABLES.put("CUPTI_ACTIVITY_KIND_RUNTIME", api);
    TABLES.put("CUPTI_ACTIVITY_KIND_DRIVER", api);
    TABLES.put("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "type start end correlationId contextId streamId cudaEventId");
    TABLES.put("CUPTI_ACTIVITY_KIND_CUDA_EVENT", "correlationId contextId streamId eventId");
    TABLES.put("CUPTI_ACTIVITY_KIND_STREAM", "contextId streamId priority flag correlationId");
    TABLES.put("CUPTI_ACTIVITY_KIND_CONTEXT", "contextId deviceId computeApiKind nullStreamId");
    TABLES.put("CUPTI_ACTIVITY_KIND_NAME", "objectKind objectId name");
    TABLES.put("CUPTI_ACTIVITY_KIND_DEVICE", "flags globalMemoryBandwidth globalMemorySize constantMemorySize"
        + " l2CacheSize numThreadsPerWarp coreClockRate numMemcpyEngines numMultiprocessors maxIPC"
        + " maxWarpsPerMultiprocessor maxBlocksPerMultiprocessor maxSharedMemoryPerMultiprocessor"
        + " maxRegistersPerMultiprocessor maxRegistersPerBlock maxSharedMemoryPerBlock maxThreadsPerBlock maxBlockDimX"
        + " maxBlockDimY maxBlockDimZ maxGridDimX maxGridDimY maxGridDimZ computeCapabilityMajor"
        + " computeCapabilityMinor id eccEnabled uuid name");
    TABLES.put("CUPTI_ACTIVITY_KIND_NVLINK", "nvlinkVersion typeDev0 typeDev1 idDev0 idDev1 flag physicalNvLinkCount"
        + " portDev0 portDev1 bandwidth");
    TABLES.put("CUPTI_ACTIVITY_KIND_PCIE", "type id domain pcieGeneration linkRate linkWidth upstreamBus attr");
    TABLES.put("CUPTI_ACTIVITY_KIND_OVERHEAD", "overheadKind objectKind objectId start end");
    // as in the real profiles, which have them empty
    TABLES.put("CUPTI_ACTIVITY_KIND_MARKER", "flags timestamp id objectKind objectId name domain");
    TABLES.put("CUPTI_ACTIVITY_KIND_MARKER_DATA", "flags id payloadKind payload color category");
  }

  /** Columns nvprof stores as BLOBs: CUPTI's unions and arrays. */
  static final Set<String> BLOBS = Set.of("cacheConfig", "objectId", "uuid", "idDev0", "idDev1", "portDev0",
      "portDev1", "attr", "CUPTI_ACTIVITY_KIND_PCIE.id", "payload");

  static boolean blob(String table, String column) {
    return BLOBS.contains(column) || BLOBS.contains(table + "." + column);
  }

  private final Connection db;
  private final Set<String> omit;
  private final Map<String, Long> strings = new HashMap<>();

  private NvprofFixture(Connection db, Set<String> omit) {
    this.db = db;
    this.omit = omit;
  }

  static byte[] uuid(int gpu) {
    byte[] b = new byte[16];
    for (int i = 0; i < 16; i++) {
      b[i] = (byte) (0x40 + gpu * 16 + i);
    }
    return b;
  }

  /** Little-endian 32-bit fields, as nvprof stores CUPTI's unions. */
  static byte[] le(int... words) {
    ByteBuffer b = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (int w : words) {
      b.putInt(w);
    }
    return b.array();
  }

  private void exec(String sql) throws SQLException {
    try (Statement s = db.createStatement()) {
      s.execute(sql);
    }
  }

  private boolean omitted(String table, String column) {
    return omit.contains(table) || omit.contains(table + "." + column);
  }

  private void create() throws SQLException {
    for (Map.Entry<String, String> t : TABLES.entrySet()) {
      if (omit.contains(t.getKey())) {
        continue;
      }
      List<String> cols = new ArrayList<>();
      if (!t.getKey().equals("Version")) {
        cols.add("_id_ INTEGER PRIMARY KEY AUTOINCREMENT");
      }
      for (String c : t.getValue().split(" ")) {
        if (!omitted(t.getKey(), c)) {
          String type = t.getKey().equals("StringTable") ? "TEXT" : blob(t.getKey(), c) ? "BLOB" : "INT";
          cols.add(c + " " + type + " NOT NULL" + (type.equals("TEXT") ? " UNIQUE" : ""));
        }
      }
      exec("CREATE TABLE " + t.getKey() + "(" + String.join(", ", cols) + ")");
    }
  }

  /** Inserts a row: column, value pairs; columns the table lacks are left out, others default to 0. */
  private void row(String table, Object... kv) throws SQLException {
    if (omit.contains(table)) {
      return;
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (String c : TABLES.get(table).split(" ")) {
      if (!omitted(table, c)) {
        values.put(c, blob(table, c) ? new byte[0] : 0);
      }
    }
    for (int i = 0; i < kv.length; i += 2) {
      if (values.containsKey((String) kv[i])) {
        values.put((String) kv[i], kv[i + 1]);
      }
    }
    String sql = "INSERT INTO " + table + " (" + String.join(", ", values.keySet()) + ") VALUES ("
        + String.join(", ", java.util.Collections.nCopies(values.size(), "?")) + ")";
    try (PreparedStatement p = db.prepareStatement(sql)) {
      int i = 1;
      for (Object v : values.values()) {
        p.setObject(i++, v);
      }
      p.execute();
    }
  }

  private long string(String s) throws SQLException {
    Long id = strings.get(s);
    if (id == null) {
      id = (long) strings.size();
      strings.put(s, id);
      try (PreparedStatement p = db.prepareStatement("INSERT INTO StringTable (_id_, value) VALUES (?, ?)")) {
        p.setLong(1, id);
        p.setString(2, s);
        p.execute();
      }
    }
    return id;
  }

  private void api(String table, int cbid, long start, long end, int thread, long corr, int ret) throws SQLException {
    row(table, "cbid", cbid, "start", start, "end", end, "processId", PID, "threadId", thread, "correlationId", corr,
        "returnValue", ret);
  }

  private void runtime(int cbid, long start, long end, long corr) throws SQLException {
    api("CUPTI_ACTIVITY_KIND_RUNTIME", cbid, start, end, MAIN_THREAD, corr, 0);
  }

  private void kernel(long corr, int device, int context, long stream, long start, long end, String name, int gx,
      int gy, int bx, int dynSmem) throws SQLException {
    row("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "cacheConfig", new byte[] {0x11}, "start", start, "end", end,
        "completed", end, "deviceId", device, "contextId", context, "streamId", stream, "gridX", gx, "gridY", gy,
        "gridZ", 1, "blockX", bx, "blockY", 1, "blockZ", 1, "dynamicSharedMemory", dynSmem, "correlationId", corr,
        "name", string(name), "registersPerThread", 32);
  }

  private void memcpy(long corr, long stream, long start, long end, long bytes, int copyKind, int src, int dst,
      int flags) throws SQLException {
    row("CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind", copyKind, "srcKind", src, "dstKind", dst, "flags", flags, "bytes",
        bytes, "start", start, "end", end, "deviceId", 0, "contextId", 1, "streamId", stream, "correlationId", corr);
  }

  private void sync(long corr, int type, long stream, long event, long start, long end) throws SQLException {
    row("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "type", type, "start", start, "end", end, "correlationId", corr,
        "contextId", 1, "streamId", stream, "cudaEventId", event);
  }

  /**
   * Writes the profile the class comment draws. {@code omit} names tables ("CUPTI_ACTIVITY_KIND_STREAM")
   * or columns ("CUPTI_ACTIVITY_KIND_MEMCPY.srcKind") to leave out.
   */
  static void write(Path file, String... omit) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      NvprofFixture f = new NvprofFixture(c, Set.of(omit));
      f.create();
      f.fill();
    }
  }

  /**
   * The profile {@link #write} writes, with NVTX markers (CUpti_ActivityMarker2 records: flags 1
   * mark, 2 start, 4 end; pushes and pops come as starts and ends):
   *
   * <pre>
   * id  flags      thread            time (ns)         name    domain  category
   * 1   start/end  MAIN              99,000-170,000    step            3
   * 2   start/end  MAIN              119,000-126,000   launch
   * 3   start/end  WORKER, end MAIN  199,000-300,000   io      net
   * 4   mark       MAIN              150,000           go
   * 5   mark       0x0badf00d        50,000            hello             (a thread that made no call)
   * 6   mark       stream 13         160,000           gpu               (on no host thread: ignored)
   * 7   start      MAIN              425,000           open              (never ended)
   * </pre>
   */
  static void writeWithMarkers(Path file) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      NvprofFixture f = new NvprofFixture(c, Set.of());
      f.create();
      f.fill();
      f.marker(1, 2, 99_000, MAIN_THREAD, "step", null);
      f.marker(1, 4, 170_000, MAIN_THREAD, null, null);
      f.row("CUPTI_ACTIVITY_KIND_MARKER_DATA", "flags", 2, "id", 1, "payload", new byte[8], "color", 0xff00ff00,
          "category", 3);
      f.marker(2, 2, 119_000, MAIN_THREAD, "launch", null);
      f.marker(2, 4, 126_000, MAIN_THREAD, null, null);
      f.marker(3, 2, 199_000, WORKER_THREAD, "io", "net");
      f.marker(3, 4, 300_000, MAIN_THREAD, null, "net");
      f.marker(4, 1, 150_000, MAIN_THREAD, "go", null);
      f.marker(5, 1, 50_000, 0x0badf00d, "hello", null);
      f.row("CUPTI_ACTIVITY_KIND_MARKER", "flags", 1, "timestamp", 160_000, "id", 6, "objectKind", 5, "objectId",
          le(0, 1, 13), "name", f.string("gpu"), "domain", 0);
      f.marker(7, 2, 425_000, MAIN_THREAD, "open", null);
    }
  }

  private void marker(long id, int flags, long ns, int thread, String name, String domain) throws SQLException {
    row("CUPTI_ACTIVITY_KIND_MARKER", "flags", flags, "timestamp", ns, "id", id, "objectKind", 2, "objectId",
        le((int) PID, thread, 0), "name", name == null ? 0 : string(name), "domain",
        domain == null ? 0 : string(domain));
  }

  /** Every table, and no rows but the version and StringTable's first entry (a profile of a run that did nothing). */
  static void writeEmpty(Path file) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      NvprofFixture f = new NvprofFixture(c, Set.of());
      f.create();
      f.row("Version", "version", 11);
      f.string("-- null --");
    }
  }

  private void fill() throws SQLException {
    row("Version", "version", 11);
    string("-- null --");
    String v100 = "Tesla V100-SXM2-16GB";
    for (int gpu = 0; gpu < 2; gpu++) {
      row("CUPTI_ACTIVITY_KIND_DEVICE", "id", gpu, "name", string(v100), "numMultiprocessors", 80,
          "globalMemorySize", 16_945_512_448L, "numMemcpyEngines", 6, "computeCapabilityMajor", 7,
          "computeCapabilityMinor", 0, "coreClockRate", 1_530_000, "globalMemoryBandwidth", 898_048_000,
          "eccEnabled", 1, "uuid", uuid(gpu), "numThreadsPerWarp", 32);
      row("CUPTI_ACTIVITY_KIND_CONTEXT", "contextId", gpu + 1, "deviceId", gpu, "computeApiKind", 1,
          "nullStreamId", gpu == 0 ? 7 : 20);
    }
    row("CUPTI_ACTIVITY_KIND_NVLINK", "nvlinkVersion", 2, "typeDev0", 1, "typeDev1", 1, "idDev0", uuid(0), "idDev1",
        uuid(1), "physicalNvLinkCount", 2, "bandwidth", 50_000_000);
    row("CUPTI_ACTIVITY_KIND_NVLINK", "nvlinkVersion", 2, "typeDev0", 1, "typeDev1", 2, "idDev0", uuid(1), "idDev1",
        le(0, 0, 0, 0), "physicalNvLinkCount", 1, "bandwidth", 25_000_000);
    row("CUPTI_ACTIVITY_KIND_PCIE", "type", 0, "id", le(0), "domain", 0, "pcieGeneration", 3, "linkRate", 8,
        "linkWidth", 16, "upstreamBus", 0x1a);
    row("CUPTI_ACTIVITY_KIND_PCIE", "type", 1, "id", le(5), "domain", 0, "pcieGeneration", 3, "linkRate", 8,
        "linkWidth", 16, "upstreamBus", 0x17);
    row("CUPTI_ACTIVITY_KIND_STREAM", "contextId", 1, "streamId", 7, "flag", 3);
    row("CUPTI_ACTIVITY_KIND_STREAM", "contextId", 1, "streamId", 13, "flag", 2);
    row("CUPTI_ACTIVITY_KIND_STREAM", "contextId", 1, "streamId", 14, "flag", 1, "priority", -1);
    row("CUPTI_ACTIVITY_KIND_STREAM", "contextId", 2, "streamId", 20, "flag", 3);
    row("CUPTI_ACTIVITY_KIND_NAME", "objectKind", 1, "objectId", le((int) PID, 0, 0), "name", string("app --size=1"));
    row("CUPTI_ACTIVITY_KIND_NAME", "objectKind", 2, "objectId", le((int) PID, WORKER_THREAD, 0), "name",
        string("worker"));
    row("CUPTI_ACTIVITY_KIND_OVERHEAD", "overheadKind", 131072, "objectKind", 1, "objectId", le((int) PID, 0, 0),
        "start", 60_000, "end", 61_000);

    api("CUPTI_ACTIVITY_KIND_DRIVER", 1, 500, 900, MAIN_THREAD, 30, 0); // cuInit
    runtime(20, 1_000, 51_000, 1); // cudaMalloc
    runtime(41, 100_000, 110_000, 2); // cudaMemcpyAsync
    memcpy(2, 13, 105_000, 125_000, 1 << 20, 1, 2, 3, 1); // HtoD pinned -> device, async
    runtime(211, 120_000, 125_000, 3); // cudaLaunchKernel
    kernel(3, 0, 1, 13, 130_000, 230_000, "_Z5scalePfi", 4, 2, 128, 256);
    runtime(51, 130_000, 134_000, 4); // cudaMemsetAsync
    row("CUPTI_ACTIVITY_KIND_MEMSET", "value", 0, "bytes", 4096, "start", 231_000, "end", 233_000, "deviceId", 0,
        "contextId", 1, "streamId", 13, "correlationId", 4, "flags", 1, "memoryKind", 3);
    runtime(135, 140_000, 142_000, 5); // cudaEventRecord
    row("CUPTI_ACTIVITY_KIND_CUDA_EVENT", "correlationId", 5, "contextId", 1, "streamId", 13, "eventId", 6);
    runtime(147, 145_000, 147_000, 6); // cudaStreamWaitEvent
    sync(6, 2, 14, 6, 145_500, 146_000);
    runtime(211, 150_000, 155_000, 7); // cudaLaunchKernel
    kernel(7, 0, 1, 14, 240_000, 290_000, "_Z4fillIfEvPT_i", 1, 1, 32, 0);
    runtime(41, 160_000, 168_000, 8); // cudaMemcpyAsync
    memcpy(8, 14, 291_000, 301_000, 2048, 2, 3, 1, 1); // DtoH device -> pageable
    runtime(131, 170_000, 305_000, 9); // cudaStreamSynchronize
    sync(9, 3, 14, -1, 170_500, 304_000);
    runtime(31, 310_000, 340_000, 10); // cudaMemcpy
    memcpy(10, 7, 315_000, 335_000, 65536, 8, 3, 3, 0); // DtoD on the NULL stream
    runtime(165, 345_000, 348_000, 11); // cudaDeviceSynchronize
    sync(11, 4, -1, -1, 345_500, 347_000);
    runtime(137, 350_000, 352_000, 12); // cudaEventSynchronize
    sync(12, 1, -1, 6, 350_500, 351_000);
    runtime(161, 360_000, 366_000, 13); // cudaMemcpyPeerAsync
    row("CUPTI_ACTIVITY_KIND_MEMCPY2", "copyKind", 10, "srcKind", 3, "dstKind", 3, "flags", 1, "bytes", 1_000_000,
        "start", 370_000, "end", 385_000, "deviceId", 0, "contextId", 1, "streamId", 13, "srcDeviceId", 0,
        "srcContextId", 1, "dstDeviceId", 1, "dstContextId", 2, "correlationId", 13);
    runtime(22, 400_000, 410_000, 14); // cudaFree
    api("CUPTI_ACTIVITY_KIND_RUNTIME", 20, 420_000, 421_000, MAIN_THREAD, 15, 2); // cudaMalloc fails
    runtime(9999, 422_000, 423_000, 16);
    api("CUPTI_ACTIVITY_KIND_DRIVER", 17, 430_000, 431_000, MAIN_THREAD, 31, 0); // cuCtxSynchronize
    sync(31, 4, -1, -1, 430_100, 430_900);
    api("CUPTI_ACTIVITY_KIND_RUNTIME", 211, 200_000, 207_000, WORKER_THREAD, 20, 0); // cudaLaunchKernel
    kernel(20, 1, 2, 20, 400_500, 410_750, "_Z5scalePfi", 8, 1, 256, 0);
    kernel(99, 0, 1, 13, 500_000, 505_000, "_Z5scalePfi", 1, 1, 1, 0); // its call is not in the profile
  }
}
