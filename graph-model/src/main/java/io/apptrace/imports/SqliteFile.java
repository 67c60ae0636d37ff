package io.apptrace.imports;

import java.io.Closeable;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.Map;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteLimits;

/**
 * A profiler's SQLite export opened read-only through sqlite-jdbc, with what its schema holds:
 * the importers probe tables and columns, since every profiler version writes a slightly
 * different schema. Only tables count: no profiler writes views, and a view can compute rows
 * without end, which would make an import of a small forged file never finish. A string or blob
 * longer than {@link #MAX_VALUE_BYTES} is an error, not an allocation.
 */
final class SqliteFile implements Closeable {
  /** The longest string or blob read from a file: far beyond any name a profiler writes. */
  static final int MAX_VALUE_BYTES = 16 << 20;

  private final Connection db;
  private final Path file;
  private final Map<String, Set<String>> tables = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

  private SqliteFile(Connection db, Path file) throws SQLException {
    this.db = db;
    this.file = file;
    List<String> names = new ArrayList<>();
    try (Statement s = db.createStatement();
        ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table'")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    for (String t : names) {
      Set<String> cols = new LinkedHashSet<>();
      try (Statement s = db.createStatement();
          ResultSet rs = s.executeQuery("PRAGMA table_info(\"" + t.replace("\"", "\"\"") + "\")")) {
        while (rs.next()) {
          cols.add(rs.getString(2).toLowerCase(Locale.ROOT));
        }
      }
      tables.put(t, cols);
    }
  }

  /** Opens a file read-only; the file is never written. */
  static SqliteFile open(Path file) throws SQLException {
    SQLiteConfig c = new SQLiteConfig();
    c.setReadOnly(true);
    c.setOpenMode(org.sqlite.SQLiteOpenMode.READONLY);
    // queries sort and join in temporary storage, not in this process's heap
    c.setTempStore(SQLiteConfig.TempStore.FILE);
    c.setCacheSize(-16 * 1024); // 16 MiB of page cache
    Connection db = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath(), c.toProperties());
    try {
      db.unwrap(SQLiteConnection.class).setLimit(SQLiteLimits.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
      return new SqliteFile(db, file);
    } catch (SQLException | RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /** The same file on a connection of its own (for reading on another thread). */
  SqliteFile reopen() throws SQLException {
    return open(file);
  }

  boolean has(String table) {
    return tables.containsKey(table);
  }

  boolean has(String table, String column) {
    Set<String> c = tables.get(table);
    return c != null && c.contains(column.toLowerCase(Locale.ROOT));
  }

  /** The first of {@code columns} the table has, or null. */
  String first(String table, String... columns) {
    for (String c : columns) {
      if (has(table, c)) {
        return c;
      }
    }
    return null;
  }

  /** Every table's name. */
  Set<String> tables() {
    return tables.keySet();
  }

  long count(String table) throws SQLException {
    try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  /**
   * Whether {@code column} is the table's INTEGER PRIMARY KEY (the rowid itself): a lookup by it
   * is a B-tree search, not a scan of the table.
   */
  boolean rowidKey(String table, String column) throws SQLException {
    if (!has(table, column)) {
      return false;
    }
    String t = table.replace("'", "''");
    try (ResultSet rs = query("SELECT (SELECT count(*) FROM pragma_table_info('" + t + "') WHERE pk > 0),"
        + " (SELECT count(*) FROM pragma_table_info('" + t + "') WHERE pk = 1 AND upper(type) = 'INTEGER'"
        + " AND lower(name) = '" + column.toLowerCase(Locale.ROOT).replace("'", "''") + "')")) {
      return rs.next() && rs.getLong(1) == 1 && rs.getLong(2) == 1;
    }
  }

  /** A statement to run many times with parameters; the caller closes it. */
  PreparedStatement prepare(String sql) throws SQLException {
    return db.prepareStatement(sql);
  }

  /** Runs a query; the caller closes the result set (which closes its statement). */
  ResultSet query(String sql) throws SQLException {
    Statement s = db.createStatement();
    s.closeOnCompletion();
    s.setFetchSize(4096);
    return s.executeQuery(sql);
  }

  @Override
  public void close() {
    try {
      db.close();
    } catch (SQLException ignored) {
      // read-only: nothing to lose
    }
  }
}
