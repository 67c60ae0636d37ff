package io.apptrace.imports;

import java.nio.ByteBuffer;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What an nvprof profile says of the machine, as notes in the trace: each GPU of
 * CUPTI_ACTIVITY_KIND_DEVICE (name, SMs, memory, copy engines, compute capability, clock, memory
 * bandwidth, ECC), each link of _NVLINK and each GPU or bridge of _PCIE (tables only newer nvprof
 * versions write). Links name their GPUs by the device ids _DEVICE gives their UUIDs.
 */
final class NvprofTopology {
  static final String NVLINK = NvprofReader.PREFIX + "NVLINK";
  static final String PCIE = NvprofReader.PREFIX + "PCIE";

  private final SqliteFile db;
  private final ImportAssembler out;
  private final StringTable strings;
  /** Device ids by UUID (16 bytes). */
  private final Map<ByteBuffer, Long> byUuid = new HashMap<>();

  NvprofTopology(SqliteFile db, ImportAssembler out, StringTable strings) {
    this.db = db;
    this.out = out;
    this.strings = strings;
  }

  private String col(String table, String column) {
    return NvprofReader.or(db.first(table, column), "NULL");
  }

  /** One note a GPU: "GPU 0: Tesla K20X, 14 SMs, 5.6 GiB, 2 copy engines, compute capability 3.5, ...". */
  void devices() throws SQLException {
    String t = NvprofReader.DEVICE;
    if (!db.has(t, "id")) {
      return;
    }
    String[] cols = {"name", "numMultiprocessors", "globalMemorySize", "numMemcpyEngines", "computeCapabilityMajor",
        "computeCapabilityMinor", "coreClockRate", "globalMemoryBandwidth", "eccEnabled", "uuid"};
    StringBuilder sql = new StringBuilder("SELECT id");
    for (String c : cols) {
      sql.append(", ").append(col(t, c));
    }
    try (ResultSet rs = db.query(sql + " FROM " + t + " ORDER BY id")) {
      while (rs.next()) {
        long id = rs.getLong(1);
        String name = rs.getObject(2) != null ? strings.get(rs.getLong(2)) : "";
        StringBuilder s = new StringBuilder("GPU ").append(id).append(": ").append(name.isEmpty() ? "unnamed" : name);
        if (rs.getObject(3) != null) {
          s.append(", ").append(rs.getLong(3)).append(" SMs");
        }
        if (rs.getObject(4) != null) {
          s.append(String.format(Locale.ROOT, ", %.1f GiB", rs.getLong(4) / (double) (1L << 30)));
        }
        if (rs.getObject(5) != null) {
          s.append(", ").append(rs.getLong(5)).append(" copy engines");
        }
        if (rs.getObject(6) != null && rs.getObject(7) != null) {
          s.append(", compute capability ").append(rs.getLong(6)).append('.').append(rs.getLong(7));
        }
        if (rs.getObject(8) != null) { // kHz
          s.append(String.format(Locale.ROOT, ", %d MHz", rs.getLong(8) / 1000));
        }
        if (rs.getObject(9) != null) { // kB/s
          s.append(String.format(Locale.ROOT, ", %.1f GB/s memory bandwidth", rs.getLong(9) / 1e6));
        }
        if (rs.getObject(10) != null) {
          s.append(rs.getLong(10) != 0 ? ", ECC on" : ", ECC off");
        }
        if (rs.getObject(11) instanceof byte[] uuid && uuid.length == 16) {
          byUuid.put(ByteBuffer.wrap(uuid), id);
        }
        out.note(s.toString(), "info");
      }
    }
  }

  /** One note a row of _NVLINK and of _PCIE. */
  void links() throws SQLException {
    if (db.has(NVLINK, "typeDev0")) {
      nvlinks();
    }
    if (db.has(PCIE)) {
      pcie();
    }
  }

  /** CUpti_ActivityNvLink: two endpoints (CUpti_DevType 1 GPU by UUID, 2 NPU by index), links, kB/s. */
  private void nvlinks() throws SQLException {
    String sql = "SELECT " + col(NVLINK, "nvlinkVersion") + ", typeDev0, " + col(NVLINK, "idDev0") + ", "
        + col(NVLINK, "typeDev1") + ", " + col(NVLINK, "idDev1") + ", " + col(NVLINK, "physicalNvLinkCount") + ", "
        + col(NVLINK, "bandwidth") + " FROM " + NVLINK;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        StringBuilder s = new StringBuilder("NVLink");
        if (rs.getObject(1) != null) {
          s.append(' ').append(rs.getLong(1));
        }
        s.append(" between ").append(endpoint(rs.getLong(2), rs.getObject(3))).append(" and ")
            .append(endpoint(rs.getLong(4), rs.getObject(5)));
        if (rs.getObject(6) != null) {
          s.append(": ").append(rs.getLong(6)).append(rs.getLong(6) == 1 ? " link" : " links");
        }
        if (rs.getObject(7) != null) {
          s.append(String.format(Locale.ROOT, ", %.1f GB/s", rs.getLong(7) / 1e6));
        }
        out.note(s.toString(), "info");
      }
    }
  }

  private String endpoint(long type, Object id) {
    if (type == 1) {
      Long dev = id instanceof byte[] b && b.length >= 16 ? byUuid.get(ByteBuffer.wrap(b, 0, 16).slice()) : null;
      return dev != null ? "GPU " + dev : "a GPU not in " + NvprofReader.DEVICE;
    }
    if (type == 2) {
      long index = NvprofReader.u32(id, 0);
      return index >= 0 ? "CPU " + index : "a CPU";
    }
    return "an unknown device";
  }

  /** CUpti_ActivityPcie: a GPU (type 0, by device id) or a bridge (type 1), its generation and link. */
  private void pcie() throws SQLException {
    String sql = "SELECT " + col(PCIE, "type") + ", " + col(PCIE, "id") + ", " + col(PCIE, "domain") + ", "
        + col(PCIE, "pcieGeneration") + ", " + col(PCIE, "linkRate") + ", " + col(PCIE, "linkWidth") + ", "
        + col(PCIE, "upstreamBus") + " FROM " + PCIE;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        long id = NvprofReader.u32(rs.getObject(2), 0);
        StringBuilder s = new StringBuilder("PCIe ").append(rs.getObject(1) == null ? "device"
            : rs.getLong(1) == 0 ? "GPU" : rs.getLong(1) == 1 ? "bridge" : "device");
        if (id >= 0) {
          s.append(' ').append(id);
        }
        String sep = ": ";
        if (rs.getObject(4) != null) {
          s.append(sep).append("gen ").append(rs.getLong(4));
          sep = ", ";
        }
        if (rs.getObject(5) != null) {
          s.append(sep).append(rs.getLong(5)).append(" GT/s");
          sep = ", ";
        }
        if (rs.getObject(6) != null) {
          s.append(sep).append('x').append(rs.getLong(6));
          sep = ", ";
        }
        if (rs.getObject(3) != null) {
          s.append(sep).append("domain ").append(rs.getLong(3));
          sep = ", ";
        }
        if (rs.getObject(7) != null) {
          s.append(sep).append(String.format(Locale.ROOT, "upstream bus %02x", rs.getLong(7)));
        }
        out.note(s.toString(), "info");
      }
    }
  }
}
