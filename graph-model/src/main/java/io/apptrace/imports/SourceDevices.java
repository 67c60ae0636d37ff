package io.apptrace.imports;

import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.DeviceInfoSource;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The GPUs a profiler's trace describes, as DeviceInfo records (docs/IMPORT.md says which field
 * comes from which column or key): Kineto's "deviceProperties", Nsight Systems' TARGET_INFO_GPU,
 * nvprof's CUPTI_ACTIVITY_KIND_DEVICE. A value the source lacks, or gives as NULL or as something
 * other than a number, is left unset (0).
 */
final class SourceDevices {
  private SourceDevices() {}

  /** Kineto: one element of "deviceProperties", its scalar values as text. */
  static DeviceInfo kineto(Map<String, String> d) {
    DeviceInfo.Builder b = DeviceInfo.newBuilder().setSource(DeviceInfoSource.KINETO_DEVICE_PROPERTIES)
        .setDevice((int) number(d.get("id"), 0)).setName(d.getOrDefault("name", ""))
        .setTotalMemoryBytes(number(d.get("totalGlobalMem"), 0))
        .setComputeMajor((int) number(d.get("computeMajor"), 0))
        .setComputeMinor((int) number(d.get("computeMinor"), 0))
        .setMultiprocessorCount((int) number(d.get("numSms"), 0))
        .setMaxThreadsPerBlock((int) number(d.get("maxThreadsPerBlock"), 0))
        .setMaxThreadsPerMultiprocessor((int) number(d.get("maxThreadsPerMultiprocessor"), 0))
        .setRegistersPerBlock((int) number(d.get("regsPerBlock"), 0))
        .setRegistersPerMultiprocessor((int) number(d.get("regsPerMultiprocessor"), 0))
        .setWarpSize((int) number(d.get("warpSize"), 0))
        .setSharedMemPerBlockBytes(number(d.get("sharedMemPerBlock"), 0))
        .setSharedMemPerMultiprocessorBytes(number(d.get("sharedMemPerMultiprocessor"), 0))
        .setSharedMemPerBlockOptinBytes(number(d.get("sharedMemPerBlockOptin"), 0))
        // keys no Kineto version seen writes, but cudaDeviceProp's names should one add them
        .setMaxBlocksPerMultiprocessor((int) number(d.get("maxBlocksPerMultiProcessor"), 0))
        .setL2CacheBytes(number(d.get("l2CacheSize"), 0))
        .setClockRateKhz((int) number(d.get("clockRate"), 0))
        .setMemoryClockRateKhz((int) number(d.get("memoryClockRate"), 0))
        .setMemoryBusWidthBits((int) number(d.get("memoryBusWidth"), 0));
    return b.build();
  }

  /** A non-negative integer from text ("108", "8.0"), else {@code otherwise}. */
  static long number(String s, long otherwise) {
    if (s == null) {
      return otherwise;
    }
    try {
      long v = Long.parseLong(s.trim());
      return v >= 0 ? v : otherwise;
    } catch (NumberFormatException e) {
      try {
        double v = Double.parseDouble(s.trim());
        return v >= 0 && v < 9.2e18 ? (long) v : otherwise;
      } catch (NumberFormatException e2) {
        return otherwise;
      }
    }
  }

