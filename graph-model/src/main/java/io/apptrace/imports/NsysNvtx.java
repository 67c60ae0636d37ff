package io.apptrace.imports;

import io.apptrace.proto.AnnotationKind;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the NVTX ranges and marks of an Nsight Systems SQLite export: table {@code NVTX_EVENTS},
 * one row per range (push/pop, {@code eventType} 59, and start/end, 60: {@code start} and
 * {@code end}, an {@code end} of NULL for a range never closed) or mark (34, at {@code start}),
 * on the thread {@code globalTid} names as the CUDA tables do; the message is {@code text}, or the
 * registered string {@code textId} names in StringIds. A domain is named by the row of
 * {@code eventType} 75 (domain create) with its {@code domainId} in the same process; domain 0 is
 * the default one. Rows of other types (categories, thread names, ...) are not ranges.
 */
final class NsysNvtx {
  static final String TABLE = "NVTX_EVENTS";
  static final int MARK = 34;
  static final int PUSH_POP_RANGE = 59;
  static final int START_END_RANGE = 60;
  static final int DOMAIN_CREATE = 75;

  private final SqliteFile db;
  private final ImportAssembler out;
  private final StringTable names;
  /** Domain names by (pid, domainId). */
  private final Map<Long, Map<Long, String>> domains = new HashMap<>();
  long ranges;
  long marks;

  NsysNvtx(SqliteFile db, ImportAssembler out, StringTable names) {
    this.db = db;
    this.out = out;
    this.names = names;
  }

  /** Hands every range and mark to the assembler; a table without them hands nothing. */
  void read() throws SQLException {
    if (!db.has(TABLE, "start") || !db.has(TABLE, "eventType") || !db.has(TABLE, "globalTid")) {
      if (db.has(TABLE)) {
        out.warn("table " + TABLE + " without its start, eventType or globalTid column: no NVTX range imported");
      }
      return;
    }
    String end = or(db.first(TABLE, "end"), "NULL");
    String text = or(db.first(TABLE, "text"), "NULL");
    String textId = or(db.first(TABLE, "textId"), "NULL");
    String domainId = or(db.first(TABLE, "domainId"), "0");
    String category = or(db.first(TABLE, "category"), "0");
    try (ResultSet rs = db.query("SELECT globalTid, " + domainId + ", " + text + " FROM " + TABLE
        + " WHERE eventType = " + DOMAIN_CREATE)) {
      while (rs.next()) {
        domains.computeIfAbsent(NsysReader.pidOf(rs.getLong(1)), k -> new HashMap<>())
            .put(rs.getLong(2), String.valueOf(rs.getString(3)));
      }
    }
    try (ResultSet rs = db.query("SELECT eventType, start, " + end + ", globalTid, " + text + ", " + textId + ", "
        + domainId + ", ifnull(" + category + ", 0) FROM " + TABLE + " WHERE eventType IN (" + MARK + ", "
        + PUSH_POP_RANGE + ", " + START_END_RANGE + ")")) {
      while (rs.next()) {
        int type = rs.getInt(1);
        long start = rs.getLong(2);
        long g = rs.getLong(4);
        long pid = NsysReader.pidOf(g);
        long tid = NsysReader.tidOf(g);
        String message = rs.getString(5);
        if (message == null) {
          long id = rs.getLong(6);
          message = rs.wasNull() ? "" : names.get(id);
        }
        String domain = domain(pid, rs.getLong(7));
        long cat = rs.getLong(8);
        if (type == MARK) {
          marks++;
          out.annotation(pid, tid, start, AnnotationKind.MARK, message, domain, 0, cat);
        } else {
          ranges++;
          long e = rs.getLong(3);
          out.range(pid, tid, start, rs.wasNull() ? Long.MIN_VALUE : e, message, domain, cat);
        }
      }
    }
  }

  /** {@code col} or a constant when the table lacks it. */
  private static String or(String col, String constant) {
    return col != null ? col : constant;
  }

  /** A domain's name: "" for the default domain (0) and for one the file does not name. */
  private String domain(long pid, long id) {
    if (id == 0) {
      return "";
    }
    Map<Long, String> d = domains.get(pid);
    String name = d == null ? null : d.get(id);
    if (name == null) {
      out.warn("NVTX ranges and marks of a domain the export does not name (taken as the default domain)");
      return "";
    }
    return name;
  }
}
