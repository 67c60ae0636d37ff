package io.apptrace.imports;

import io.apptrace.proto.JobRank;
import io.apptrace.trace.JobRanks;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an Nsight Systems SQLite export says of the system the run was on: the host name
 * (TARGET_INFO_SYSTEM_ENV), the MPI rank its recorded environment names, the GPUs
 * (TARGET_INFO_GPU, and {@link SourceDevices}), the names of the processes that made CUDA calls
 * and of their threads, and the kind of each stream (TARGET_INFO_CUDA_STREAM, or the older
 * TARGET_INFO_CUDA_NULL_STREAM).
 */
final class NsysSystem {
  private final SqliteFile db;
  private final ImportAssembler out;
  private final StringTable names;

  NsysSystem(SqliteFile db, ImportAssembler out, StringTable names) {
    this.db = db;
    this.out = out;
    this.names = names;
  }

  /**
   * The MPI rank the recorded environment names, when the profiled program ran under a job
   * launcher: the trace is then a rank of a job. Nsight Systems keeps the target process's
   * environment as strings of NUL-separated {@code NAME=value} entries in StringIds; where the
   * blocks that name a rank (a launcher's variables, {@link JobRanks}) all name
   * the same one, that is the rank.
   */
  private void jobRank(String host) throws SQLException {
    if (!db.has("StringIds", "value")) {
      return;
    }
    List<Map<String, String>> blocks = new ArrayList<>();
    // text functions stop at a NUL: the block is searched and read as bytes
    StringBuilder where = new StringBuilder();
    for (String v : new String[] {"PMI_RANK=", "OMPI_COMM_WORLD_RANK=", "PMIX_RANK=", "SLURM_PROCID="}) {
      where.append(where.length() == 0 ? "" : " OR ").append("instr(CAST(value AS BLOB), CAST('").append(v)
          .append("' AS BLOB)) > 0");
    }
    try (ResultSet rs = db.query("SELECT CAST(value AS BLOB) FROM StringIds WHERE instr(CAST(value AS BLOB), x'00') > 0"
        + " AND (" + where + ")")) {
      while (rs.next()) {
        Map<String, String> env = new HashMap<>();
        String block = new String(rs.getBytes(1), StandardCharsets.UTF_8);
        for (String entry : block.split("\u0000")) {
          int eq = entry.indexOf('=');
          if (eq > 0 && JobRanks.reads(entry.substring(0, eq))) {
            env.putIfAbsent(entry.substring(0, eq), entry.substring(eq + 1));
          }
        }
        blocks.add(env);
      }
    }
    // blocks may name the rank through different launchers' variables (PMI and Slurm): one rank if
    // they agree on it and on the job's size
    List<JobRank> ranks = new ArrayList<>();
    try {
      for (Map<String, String> env : blocks) {
        JobRanks.of(env, host).ifPresent(ranks::add);
      }
    } catch (IllegalArgumentException e) {
      out.warn("the recorded environment names no usable MPI rank (" + e.getMessage() + ")");
      return;
    }
    if (ranks.isEmpty()) {
      return;
    }
    JobRank first = ranks.get(0);
    if (ranks.stream().allMatch(r -> r.getRank() == first.getRank() && r.getWorldSize() == first.getWorldSize())) {
      out.job(first);
    } else {
      out.warn("the recorded environments name different MPI ranks: the trace is not taken as a rank of a job");
    }
  }

  /** Host name, GPUs, process and thread names. */
  void system() throws SQLException {
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
      String id = NsysReader.or(db.first("TARGET_INFO_GPU", "id", "cuDevice"), "-1");
      String sms = NsysReader.or(db.first("TARGET_INFO_GPU", "smCount"), "NULL");
      String mem = NsysReader.or(db.first("TARGET_INFO_GPU", "totalMemory"), "NULL");
      String bus = NsysReader.or(db.first("TARGET_INFO_GPU", "busLocation"), "NULL");
      String engines = NsysReader.or(db.first("TARGET_INFO_GPU", "asyncEngines"), "NULL");
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
      String calls = db.has(NsysReader.RUNTIME, "globalTid") ? "SELECT DISTINCT (globalTid >> 24) & 16777215 FROM " + NsysReader.RUNTIME
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
          out.threadName(NsysReader.pidOf(g), NsysReader.tidOf(g), names.get(rs.getLong(2)));
        }
      }
    }
  }

  /** Stream kinds: TARGET_INFO_CUDA_STREAM.flag is a CUPTI_ACTIVITY_STREAM_CREATE_FLAG_* value. */
  void streams() throws SQLException {
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
}
