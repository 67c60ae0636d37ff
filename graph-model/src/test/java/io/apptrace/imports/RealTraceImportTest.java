package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.apptrace.trace.NvtxRanges;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every trace in ../shared/realdata/hta-kineto-traces and pipit-nsys-perlmutter imports with
 * exactly the events its source holds: counted here independently (a plain count of categories
 * in the JSON; a COUNT(*) per table in the SQLite file), and, where the data set's description lists them, against
 * its counts. Skipped, saying so, where the folder is absent.
 */
class RealTraceImportTest {
  @TempDir Path tmp;

  static Path realdata() {
    return Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"));
  }

  /**
   * Kernels and memcpys of each trace as the data set's description lists them (exact counts only).
   */
  static Stream<Arguments> kineto() {
    return Stream.of(
        Arguments.of("a100-sxm4-80gb_train_rank0.json.gz", 6080, 1390),
        Arguments.of("a100_trace_diff_control_rank3.json.gz", 8568, 228),
        Arguments.of("a100_alexnet_trace.json.gz", 79, 16),
        Arguments.of("a100_simple_add_trace.json.gz", 79, 16),
        Arguments.of("v100-sxm2-32gb_df_index_resolver.json.gz", 19370, 2040),
        Arguments.of("v100-sxm2-32gb_ns_resolution_rank0.json.gz", 4350, 1600),
        Arguments.of("a100_nccl_data.json.gz", 2700, 960),
        Arguments.of("sampled_rank-0.json.gz", -1, 40),
        Arguments.of("sampled_rank-1.json.gz", -1, 40),
        Arguments.of("a100_cuda_event_sync.json.gz", -1, -1),
        Arguments.of("a100_cuda_event_sync_multi_stream.json.gz", -1, -1));
  }

  @ParameterizedTest
  @MethodSource("kineto")
  void kinetoTracesImportEveryEvent(String file, int kernels, int memcpys) throws Exception {
    Path in = realdata().resolve("hta-kineto-traces").resolve(file);
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Map<String, Long> cats = categories(in);
    Importer.Result r = Importer.run(in, tmp.resolve("t.apptrace"), Importer.Options.defaults().withTmpDir(tmp));
    long calls = cats.getOrDefault("cuda_runtime", 0L) + cats.getOrDefault("cuda_driver", 0L);
    assertThat(r.source()).containsEntry("API calls", calls)
        .containsEntry("kernels", cats.getOrDefault("kernel", 0L))
        .containsEntry("memcpys", cats.getOrDefault("gpu_memcpy", 0L))
        .containsEntry("memsets", cats.getOrDefault("gpu_memset", 0L))
        .containsEntry("cuda_sync records", cats.getOrDefault("cuda_sync", 0L));
    for (String k : new String[] {"API calls", "kernels", "memcpys", "memsets", "cuda_sync records"}) {
      assertThat(r.imported().get(k)).as(k).isEqualTo(r.source().get(k));
    }
    long annotations = cats.getOrDefault("user_annotation", 0L);
    if (annotations > 0) { // each a range of its thread
      assertThat(r.source()).containsEntry("user annotations", annotations);
      assertThat(r.imported()).containsEntry("user annotations", annotations);
    } else {
      assertThat(r.source()).doesNotContainKey("user annotations");
    }
    if (kernels >= 0) {
      assertThat(r.imported().get("kernels")).isEqualTo(kernels);
    }
    if (memcpys >= 0) {
      assertThat(r.imported().get("memcpys")).isEqualTo(memcpys);
    }
    assertThat(r.truncatedAt()).isNull();
  }

