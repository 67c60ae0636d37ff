package io.apptrace.imports;

import io.apptrace.proto.AnnotationKind;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads the NVTX ranges and marks of an nvprof profile: table {@code CUPTI_ACTIVITY_KIND_MARKER},
 * one row per CUpti_ActivityMarker2 record. {@code flags} say what a row is (1: a mark, 2: a
 * range's start, 4: its end; pushes and pops come as starts and ends too), {@code id} pairs a
 * start with its end, {@code timestamp} is when, {@code objectId} the {processId, threadId} of the
 * thread (its {@code objectKind} 2; 1, a process, is taken as its first thread), and {@code name}
 * and {@code domain} are StringTable ids (0, "-- null --", for none: the default domain). The
 * category is {@code CUPTI_ACTIVITY_KIND_MARKER_DATA}'s, by the same {@code id}. No real profile
 * seen has markers: this follows CUPTI's record layout and nvprof's way with the other records.
 */
final class NvprofMarkers {
  static final String MARKER = NvprofReader.PREFIX + "MARKER";
  static final String MARKER_DATA = NvprofReader.PREFIX + "MARKER_DATA";
  static final int INSTANTANEOUS = 1;
  static final int START = 2;
  static final int END = 4;
  /** CUpti_ActivityObjectKind. */
  private static final int OBJECT_PROCESS = 1;
  private static final int OBJECT_THREAD = 2;

  /** The trace's thread id of a (pid, CUPTI thread id). */
  interface Threads {
    long of(long pid, long thread);
  }

  private final SqliteFile db;
  private final ImportAssembler out;
  private final StringTable strings;
  private final Threads threads;
  /** Range starts and marks in the table. */
  long ranges;
  long marks;

  NvprofMarkers(SqliteFile db, ImportAssembler out, StringTable strings, Threads threads) {
    this.db = db;
    this.out = out;
    this.strings = strings;
    this.threads = threads;
  }

  /** Hands every range start and end, and mark, to the assembler. */
  void read() throws SQLException {
    if (!db.has(MARKER)) {
      return;
    }
    for (String c : new String[] {"flags", "timestamp", "id", "objectKind", "objectId"}) {
      if (!db.has(MARKER, c)) {
        out.warn("column " + c + " absent from " + MARKER + ": no NVTX range imported");
        return;
      }
    }
    String name = db.has(MARKER, "name") ? "m.name" : "0";
    String domain = db.has(MARKER, "domain") ? "m.domain" : "0";
    boolean data = db.has(MARKER_DATA, "id") && db.has(MARKER_DATA, "category");
    String sql = "SELECT m.flags, m.timestamp, m.id, m.objectKind, m.objectId, " + name + ", " + domain + ", "
        + (data ? "ifnull(d.category, 0)" : "0") + " FROM " + MARKER + " m"
        + (data ? " LEFT JOIN (SELECT id, MAX(category) AS category FROM " + MARKER_DATA + " GROUP BY id) d"
            + " ON d.id = m.id" : "");
    long unplaced = 0;
    long other = 0;
    try (ResultSet rs = db.query(sql)) {
      while (rs.next()) {
        long flags = rs.getLong(1);
        AnnotationKind kind = (flags & INSTANTANEOUS) != 0 ? AnnotationKind.MARK
            : (flags & START) != 0 ? AnnotationKind.RANGE_START : (flags & END) != 0 ? AnnotationKind.RANGE_END : null;
        if (kind == null) {
          other++;
          continue;
        }
        if (kind == AnnotationKind.MARK) {
          marks++;
        } else if (kind == AnnotationKind.RANGE_START) {
          ranges++;
        }
        int objectKind = rs.getInt(4);
        Object object = rs.getObject(5);
        long pid = NvprofReader.u32(object, 0);
        if ((objectKind != OBJECT_THREAD && objectKind != OBJECT_PROCESS) || pid < 0) {
          unplaced++;
          continue;
        }
        long thread = objectKind == OBJECT_THREAD ? NvprofReader.u32(object, 4) : -1;
        long tid = threads.of(pid, thread);
        String message = kind == AnnotationKind.RANGE_END ? "" : text(rs.getLong(6));
        out.annotation(pid, tid, rs.getLong(2), kind, message, text(rs.getLong(7)), rs.getLong(3), rs.getLong(8));
      }
    }
    out.warn("NVTX markers on no host thread (objectKind other than thread or process): ignored", unplaced);
    out.warn("NVTX markers neither a mark nor a range's start or end (flags): ignored", other);
  }

  /** A StringTable string: "" for id 0 ("-- null --", none). */
  private String text(long id) throws SQLException {
    return id == 0 ? "" : strings.get(id);
  }
}