  /**
   * Nsight Systems: TARGET_INFO_GPU, one row per GPU of the machine. Its {@code id} is the device
   * id of the CUPTI tables' {@code deviceId}, unless TARGET_INFO_CUDA_CONTEXT_INFO maps a device
   * id to another {@code hwId}. {@code clockRate} is in Hz in the exports seen (1410000000 for an
   * A100); a value under 10^7 is taken as kHz.
   */
  static void nsys(SqliteFile db, ImportAssembler out) throws SQLException {
    String t = "TARGET_INFO_GPU";
    if (!db.has(t, "id")) {
      return;
    }
    Map<Long, Long> deviceOfHw = new HashMap<>();
    String ctx = "TARGET_INFO_CUDA_CONTEXT_INFO";
    if (db.has(ctx, "hwId") && db.has(ctx, "deviceId")) {
      try (ResultSet rs = db.query("SELECT DISTINCT hwId, deviceId FROM " + ctx + " WHERE hwId IS NOT NULL"
          + " AND deviceId IS NOT NULL")) {
        while (rs.next()) {
          deviceOfHw.putIfAbsent(rs.getLong(1), rs.getLong(2));
        }
      }
    }
    String[] cols = {"name", "busLocation", "l2CacheSize", "totalMemory", "memoryBandwidth", "clockRate", "smCount",
        "maxRegistersPerBlock", "maxShmemPerBlock", "maxShmemPerBlockOptin", "maxShmemPerSm", "maxRegistersPerSm",
        "threadsPerWarp", "maxWarpsPerSm", "maxBlocksPerSm", "maxThreadsPerBlock", "computeMajor", "computeMinor"};
    StringBuilder sql = new StringBuilder("SELECT id");
    for (String c : cols) {
      sql.append(", ").append(NvprofReader.or(db.first(t, c), "NULL"));
    }
    try (ResultSet rs = db.query(sql + " FROM " + t + " ORDER BY id")) {
      while (rs.next()) {
        long id = rs.getLong(1);
        long clock = n(rs, 7);
        int warp = (int) n(rs, 14);
        out.device(DeviceInfo.newBuilder().setSource(DeviceInfoSource.NSYS_TARGET_INFO_GPU)
            .setDevice((int) (long) deviceOfHw.getOrDefault(id, id)).setName(text(rs, 2)).setPciBusId(text(rs, 3))
            .setL2CacheBytes(n(rs, 4)).setTotalMemoryBytes(n(rs, 5)).setMemoryBandwidthBytesPerSec(n(rs, 6))
            .setClockRateKhz((int) (clock >= 10_000_000 ? clock / 1000 : clock)).setMultiprocessorCount((int) n(rs, 8))
            .setRegistersPerBlock((int) n(rs, 9)).setSharedMemPerBlockBytes(n(rs, 10))
            .setSharedMemPerBlockOptinBytes(n(rs, 11)).setSharedMemPerMultiprocessorBytes(n(rs, 12))
            .setRegistersPerMultiprocessor((int) n(rs, 13)).setWarpSize(warp)
            .setMaxThreadsPerMultiprocessor((int) times(n(rs, 15), warp)).setMaxBlocksPerMultiprocessor((int) n(rs, 16))
            .setMaxThreadsPerBlock((int) n(rs, 17)).setComputeMajor((int) n(rs, 18))
            .setComputeMinor((int) n(rs, 19)).build());
      }
    }
  }

  /**
   * nvprof: CUPTI_ACTIVITY_KIND_DEVICE (CUpti_ActivityDevice), one row per GPU: core clock in
   * kHz, global memory bandwidth in kB/s, the name an id into StringTable.
   */
  static void nvprof(SqliteFile db, StringTable strings, ImportAssembler out) throws SQLException {
    String t = NvprofReader.DEVICE;
    if (!db.has(t, "id")) {
      return;
    }
    String[] cols = {"name", "globalMemorySize", "globalMemoryBandwidth", "l2CacheSize", "numThreadsPerWarp",
        "coreClockRate", "numMultiprocessors", "maxWarpsPerMultiprocessor", "maxBlocksPerMultiprocessor",
        "maxSharedMemoryPerMultiprocessor", "maxRegistersPerMultiprocessor", "maxRegistersPerBlock",
        "maxSharedMemoryPerBlock", "maxThreadsPerBlock", "computeCapabilityMajor", "computeCapabilityMinor"};
    StringBuilder sql = new StringBuilder("SELECT id");
    for (String c : cols) {
      sql.append(", ").append(NvprofReader.or(db.first(t, c), "NULL"));
    }
    try (ResultSet rs = db.query(sql + " FROM " + t + " ORDER BY id")) {
      while (rs.next()) {
        int warp = (int) n(rs, 6);
        out.device(DeviceInfo.newBuilder().setSource(DeviceInfoSource.NVPROF_DEVICE).setDevice((int) rs.getLong(1))
            .setName(rs.getObject(2) != null ? strings.get(rs.getLong(2)) : "").setTotalMemoryBytes(n(rs, 3))
            .setMemoryBandwidthBytesPerSec(times(n(rs, 4), 1000)).setL2CacheBytes(n(rs, 5)).setWarpSize(warp)
            .setClockRateKhz((int) n(rs, 7)).setMultiprocessorCount((int) n(rs, 8))
            .setMaxThreadsPerMultiprocessor((int) times(n(rs, 9), warp)).setMaxBlocksPerMultiprocessor((int) n(rs, 10))
            .setSharedMemPerMultiprocessorBytes(n(rs, 11)).setRegistersPerMultiprocessor((int) n(rs, 12))
            .setRegistersPerBlock((int) n(rs, 13)).setSharedMemPerBlockBytes(n(rs, 14))
            .setMaxThreadsPerBlock((int) n(rs, 15)).setComputeMajor((int) n(rs, 16))
            .setComputeMinor((int) n(rs, 17)).build());
      }
    }
  }

  /** Column {@code i} as a non-negative integer; 0 when NULL, negative or not a number. */
  private static long n(ResultSet rs, int i) throws SQLException {
    Object v = rs.getObject(i);
    if (v instanceof Number x) {
      long l = x.longValue();
      return Math.max(l, 0);
    }
    return v instanceof String s ? number(s, 0) : 0;
  }

  /** a * b, or 0 when that does not fit a long (a damaged or forged file). */
  private static long times(long a, long b) {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      return 0;
    }
  }

  private static String text(ResultSet rs, int i) throws SQLException {
    Object v = rs.getObject(i);
    return v == null ? "" : v.toString();
  }
}
