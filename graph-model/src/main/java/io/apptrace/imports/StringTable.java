package io.apptrace.imports;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A profiler's table of strings by id, which its other tables refer to (nsys's StringIds,
 * nvprof's StringTable; it also holds every symbol of the program). Where the id column is the
 * table's INTEGER PRIMARY KEY (as in every export seen), each string is looked up the first time
 * it is needed, a B-tree search: the few hundred names a trace uses, instead of a scan of every
 * referring table for its ids, which took a sixth of a large import and sorted the ids of all
 * its rows on disk. Otherwise (a file rebuilt without the key) the strings the referring
 * columns name are read at once, and no more. A missing id reads as "".
 */
final class StringTable {
  private final Map<Long, String> strings = new HashMap<>();
  /** The lookup by id, closed with the file's connection; null when all were read at once. */
  private final PreparedStatement byId;

  /**
   * @param refs queries ({@code SELECT col FROM table}) of the ids the other tables refer to, for
   *     the read at once
   */
  StringTable(SqliteFile db, String table, String id, String value, List<String> refs) throws SQLException {
    if (!db.has(table, id) || !db.has(table, value)) {
      byId = null;
    } else if (db.rowidKey(table, id)) {
      byId = db.prepare("SELECT " + value + " FROM " + table + " WHERE " + id + " = ?");
    } else {
      byId = null;
      if (!refs.isEmpty()) {
        try (ResultSet rs = db.query("SELECT " + id + ", " + value + " FROM " + table + " WHERE " + id + " IN ("
            + String.join(" UNION ", refs) + ")")) {
          while (rs.next()) {
            String v = rs.getString(2);
            if (v != null) {
              strings.put(rs.getLong(1), v);
            }
          }
        }
      }
    }
  }

  /** The string with this id, or "". */
  String get(long id) throws SQLException {
    String s = strings.get(id);
    if (s == null) {
      s = "";
      if (byId != null) {
        byId.setLong(1, id);
        try (ResultSet rs = byId.executeQuery()) {
          if (rs.next() && rs.getString(1) != null) {
            s = rs.getString(1);
          }
        }
        strings.put(id, s);
      }
    }
    return s;
  }
}
