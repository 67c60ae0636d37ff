package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files that are not what the importers read: one message naming what was expected and found. */
class ImportErrorsTest {
  @TempDir Path tmp;

  static final String NEITHER = "not a trace apptrace imports: expected an Nsight Systems SQLite export (nsys"
      + " export --type sqlite), an nvprof SQLite profile (nvprof --export-profile) or a Kineto JSON trace";

  static final String NEITHER_SQLITE = "an SQLite file that is neither an Nsight Systems export nor an nvprof"
      + " profile: expected the tables StringIds and CUPTI_ACTIVITY_KIND_RUNTIME, _KERNEL or _MEMCPY (nsys export"
      + " --type sqlite), or StringTable and CUPTI_ACTIVITY_KIND_* tables with an _id_ column (nvprof"
      + " --export-profile), found";

  private Path out() {
    return tmp.resolve("out.apptrace");
  }

  private void fails(Path in, String message) {
    assertThatThrownBy(() -> Importer.run(in, out(), Importer.Options.defaults().withTmpDir(tmp)))
        .isInstanceOf(Importer.ImportException.class).hasMessage(message);
    assertThat(out()).as("no output is left behind").doesNotExist();
    assertThat(tmp.resolve("out.apptrace.partial")).doesNotExist();
  }

  @Test
  void anSqliteFileThatIsNeitherAnNsysExportNorAnNvprofProfile() throws Exception {
    Path db = tmp.resolve("other.sqlite");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE customers (id INTEGER, name TEXT)");
      s.execute("CREATE TABLE orders (id INTEGER)");
    }
    fails(db, NEITHER_SQLITE + " 2 tables (customers, orders)");
  }

  @Test
  void anEmptySqliteFile() throws Exception {
    Path db = tmp.resolve("empty.sqlite");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (x INTEGER)");
      s.execute("DROP TABLE t");
    }
    fails(db, NEITHER_SQLITE + " no tables");
  }

  @Test
  void anNvprofNamedSqliteFileWithoutNvprofTables() throws Exception {
    Path db = tmp.resolve("run.nvvp");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT)");
      s.execute("CREATE TABLE Version (version INT)");
    }
    fails(db, NEITHER_SQLITE + " 2 tables (StringTable, Version)");
  }

  @Test
  void aGzippedSqliteFileOfNeitherFormatLeavesNoDecompressedCopy() throws Exception {
    Path db = tmp.resolve("other.sqlite");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE customers (id INTEGER, name TEXT)");
    }
    Path gz = tmp.resolve("other.nvvp.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(db, o);
    }
    Files.delete(db);
    fails(gz, NEITHER_SQLITE + " 1 table (customers)");
    try (var left = Files.list(tmp)) {
      assertThat(left.map(p -> p.getFileName().toString())).as("the decompressed copy is deleted")
          .containsExactly("other.nvvp.gz");
    }
  }

  @Test
  void anNvvpFileThatIsNotSqlite() throws Exception {
    Path in = tmp.resolve("old.nvvp");
    Files.write(in, new byte[] {'N', 'V', 'P', 'F', 0, 0, 0, 1});
    fails(in, "not an nvprof SQLite profile (perhaps nvprof's older binary format): expected the SQLite file nvprof"
        + " writes with --export-profile (-o), found a file starting \"NVPF\\x00\\x00\\x00\\x01\"; record one with:"
        + " nvprof --export-profile OUT.nvvp APP [ARGS]");
  }

  @Test
  void aGzippedNvvpFileThatIsNotSqlite() throws Exception {
    Path in = tmp.resolve("old.NVVP.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(in))) {
      o.write(new byte[] {1, 2, 3});
    }
    fails(in, "not an nvprof SQLite profile (perhaps nvprof's older binary format): expected the SQLite file nvprof"
        + " writes with --export-profile (-o), gzipped or not, found a file starting \"\\x01\\x02\\x03\"; record"
        + " one with: nvprof --export-profile OUT.nvvp APP [ARGS]");
    try (var left = Files.list(tmp)) {
      assertThat(left.map(p -> p.getFileName().toString())).as("no temporary file is left").containsExactly(
          "old.NVVP.gz");
    }
  }

  @Test
  void aJsonFileThatIsNotAKinetoTrace() throws Exception {
    Path in = tmp.resolve("config.json");
    Files.writeString(in, "{\"name\": \"x\", \"layers\": [1, 2], \"nested\": {\"a\": 1}}");
    fails(in, "a JSON file that is not a Kineto trace: expected a JSON object with \"traceEvents\" (a Kineto"
        + " trace), found an object with keys name, layers, nested");
  }

  @Test
  void aJsonScalar() throws Exception {
    Path in = tmp.resolve("n.json");
    Files.writeString(in, "  [  ]");
    // an empty array is a valid (empty) Chrome trace with no CUDA events
    fails(in, "a JSON file that is not a Kineto trace: a Chrome trace with no CUDA events: expected events of"
        + " category cuda_runtime, kernel, gpu_memcpy or gpu_memset (or Runtime, Kernel, Memcpy, Memset), found none");
  }

  @Test
  void aChromeTraceWithNoCudaEvents() throws Exception {
    Path in = tmp.resolve("cpu.json");
    Files.writeString(in, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1,"
        + " \"tid\": 1, \"ts\": 1, \"dur\": 2}, {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f\", \"pid\": 1,"
        + " \"tid\": 1, \"ts\": 1, \"dur\": 2}]}");
    fails(in, "a JSON file that is not a Kineto trace: a Chrome trace with no CUDA events: expected events of"
        + " category cuda_runtime, kernel, gpu_memcpy or gpu_memset (or Runtime, Kernel, Memcpy, Memset), found"
        + " cpu_op, python_function");
  }

  @Test
  void brokenJson() throws Exception {
    Path in = tmp.resolve("broken.json");
    Files.writeString(in, "{\"traceEvents\" 12}");
    assertThatThrownBy(() -> Importer.run(in, out(), Importer.Options.defaults().withTmpDir(tmp)))
        .isInstanceOf(Importer.ImportException.class)
        .hasMessageStartingWith("a JSON file that is not a Kineto trace: not a complete JSON document (");
  }

  @Test
  void neitherFormat() throws Exception {
    Path in = tmp.resolve("x.bin");
    Files.write(in, new byte[] {0, 1, 2, 'A', 'B'});
    fails(in, NEITHER + ", found a file starting \"\\x00\\x01\\x02AB\"");
  }

  @Test
  void anEmptyFile() throws Exception {
    Path in = tmp.resolve("empty.json");
    Files.write(in, new byte[0]);
    fails(in, NEITHER + ", found an empty file");
  }

  @Test
  void aGzippedFileOfNeitherFormat() throws Exception {
    Path in = tmp.resolve("notes.txt.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(in))) {
      o.write("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
    fails(in, NEITHER + " (gzipped or not), found a file starting \"hello\"");
  }

  @Test
  void aCorruptGzip() throws Exception {
    Path in = tmp.resolve("bad.gz");
    Files.write(in, new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3});
    fails(in, "a gzip file that cannot be decompressed (it ends early, before its first 64 bytes of content: the"
        + " file was cut short)");
  }

  @Test
  void aFailedImportKeepsAnEarlierOutput() throws Exception {
    Files.writeString(out(), "an earlier trace");
    Path in = tmp.resolve("x.json");
    Files.writeString(in, "{\"a\": 1}");
    assertThatThrownBy(() -> Importer.run(in, out(), Importer.Options.defaults().withTmpDir(tmp)))
        .isInstanceOf(Importer.ImportException.class);
    assertThat(Files.readString(out())).isEqualTo("an earlier trace");
  }
}
