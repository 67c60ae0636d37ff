package io.apptrace.imports;

import io.apptrace.proto.SchemaVersion;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceWriter;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * {@code apptrace import}: turns a trace another profiler took into an apptrace trace. The format
 * is detected from the file's first bytes (gzip is looked through): SQLite files are Nsight
 * Systems exports or nvprof profiles (told apart by their tables); JSON files are PyTorch profiler
 * / Kineto traces.
 */
public final class Importer {
  /** The formats read. */
  public enum Format {
    NSYS_SQLITE("nsys-sqlite"),
    NVPROF_SQLITE("nvprof-sqlite"),
    KINETO_JSON("kineto-json");

    private final String id;

    Format(String id) {
      this.id = id;
    }

    /** The name in TraceHeader.source_format. */
    public String id() {
      return id;
    }
  }

  /** A file that is not what an importer reads: the message says what was expected and found. */
  public static final class ImportException extends Exception {
    public ImportException(String message) {
      super(message);
    }
  }

  /**
   * What an import did.
   *
   * @param source counts of what the source file holds, by kind
   * @param imported counts of what the trace now holds, by the same kinds
   * @param warnings problems, with how often each occurred
   * @param notes what the source said of the machine (GPUs, ranks)
   * @param truncatedAt where a file that ends early stopped, else null
   */
  public record Result(Format format, String command, Path output, String host, Map<String, Long> source,
      Map<String, Long> imported, Map<String, Long> warnings, List<String> notes, String truncatedAt,
      long threads, long events) {}

  /**
   * Options: where temporary files go; how many records each sort holds in memory; where the count
   * of source records read so far is published (for a progress line; read it from any thread).
   */
  public record Options(Path tmpDir, int chunkRecords, long kinetoDefaultStream,
      java.util.concurrent.atomic.AtomicLong progress) {
    public static Options defaults() {
      return new Options(Path.of(System.getProperty("java.io.tmpdir")), RecordSorter.DEFAULT_CHUNK, 7,
          new java.util.concurrent.atomic.AtomicLong());
    }

    public Options withTmpDir(Path p) {
      return new Options(p, chunkRecords, kinetoDefaultStream, progress);
    }

    public Options withChunkRecords(int n) {
      return new Options(tmpDir, n, kinetoDefaultStream, progress);
    }

    public Options withKinetoDefaultStream(long s) {
      return new Options(tmpDir, chunkRecords, s, progress);
    }

    public Options withProgress(java.util.concurrent.atomic.AtomicLong sink) {
      return new Options(tmpDir, chunkRecords, kinetoDefaultStream, sink);
    }
  }

  private Importer() {}

  private static final byte[] SQLITE = "SQLite format 3\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  /** How Nsight Systems reports (.nsys-rep, and .qdrep before 2021.3) begin: the format of its Tegra forebear. */
  private static final byte[] NSYS_REPORT = "NVIDIA Tegra Pro".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** Whether the file starts with the gzip magic. */
  private static boolean gzipped(Path f) throws IOException {
    try (InputStream in = Files.newInputStream(f)) {
      return in.read() == 0x1f && in.read() == 0x8b;
    }
  }

