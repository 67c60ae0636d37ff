package io.apptrace.imports;

import io.apptrace.fuzz.Mutator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Damages a profiler's SQLite export the ways a tool version we never saw, a hand-edited file or a
 * forged one would: tables dropped or emptied, columns dropped or renamed, values NULL, out of
 * range, negative or of another type (text, blobs, reals), rows duplicated, a table replaced by a
 * view that never ends; then, for some inputs, the file's pages corrupted.
 */
final class SqliteMutator {
  private static final List<String> VALUES = List.of("NULL", "0", "-1", "1", "4294967295", "-4294967295",
      "2147483648", "9223372036854775807", "-9223372036854775808", "1e300", "-1e300", "9e999", "0.5", "'abc'",
      "''", "x'00ff'", "'12'", "randomblob(16)", "'NaN'", "printf('%.*c', 100000, 'x')", "zeroblob(70000)");

  private final Path work;

  SqliteMutator(Path work) {
    this.work = work;
  }

  /** A damaged copy of {@code seed} (an SQLite file's bytes). */
  byte[] mutate(byte[] seed, List<byte[]> seeds, Random r) throws IOException {
    Path f = work.resolve("mutating.sqlite");
    Files.write(f, seed);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + f)) {
      try (Statement s = c.createStatement()) {
        // a scratch copy: no rollback journal, no fsync after every statement
        s.execute("PRAGMA journal_mode = OFF");
        s.execute("PRAGMA synchronous = OFF");
      }
      int n = 1 + r.nextInt(4);
      for (int i = 0; i < n; i++) {
        sql(c, r);
      }
    } catch (SQLException e) {
      // a mutation the schema does not allow: the file is what the earlier ones made it
    }
    byte[] b = Files.readAllBytes(f);
    int how = r.nextInt(10);
    if (how < 2) {
      b = pages(b, r);
    } else if (how < 3) {
      b = Mutator.some(b, seeds, r, 4);
    }
    return b;
  }

  private static void sql(Connection c, Random r) throws SQLException {
    List<String> tables = strings(c, "SELECT name FROM sqlite_master WHERE type = 'table'");
    if (tables.isEmpty()) {
      return;
    }
    String t = tables.get(r.nextInt(tables.size()));
    List<String> cols = strings(c, "SELECT name FROM pragma_table_info('" + t + "')");
    String col = cols.isEmpty() ? "rowid" : cols.get(r.nextInt(cols.size()));
    String q = '"' + t + '"';
    String qc = '"' + col + '"';
    try (Statement s = c.createStatement()) {
      switch (r.nextInt(12)) {
        case 0 -> s.execute("DROP TABLE " + q);
        case 1 -> s.execute("DELETE FROM " + q + (r.nextBoolean() ? "" : " WHERE rowid % 2 = 0"));
        case 2 -> {
          loosen(s, t, cols);
          if (cols.size() > 1) {
            s.execute("ALTER TABLE " + q + " DROP COLUMN " + qc);
          }
        }
        case 3 -> s.execute("ALTER TABLE " + q + " RENAME COLUMN " + qc + " TO \"" + col + "_renamed\"");
        case 4, 5, 6, 7 -> {
          loosen(s, t, cols);
          String where = switch (r.nextInt(3)) {
            case 0 -> "";
            case 1 -> " WHERE rowid % 2 = 1";
            default -> " WHERE rowid = (SELECT min(rowid) FROM " + q + ")";
          };
          s.execute("UPDATE " + q + " SET " + qc + " = " + VALUES.get(r.nextInt(VALUES.size())) + where);
        }
        case 8 -> {
          loosen(s, t, cols);
          s.execute("INSERT INTO " + q + " SELECT * FROM " + q);
        }
        case 9 -> {
          loosen(s, t, cols);
          s.execute("UPDATE " + q + " SET " + qc + " = " + qc + " * " + (r.nextBoolean() ? "-1" : "1000000007"));
        }
        case 10 -> {
          loosen(s, t, cols);
          s.execute("ALTER TABLE " + q + " ADD COLUMN \"" + KEYS.get(r.nextInt(KEYS.size())) + "\" "
              + (r.nextBoolean() ? "TEXT DEFAULT 'x'" : "INTEGER DEFAULT -1"));
        }
        default -> {
          if (r.nextInt(4) == 0 && !cols.isEmpty()) {
            // a view named like the table whose rows never end
            s.execute("DROP TABLE " + q);
            StringBuilder v = new StringBuilder("CREATE VIEW " + q + " AS WITH RECURSIVE n(x) AS (SELECT 1 UNION"
                + " ALL SELECT x + 1 FROM n) SELECT ");
            for (int i = 0; i < cols.size(); i++) {
              v.append(i == 0 ? "" : ", ").append("x AS \"").append(cols.get(i)).append('"');
            }
            s.execute(v.append(" FROM n").toString());
          } else {
            s.execute("DROP TABLE IF EXISTS \"StringIds\"");
            s.execute("DROP TABLE IF EXISTS \"StringTable\"");
          }
        }
      }
    }
  }

  /** Columns the importers probe for, added to tables that lack them. */
  private static final List<String> KEYS = List.of("nameId", "name", "globalTid", "globalPid", "correlationId",
      "deviceId", "streamId", "_id_", "value", "start", "end", "flag", "processId", "threadId", "cbid", "objectId");

  /** Rebuilds a table without its constraints (NOT NULL, keys), so that any value fits. */
  private static void loosen(Statement s, String t, List<String> cols) throws SQLException {
    if (cols.isEmpty()) {
      return;
    }
    String q = '"' + t + '"';
    s.execute("DROP TABLE IF EXISTS fuzz_loose");
    s.execute("CREATE TABLE fuzz_loose AS SELECT * FROM " + q);
    s.execute("DROP TABLE " + q);
    s.execute("ALTER TABLE fuzz_loose RENAME TO " + q);
  }

  private static List<String> strings(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** Corrupts the file's header fields or a page's bytes. */
  private static byte[] pages(byte[] b, Random r) {
    if (b.length < 100) {
      return b;
    }
    if (r.nextBoolean()) {
      // the database header: page size (16), counters and the page count (28), schema cookie (40)...
      int[] fields = {16, 18, 19, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 92, 96};
      int at = fields[r.nextInt(fields.length)];
      b[at] = (byte) r.nextInt(256);
      if (r.nextBoolean() && at + 1 < b.length) {
        b[at + 1] = (byte) r.nextInt(256);
      }
      return b;
    }
    int pageSize = ((b[16] & 0xff) << 8 | (b[17] & 0xff)) == 1 ? 65536 : (b[16] & 0xff) << 8 | (b[17] & 0xff);
    if (pageSize < 512 || b.length < pageSize * 2) {
      return Mutator.once(b, List.of(b), r);
    }
    int page = 1 + r.nextInt(b.length / pageSize - 1);
    int at = page * pageSize + r.nextInt(Math.min(pageSize, 64) + (r.nextBoolean() ? pageSize - 64 : 0));
    int n = 1 + r.nextInt(8);
    for (int i = 0; i < n && at + i < b.length; i++) {
      b[at + i] = (byte) r.nextInt(256);
    }
    return b;
  }
}
