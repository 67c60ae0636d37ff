package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged and forged files the fuzzers found crashing or hanging the importers (docs/RELIABILITY.md,
 * "Hostile and broken input"), each now imported with a warning or refused with one line. The
 * timeouts only catch a hang.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ImportDamageTest {
  @TempDir Path tmp;

  private Importer.Result run(Path in) throws Exception {
    return Importer.run(in, tmp.resolve("out.apptrace"), Importer.Options.defaults().withTmpDir(tmp));
  }

  private Path json(String text) throws Exception {
    Path in = tmp.resolve("in.json");
    Files.writeString(in, text, StandardCharsets.UTF_8);
    return in;
  }

  @Test
  void aTimeNoLongHoldsIsAbsentNotAnOverflow() throws Exception {
    String text = KinetoImportTest.launches(4);
    // the second launch at 1e999999999 us (converted exactly, a number of a billion digits), the
    // third at 2^64 us, the fourth at a string of two million digits
    text = text.replaceFirst("\"ts\": 1000010,", "\"ts\": 1e999999999,")
        .replaceFirst("\"ts\": 1000020,", "\"ts\": 18446744073709551616,")
        .replaceFirst("\"ts\": 1000030,", "\"ts\": \"" + "1".repeat(2_000_000) + "\",");
    Importer.Result r = run(json(text));
    assertThat(r.source()).containsEntry("API calls", 4L).containsEntry("kernels", 4L);
    assertThat(r.imported()).containsEntry("API calls", 1L);
    assertThat(r.warnings()).containsEntry("runtime calls that are not complete events with ts and dur (ignored)", 3L);
  }

  @Test
  void jsonDamagedPartWayImportsWhatPrecedesAndSaysWhy() throws Exception {
    String text = KinetoImportTest.launches(4);
    int at = text.indexOf("\"ts\": 1000020");
    Importer.Result r = run(json(text.substring(0, at) + "\"ts\": ]" + text.substring(at + 13)));
    assertThat(r.source()).containsEntry("API calls", 2L).containsEntry("kernels", 2L);
    assertThat(r.truncatedAt()).isEqualTo("byte " + (at + 7));
    assertThat(r.warnings()).containsKey("the file is not valid JSON from byte " + (at + 7) + " of the decompressed"
        + " JSON on (Unexpected character (']' (code 93)): expected a valid value (JSON String, Number, Array, Object"
        + " or token 'null', 'true' or 'false')): the events before it were imported");
  }

  @Test
  void bytesTheJsonParserTakesForUtf32AreNotJson() throws Exception {
    Path in = tmp.resolve("in.json");
    Files.write(in, new byte[] {'{', 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, ':'});
    assertThatThrownBy(() -> run(in)).isInstanceOf(Importer.ImportException.class)
        .hasMessageStartingWith("a JSON file that is not a Kineto trace: not JSON (Invalid UTF-32 character");
  }

  @Test
  void aGzipCutInsideItsHeaderIsRefused() throws Exception {
    Path in = tmp.resolve("in.json.gz");
    Files.write(in, new byte[] {0x1f, (byte) 0x8b, 8, 0});
    assertThatThrownBy(() -> run(in)).isInstanceOf(Importer.ImportException.class)
        .hasMessage("a gzip file that cannot be decompressed (it ends early, before its first 64 bytes of content:"
            + " the file was cut short)");
  }

  @Test
  void aViewThatNeverEndsIsNotRead() throws Exception {
    Path db = tmp.resolve("forged.sqlite");
    NsysFixture.recent(db);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY");
      s.execute("CREATE VIEW CUPTI_ACTIVITY_KIND_MEMCPY AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1"
          + " FROM n) SELECT x AS start, x AS end, 0 AS deviceId, 0 AS streamId, x AS correlationId FROM n");
    }
    Importer.Result r = run(db);
    assertThat(r.source()).containsEntry("memcpys", 0L).containsEntry("kernels", 4L);
    assertThat(r.warnings()).containsKey("table CUPTI_ACTIVITY_KIND_MEMCPY absent (nsys writes it only when the run"
        + " had such records): none imported");
  }

  @Test
  void nullNamesAreEmptyNames() throws Exception {
    Path db = tmp.resolve("nulls.sqlite");
    NsysFixture.recent(db);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      // NOT NULL columns: the tables rebuilt without their constraints, as a hand-edited file may be
      s.execute("CREATE TABLE s AS SELECT * FROM StringIds");
      s.execute("DROP TABLE StringIds");
      s.execute("ALTER TABLE s RENAME TO StringIds");
      s.execute("UPDATE StringIds SET value = NULL");
      s.execute("DROP TABLE IF EXISTS PROCESSES");
      s.execute("CREATE TABLE PROCESSES (pid INTEGER, name TEXT)");
      s.execute("INSERT INTO PROCESSES VALUES (" + NsysFixture.PID + ", NULL)");
    }
    Importer.Result r = run(db);
    assertThat(r.source()).containsEntry("kernels", 4L);
    assertThat(r.imported()).containsEntry("kernels", 4L);
  }

  @Test
  void anSqliteErrorQuotingSeveralLinesOfSchemaIsOneLine() throws Exception {
    Path db = tmp.resolve("schema.sqlite");
    NsysFixture.recent(db);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("PRAGMA writable_schema = ON");
      // a quoted name spanning lines where a column list was: a syntax error quoting it
      s.execute("UPDATE sqlite_master SET sql = 'CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL \"(\n  start INT,\n  \" x'"
          + " WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'");
    }
    assertThatThrownBy(() -> run(db)).isInstanceOf(Importer.ImportException.class)
        .hasMessageStartingWith("cannot read it as SQLite: [SQLITE_CORRUPT]")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").contains("( start INT, "));
  }

  @Test
  void aCorruptSqliteFileIsRefused() throws Exception {
    Path db = tmp.resolve("corrupt.sqlite");
    NsysFixture.recent(db);
    byte[] b = Files.readAllBytes(db);
    Arrays.fill(b, 4096, Math.min(b.length, 4096 + 200), (byte) 0xee); // the second page: a table's b-tree
    Files.write(db, b);
    assertThatThrownBy(() -> run(db)).isInstanceOf(Importer.ImportException.class)
        .hasMessageStartingWith("cannot read it as SQLite: [SQLITE_CORRUPT]");
  }
}