  /** The file's content, decompressed when gzipped. */
  private static InputStream open(Path f, boolean gz) throws IOException {
    InputStream in = new BufferedInputStream(Files.newInputStream(f), 1 << 16);
    try {
      return gz ? new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16) : in;
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** {@link #open(Path, boolean)} for a supplier. */
  private static InputStream openUnchecked(Path f, boolean gz) {
    try {
      return open(f, gz);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first bytes of the (decompressed) content. */
  private static byte[] head(Path f, boolean gz) throws IOException, ImportException {
    try (InputStream in = open(f, gz)) {
      return in.readNBytes(64);
    } catch (java.util.zip.ZipException | java.io.EOFException e) {
      throw gzipProblem(e);
    }
  }

  private static ImportException gzipProblem(IOException e) {
    boolean cut = e instanceof java.io.EOFException || String.valueOf(e.getMessage()).contains("Unexpected end");
    return new ImportException("a gzip file that cannot be decompressed (" + (cut
        ? "it ends early, before its first 64 bytes of content: the file was cut short"
        : e.getMessage() == null ? "it is damaged" : e.getMessage()) + ")");
  }

  /**
   * Imports {@code in} into {@code out}. The output appears only when the import succeeded (it is
   * written beside under a temporary name, then moved).
   *
   * @throws ImportException when the file is not a format this reads (the message names what was
   *     expected and what was found)
   * @throws IOException when a file cannot be read or written
   */
  public static Result run(Path in, Path out, Options o) throws ImportException, IOException {
    boolean gz = gzipped(in);
    byte[] head = head(in, gz);
    Path tmp = Files.createTempDirectory(o.tmpDir(), "apptrace-import-");
    Path partial = out.resolveSibling(out.getFileName() + ".partial");
    try {
      Result r;
      if (startsWith(head, SQLITE)) {
        r = sqlite(in, gz, partial, out, tmp, o);
      } else if (looksLikeJson(head)) {
        r = kineto(in, gz, partial, out, tmp, o);
      } else if (startsWith(head, NSYS_REPORT) || nsysReportName(in)) {
        String name = in.getFileName().toString().replaceAll("\\.(nsys-rep|qdrep)(\\.gz)?$", "");
        throw new ImportException("an Nsight Systems report, which apptrace reads through its SQLite export:"
            + " export it with 'nsys export --type sqlite -o " + name + ".sqlite " + in.getFileName()
            + "', then import " + name + ".sqlite");
      } else if (nvvpName(in)) {
        throw new ImportException("not an nvprof SQLite profile (perhaps nvprof's older binary format): expected the"
            + " SQLite file nvprof writes with --export-profile (-o)" + (gz ? ", gzipped or not" : "") + ", found "
            + describe(head) + "; record one with: nvprof --export-profile OUT.nvvp APP [ARGS]");
      } else {
        throw new ImportException("not a trace apptrace imports: expected an Nsight Systems SQLite export"
            + " (nsys export --type sqlite), an nvprof SQLite profile (nvprof --export-profile) or a Kineto JSON"
            + " trace" + (gz ? " (gzipped or not)" : "") + ", found " + describe(head));
      }
      Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return r;
    } finally {
      Files.deleteIfExists(partial);
      deleteTree(tmp);
    }
  }

  /** Whether the file is named like an Nsight Systems report (FILE.nsys-rep, FILE.qdrep). */
  private static boolean nsysReportName(Path in) {
    String n = in.getFileName().toString().toLowerCase(Locale.ROOT);
    return n.endsWith(".nsys-rep") || n.endsWith(".qdrep") || n.endsWith(".nsys-rep.gz") || n.endsWith(".qdrep.gz");
  }

  /** Whether the file is named like an nvprof profile (FILE.nvvp, FILE.nvvp.gz). */
  private static boolean nvvpName(Path in) {
    String n = in.getFileName().toString().toLowerCase(Locale.ROOT);
    return n.endsWith(".nvvp") || n.endsWith(".nvvp.gz");
  }

  private static boolean startsWith(byte[] b, byte[] prefix) {
    if (b.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (b[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean looksLikeJson(byte[] b) {
    int i = 0;
    if (b.length >= 3 && (b[0] & 0xff) == 0xef && (b[1] & 0xff) == 0xbb && (b[2] & 0xff) == 0xbf) {
      i = 3; // UTF-8 byte-order mark
    }
    while (i < b.length && Character.isWhitespace(b[i])) {
      i++;
    }
    return i < b.length && (b[i] == '{' || b[i] == '[');
  }

  private static String describe(byte[] b) {
    if (b.length == 0) {
      return "an empty file";
    }
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < Math.min(b.length, 16); i++) {
      int c = b[i] & 0xff;
      s.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\x%02x", c));
    }
    return "a file starting \"" + s + "\"";
  }

  private static TraceHeader header(Format f, Path in, String host, java.util.Optional<io.apptrace.proto.JobRank> job) {
    TraceHeader.Builder h = TraceHeader.newBuilder().setSchemaVersion(SchemaVersion.SCHEMA_VERSION_CURRENT_VALUE)
        .setProducer("apptrace-import " + f.id() + " 0.1.0").setCreatedUnixNs(System.currentTimeMillis() * 1_000_000L)
        .addCommand(in.toAbsolutePath().toString()).setSourceFormat(f.id()).setSimulatedDevice(false)
        .setHost(host);
    job.ifPresent(h::setJob);
    return h.build();
  }

  private static Result sqlite(Path in, boolean gz, Path partial, Path out, Path tmp, Options o)
      throws ImportException, IOException {
    Path file = in;
    if (gz) { // SQLite reads files, not streams
      file = tmp.resolve("source.sqlite");
      try (InputStream s = open(in, true)) {
        Files.copy(s, file);
      } catch (java.util.zip.ZipException | java.io.EOFException e) {
        throw gzipProblem(e);
      }
    }
    try (SqliteFile db = SqliteFile.open(file); ImportAssembler a = new ImportAssembler(tmp, o.chunkRecords())) {
      a.progressTo(o.progress());
      if (NsysReader.isNsys(db)) {
        NsysReader r = new NsysReader(db, a);
        r.read();
        return finish(Format.NSYS_SQLITE, in, partial, out, a, r.source, null);
      }
      if (NvprofReader.isNvprof(db)) {
        NvprofReader r = new NvprofReader(db, a);
        r.read();
        return finish(Format.NVPROF_SQLITE, in, partial, out, a, r.source, null);
      }
      throw new ImportException("an SQLite file that is neither an Nsight Systems export nor an nvprof profile:"
          + " expected the tables StringIds and CUPTI_ACTIVITY_KIND_RUNTIME, _KERNEL or _MEMCPY (nsys export --type"
          + " sqlite), or StringTable and CUPTI_ACTIVITY_KIND_* tables with an _id_ column (nvprof --export-profile),"
          + " found " + tableList(db));
    } catch (SQLException e) {
      // SQLite's messages can quote the schema's SQL, lines and all
      throw new ImportException("cannot read it as SQLite: " + String.valueOf(e.getMessage()).replaceAll("\\s+", " ")
          .strip());
    }
  }

  private static String tableList(SqliteFile db) {
    List<String> t = List.copyOf(db.tables());
    if (t.isEmpty()) {
      return "no tables";
    }
    String shown = String.join(", ", t.subList(0, Math.min(t.size(), 6)));
    return t.size() + " table" + (t.size() == 1 ? "" : "s") + " (" + shown + (t.size() > 6 ? ", ..." : "") + ")";
  }

  private static Result kineto(Path in, boolean gz, Path partial, Path out, Path tmp, Options o)
      throws ImportException, IOException {
    try (ImportAssembler a = new ImportAssembler(tmp, o.chunkRecords())) {
      a.progressTo(o.progress());
      KinetoReader r = new KinetoReader(a, o.kinetoDefaultStream());
      try {
        r.read(() -> openUnchecked(in, gz));
      } catch (KinetoReader.NotKinetoException e) {
        throw new ImportException("a JSON file that is not a Kineto trace: " + e.getMessage());
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      if (r.truncatedAt != null && r.damage == null) {
        a.warn("the file ends early (at " + r.truncatedAt + " of the decompressed JSON): the events before it"
            + " were imported");
      } else if (r.truncatedAt != null) {
        a.warn("the file is not valid JSON from " + r.truncatedAt + " of the decompressed JSON on (" + r.damage
            + "): the events before it were imported");
      }
      return finish(Format.KINETO_JSON, in, partial, out, a, r.source, r.truncatedAt);
    }
  }

  private static Result finish(Format f, Path in, Path partial, Path out, ImportAssembler a, Map<String, Long> source,
      String truncatedAt) throws IOException {
    TraceEmitter.Emitted em;
    List<String> notes;
    try (TraceWriter w = TraceWriter.create(partial, header(f, in, a.hostname(), a.job())); BatchPipe pipe = new BatchPipe(w)) {
      em = a.write(pipe);
      notes = a.notes();
    }
    // the counts the report shows: each kind in the source beside what the trace now holds
    Map<String, Long> src = new LinkedHashMap<>();
    Map<String, Long> imported = new LinkedHashMap<>();
    long calls = 0;
    for (Map.Entry<String, Long> e : source.entrySet()) {
      if (e.getKey().endsWith("calls")) {
        calls += e.getValue();
      }
    }
    src.put("API calls", calls);
    // a call recorded twice is one call: counted among the imported records it was merged into
    imported.put("API calls", em.calls + em.duplicateCalls);
    for (Map.Entry<String, Long> e : source.entrySet()) {
      String k = e.getKey();
      if (k.endsWith("calls")) {
        continue;
      }
      src.put(k, e.getValue());
      imported.put(k, switch (k) {
        case "kernels" -> em.kernels;
        case "memcpys" -> em.memcpys;
        case "memsets" -> em.memsets;
        case "synchronizations", "cuda_sync records" -> em.syncRecords;
        case "NVTX ranges", "user annotations" -> em.ranges;
        case "NVTX marks" -> em.marks;
        default -> -1L;
      });
    }
    imported.put("GPU work with no traced call", em.orphans);
    return new Result(f, in.toString(), out, a.hostname(), src, imported, new LinkedHashMap<>(a.warnings()), notes, truncatedAt,
        em.threads.size(), em.events);
  }

  private static void deleteTree(Path dir) {
    try (var s = Files.walk(dir)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // a temporary file left behind is harmless
        }
      });
    } catch (IOException ignored) {
      // already gone
    }
  }
}