  @org.junit.jupiter.api.Test
  void theA100TrainingTraceHasItsFiveProfilerStepsAsRanges() throws Exception {
    Path in = realdata().resolve("hta-kineto-traces").resolve("a100-sxm4-80gb_train_rank0.json.gz");
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path out = tmp.resolve("t.apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    List<NvtxRanges.Range> steps = ImportedTrace.read(out).ranges().stream()
        .filter(x -> x.name().startsWith("ProfilerStep")).toList();
    // as the file has them (ts and dur in us), on the main thread, one after the other
    assertThat(steps).containsExactly(
        new NvtxRanges.Range(4515, 4515, "ProfilerStep#550", "", 1683564901548726000L, 1683564901758474000L, false),
        new NvtxRanges.Range(4515, 4515, "ProfilerStep#551", "", 1683564901758519000L, 1683564901975002000L, false),
        new NvtxRanges.Range(4515, 4515, "ProfilerStep#552", "", 1683564901975043000L, 1683564902191162000L, false),
        new NvtxRanges.Range(4515, 4515, "ProfilerStep#553", "", 1683564902191203000L, 1683564902406670000L, false),
        new NvtxRanges.Range(4515, 4515, "ProfilerStep#554", "", 1683564902406714000L, 1683564902622930000L, false));
  }

  /** Complete events by category, counted with a plain streaming pass. */
  static Map<String, Long> categories(Path gz) throws Exception {
    Map<String, Long> n = new HashMap<>();
    try (InputStream in = new GZIPInputStream(Files.newInputStream(gz));
        JsonParser p = new JsonFactory().createParser(in)) {
      String cat = null;
      String ph = null;
      int depth = 0;
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t == JsonToken.START_OBJECT) {
          depth++;
          if (depth == 2) {
            cat = null;
            ph = null;
          }
        } else if (t == JsonToken.END_OBJECT) {
          if (depth == 2 && cat != null && "X".equals(ph)) {
            n.merge(cat, 1L, Long::sum);
          }
          depth--;
        } else if (t == JsonToken.FIELD_NAME && depth == 2) {
          String f = p.currentName();
          JsonToken v = p.nextToken();
          if (f.equals("cat") && v == JsonToken.VALUE_STRING) {
            cat = p.getText();
          } else if (f.equals("ph") && v == JsonToken.VALUE_STRING) {
            ph = p.getText();
          } else if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
            p.skipChildren();
          }
        } else if (t == JsonToken.FIELD_NAME && depth == 1) {
          JsonToken v = p.nextToken();
          if (!p.currentName().equals("traceEvents") && (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY)) {
            p.skipChildren();
          }
        }
      }
    }
    return n;
  }

  static Stream<Arguments> nsys() {
    return Stream.of(Arguments.of("perlmutter-cloverleaf-cuda.sqlite.gz", 1312, 279),
        Arguments.of("saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz", 5, 15));
  }

  @ParameterizedTest
  @MethodSource("nsys")
  void nsysExportsImportEveryRow(String file, int kernels, int memcpys) throws Exception {
    Path in = realdata().resolve("pipit-nsys-perlmutter").resolve(file);
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path db = tmp.resolve("copy.sqlite");
    try (InputStream s = new GZIPInputStream(Files.newInputStream(in))) {
      Files.copy(s, db);
    }
    Map<String, Long> rows = new HashMap<>();
    long nvtxRanges = 0;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT count(*) FROM sqlite_master WHERE name = 'NVTX_EVENTS'")) {
        rs.next();
        if (rs.getLong(1) > 0) {
          try (ResultSet n = st.executeQuery("SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60)")) {
            n.next();
            nvtxRanges = n.getLong(1);
          }
        }
      }
      for (String t : new String[] {"RUNTIME", "KERNEL", "MEMCPY", "MEMSET", "SYNCHRONIZATION"}) {
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_"
            + t + "'")) {
          rs.next();
          if (rs.getLong(1) == 0) {
            rows.put(t, 0L);
            continue;
          }
        }
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_" + t)) {
          rs.next();
          rows.put(t, rs.getLong(1));
        }
      }
    }
    Importer.Result r = Importer.run(in, tmp.resolve("t.apptrace"), Importer.Options.defaults().withTmpDir(tmp));
    assertThat(r.source()).containsEntry("API calls", rows.get("RUNTIME")).containsEntry("kernels", rows.get("KERNEL"))
        .containsEntry("memcpys", rows.get("MEMCPY")).containsEntry("memsets", rows.get("MEMSET"))
        .containsEntry("synchronizations", rows.get("SYNCHRONIZATION"));
    for (String k : new String[] {"API calls", "kernels", "memcpys", "memsets", "synchronizations"}) {
      assertThat(r.imported().get(k)).as(k).isEqualTo(r.source().get(k));
    }
    assertThat(r.imported().get("kernels")).isEqualTo(kernels);
    assertThat(r.imported().get("memcpys")).isEqualTo(memcpys);
    assertThat(r.imported().get("GPU work with no traced call")).isZero();
    // SAXPY's 22 NVTX ranges (15 of them in the MPI wrapper's domain); CloverLeaf has none
    assertThat(nvtxRanges).isEqualTo(file.startsWith("saxpy") ? 22 : 0);
    assertThat(r.source().getOrDefault("NVTX ranges", 0L)).isEqualTo(nvtxRanges);
    assertThat(r.imported().getOrDefault("NVTX ranges", 0L)).isEqualTo(nvtxRanges);
  }
}
