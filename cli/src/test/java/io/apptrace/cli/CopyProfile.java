package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal nvprof profile of synchronous copies, for the tests of {@code validate transfers} and
 * {@code replay} on traces: nvprof's SQLite schema (as in ../shared/realdata/ahead-titan) reduced
 * to {@code StringTable}, {@code CUPTI_ACTIVITY_KIND_RUNTIME} (one {@code cudaMemcpy}, callback
 * id 31, per copy) and {@code CUPTI_ACTIVITY_KIND_MEMCPY} (its GPU record), on GPU 0. The other
 * tables are absent, which the importer accepts with a warning each. {@link #import_} turns it
 * into an apptrace trace with {@code apptrace import}.
 *
 * <p>Memory and copy kinds are CUPTI's: copyKind 1 HtoD, 2 DtoH, 8 DtoD, 9 HtoH; srcKind and
 * dstKind 1 pageable, 2 pinned, 3 device. Each copy's call starts 10 us after the previous copy
 * ended and its GPU work 1 us into the call.
 */
final class CopyProfile {
  static final int HTOD = 1;
  static final int DTOH = 2;
  static final int DTOD = 8;
  static final int HTOH = 9;
  static final int PAGEABLE = 1;
  static final int PINNED = 2;
  static final int DEVICE = 3;

  /** One copy: its kinds, size and GPU time. */
  record Copy(int copyKind, int srcKind, int dstKind, long bytes, long gpuNs) {}

  private final List<Copy> copies = new ArrayList<>();

  CopyProfile copy(int copyKind, int srcKind, int dstKind, long bytes, long gpuNs) {
    copies.add(new Copy(copyKind, srcKind, dstKind, bytes, gpuNs));
    return this;
  }

  /** Writes the profile to {@code file}. */
  Path write(Path file) throws SQLException {
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      try (Statement s = db.createStatement()) {
        s.execute("CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE)");
        s.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT NOT NULL,"
            + " start INT NOT NULL, end INT NOT NULL, processId INT NOT NULL, threadId INT NOT NULL,"
            + " correlationId INT NOT NULL, returnValue INT NOT NULL)");
        s.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY AUTOINCREMENT,"
            + " copyKind INT NOT NULL, srcKind INT NOT NULL, dstKind INT NOT NULL, flags INT NOT NULL,"
            + " bytes INT NOT NULL, start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,"
            + " contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL,"
            + " runtimeCorrelationId INT NOT NULL)");
      }
      long now = 1_000_000;
      int corr = 1;
      for (Copy c : copies) {
        long gpuStart = now + 1_000;
        long gpuEnd = gpuStart + c.gpuNs();
        insert(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (cbid, start, end, processId, threadId, correlationId,"
            + " returnValue) VALUES (31, ?, ?, 4242, 7, ?, 0)", now, gpuEnd + 1_000, corr);
        insert(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (copyKind, srcKind, dstKind, flags, bytes, start, end,"
            + " deviceId, contextId, streamId, correlationId, runtimeCorrelationId) VALUES (?, ?, ?, 0, ?, ?, ?, 0, 1,"
            + " 7, ?, 0)", c.copyKind(), c.srcKind(), c.dstKind(), c.bytes(), gpuStart, gpuEnd, corr);
        corr++;
        now = gpuEnd + 10_000;
      }
    }
    return file;
  }

  private static void insert(Connection db, String sql, Object... values) throws SQLException {
    try (PreparedStatement p = db.prepareStatement(sql)) {
      for (int i = 0; i < values.length; i++) {
        p.setObject(i + 1, values[i]);
      }
      p.execute();
    }
  }

  /** Writes the profile as {@code dir/name.nvvp}, imports it, and returns the trace. */
  Path import_(Path dir, String name) throws SQLException {
    Path trace = dir.resolve(name + ".apptrace");
    Cli r = Cli.run("import", write(dir.resolve(name + ".nvvp")).toString(), "-o", trace.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    return trace;
  }
}
