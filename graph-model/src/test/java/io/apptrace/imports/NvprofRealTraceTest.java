package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.SyncScope;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.TraceRecord;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every nvprof profile in ../shared/realdata/ahead-titan (AHEAD's Titan profiles, github.com/HazemAbdelhafez/ahead:
 * CUDA's bandwidthTest
 * on a Titan node, one K20X) imports with exactly the rows its tables hold, counted here with
 * {@code SELECT count(*)}, and each file's 2,900 measured copies keep their direction, memory
 * kinds, asynchrony and GPU times. Skipped, saying so, where the folder is absent.
 */
class NvprofRealTraceTest {
  @TempDir Path tmp;

  /**
   * Each file's measured copies (as the data set's description lists them), besides the 29
   * set-up copies of some.
   */
  static Stream<Arguments> titan() {
    return Stream.of(
        Arguments.of("dtod", CopyKind.DEVICE_TO_DEVICE, MemoryKind.DEVICE, MemoryKind.DEVICE, false),
        Arguments.of("dtoh-pageable", CopyKind.DEVICE_TO_HOST, MemoryKind.DEVICE, MemoryKind.PAGEABLE, false),
        Arguments.of("dtoh-pinned", CopyKind.DEVICE_TO_HOST, MemoryKind.DEVICE, MemoryKind.PINNED, true),
        Arguments.of("htod-pageable", CopyKind.HOST_TO_DEVICE, MemoryKind.PAGEABLE, MemoryKind.DEVICE, false),
        Arguments.of("htod-pinned", CopyKind.HOST_TO_DEVICE, MemoryKind.PINNED, MemoryKind.DEVICE, true));
  }

  private static long count(Statement st, String sql) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Rows of a table; 0 when the file lacks it. */
  private static long rows(Statement st, String table) throws SQLException {
    if (count(st, "SELECT count(*) FROM sqlite_master WHERE name = '" + table + "'") == 0) {
      return 0;
    }
    return count(st, "SELECT count(*) FROM " + table);
  }

  @ParameterizedTest
  @MethodSource("titan")
  void titanProfilesImportEveryRow(String run, CopyKind kind, MemoryKind src, MemoryKind dst, boolean async)
      throws Exception {
    Path in = RealTraceImportTest.realdata().resolve("ahead-titan/titan-profiler-bandwidth-output-" + run
        + ".nvvp.gz");
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path db = tmp.resolve("copy.sqlite");
    try (InputStream s = new GZIPInputStream(Files.newInputStream(in))) {
      Files.copy(s, db);
    }
    String p = "CUPTI_ACTIVITY_KIND_";
    long runtime;
    long driver;
    long kernels;
    long memcpys;
    long memsets;
    long syncs;
    long contextSyncs;
    long eventRecords;
    long topology;
    long asyncCopies;
    long copyGpuNs;
    Map<String, Long> callsByName = new TreeMap<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement()) {
      runtime = rows(st, p + "RUNTIME");
      driver = rows(st, p + "DRIVER");
      kernels = rows(st, p + "KERNEL") + rows(st, p + "CONCURRENT_KERNEL");
      memcpys = rows(st, p + "MEMCPY") + rows(st, p + "MEMCPY2");
      memsets = rows(st, p + "MEMSET");
      syncs = rows(st, p + "SYNCHRONIZATION");
      contextSyncs = count(st, "SELECT count(*) FROM " + p + "SYNCHRONIZATION WHERE type = 4");
      eventRecords = rows(st, p + "CUDA_EVENT");
      topology = rows(st, p + "DEVICE") + rows(st, p + "NVLINK") + rows(st, p + "PCIE");
      asyncCopies = count(st, "SELECT count(*) FROM " + p + "MEMCPY WHERE flags & 1");
      copyGpuNs = count(st, "SELECT sum(end - start) FROM " + p + "MEMCPY");
      for (String t : new String[] {"RUNTIME", "DRIVER"}) {
        try (ResultSet rs = st.executeQuery("SELECT cbid, count(*) FROM " + p + t + " GROUP BY cbid")) {
          while (rs.next()) {
            long cbid = rs.getLong(1);
            String fn = t.equals("RUNTIME") ? CuptiCallbacks.runtime(cbid) : CuptiCallbacks.driver(cbid);
            callsByName.merge(fn, rs.getLong(2), Long::sum);
          }
        }
      }
    }

    Path out = tmp.resolve("t.apptrace");
    Importer.Result r = Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    assertThat(r.format()).isEqualTo(Importer.Format.NVPROF_SQLITE);
    assertThat(r.source()).containsExactly(Map.entry("API calls", runtime + driver), Map.entry("kernels", kernels),
        Map.entry("memcpys", memcpys), Map.entry("memsets", memsets), Map.entry("synchronizations", syncs),
        Map.entry("event records", eventRecords));
    for (String k : new String[] {"API calls", "kernels", "memcpys", "memsets", "synchronizations"}) {
      assertThat(r.imported().get(k)).as(k).isEqualTo(r.source().get(k));
    }
    assertThat(r.imported().get("GPU work with no traced call")).isZero();
    assertThat(r.warnings()).isEmpty();
    assertThat(r.notes()).hasSize((int) topology).first().asString().startsWith("GPU 0: Tesla K20X, 14 SMs,");

    List<Event> events = ImportedTrace.read(out).trace().records().stream().map(TraceRecord::event).toList();
    List<Event> calls = events.stream().filter(e -> !ApiNames.of(e).isEmpty()).toList();
    Map<String, Long> imported = calls.stream().collect(Collectors.groupingBy(ApiNames::of, TreeMap::new,
        Collectors.counting()));
    assertThat(imported).as("calls by function").isEqualTo(callsByName);
    List<Event> copies = calls.stream().filter(Event::hasCopy).toList();
    assertThat(copies.stream().filter(e -> e.getCopy().getKindResolved() == kind && e.getCopy().getSrcKind() == src
        && e.getCopy().getDstKind() == dst && e.getCopy().getAsync() == async)).hasSize(2900);
    assertThat(copies.stream().filter(e -> e.getCopy().getAsync())).hasSize((int) asyncCopies);
    assertThat(events.stream().filter(Event::hasGpu).mapToLong(e -> e.getGpu().getEndNs() - e.getGpu().getStartNs())
        .sum()).isEqualTo(copyGpuNs);
    assertThat(calls.stream().filter(e -> ApiNames.of(e).equals("cudaEventRecord") && e.hasEvent()))
        .hasSize((int) eventRecords);
    assertThat(calls.stream().filter(e -> e.hasSync() && e.getSync().getScope() == SyncScope.DEVICE_SCOPE))
        .hasSize((int) contextSyncs);
  }
}
