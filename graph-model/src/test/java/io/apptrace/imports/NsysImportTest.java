package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.SyncScope;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Nsight Systems SQLite imports of the two schema generations {@link NsysFixture} writes. */
class NsysImportTest {
  @TempDir Path tmp;

  Importer.Result run(Path in, Path out) throws Exception {
    return Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
  }

  static final int MAIN = (int) NsysFixture.MAIN;
  static final int WORKER = (int) NsysFixture.WORKER;

  @Test
  void recentSchemaImportsEveryRecordKind() throws Exception {
    Path db = tmp.resolve("recent.sqlite");
    NsysFixture.recent(db);
    Path out = tmp.resolve("recent.apptrace");
    Importer.Result r = run(db, out);

    assertThat(r.format()).isEqualTo(Importer.Format.NSYS_SQLITE);
    assertThat(r.host()).isEqualTo("nid001608");
    assertThat(r.source()).containsExactly(entry("API calls", 16L), entry("kernels", 4L), entry("memcpys", 4L),
        entry("memsets", 1L), entry("synchronizations", 4L), entry("event records", 1L));
    assertThat(r.imported()).containsExactly(entry("API calls", 16L), entry("kernels", 4L), entry("memcpys", 4L),
        entry("memsets", 1L), entry("synchronizations", 4L), entry("event records", -1L),
        entry("GPU work with no traced call", 1L));
    assertThat(r.warnings()).isEmpty();
    assertThat(r.notes()).containsExactly(
        "GPU 0: NVIDIA A100-SXM4-40GB, 108 SMs, 39.6 GiB, 5 copy engines, bus 0000:03:00.0",
        "GPU 1: NVIDIA A100-SXM4-40GB, 108 SMs, 39.6 GiB, 5 copy engines, bus 0000:41:00.0");

    ImportedTrace t = ImportedTrace.read(out);
    assertThat(t.trace().header().getHost()).isEqualTo("nid001608");
    assertThat(t.tids()).containsExactly(MAIN, WORKER, OrphanPlacer.ORPHAN_TID_BASE);
    assertThat(t.all(Event.BodyCase.PROCESS_START)).singleElement()
        .satisfies(e -> assertThat(e.getProcessStart().getExecutable()).isEqualTo("app"));
    assertThat(t.all(Event.BodyCase.THREAD_START)).extracting(e -> e.getThreadStart().getName())
        .containsExactly("main", "worker", "GPU 0 work with no traced call");
    // 7 is the NULL stream (handle 0); 13 non-blocking, 14 blocking
    assertThat(t.all(Event.BodyCase.STREAM)).extracting(e -> e.getStream().getStream() + "/" + e.getStream().getFlags())
        .containsExactly("13/1", "14/0");

    assertThat(t.callNames(MAIN)).containsExactly("cudaMalloc", "cudaMemcpyAsync", "cudaLaunchKernel",
        "cudaMemsetAsync", "cudaEventRecord", "cudaStreamWaitEvent", "cudaLaunchKernel", "cudaMemcpyAsync",
        "cudaStreamSynchronize", "cudaMemcpy", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpyPeerAsync",
        "cudaFree", "cudaMalloc");
    List<Event> m = t.calls(MAIN);
    assertThat(m.get(0).getEntryNs()).isEqualTo(1_000);
    assertThat(m.get(0).getDurationNs()).isEqualTo(50_000);
    Event h2d = m.get(1);
    assertThat(h2d.getCopy().getBytes()).isEqualTo(1 << 20);
    assertThat(h2d.getCopy().getKindResolved()).isEqualTo(CopyKind.HOST_TO_DEVICE);
    assertThat(h2d.getCopy().getSrcKind()).isEqualTo(MemoryKind.PINNED);
    assertThat(h2d.getCopy().getStream()).isEqualTo(13);
    assertThat(t.gpuAfter(h2d).getGpu().getStartNs()).isEqualTo(105_000);
    assertThat(t.gpuAfter(h2d).getGpu().getEndNs()).isEqualTo(125_000);
    Event k1 = m.get(2);
    assertThat(k1.getLaunch().getGridX()).isEqualTo(4);
    assertThat(k1.getLaunch().getGridY()).isEqualTo(2);
    assertThat(k1.getLaunch().getBlockX()).isEqualTo(128);
    assertThat(k1.getLaunch().getSharedMemBytes()).isEqualTo(256);
    assertThat(t.all(Event.BodyCase.KERNEL_INFO).get(0).getKernelInfo().getDemangledName())
        .isEqualTo("void k1<float>(float*)");
    assertThat(t.all(Event.BodyCase.KERNEL_INFO).get(0).getKernelInfo().getMangledName()).isEqualTo("_Z2k1IfEvPT_");
    assertThat(m.get(3).getMemset().getBytes()).isEqualTo(4096);
    assertThat(t.gpuAfter(m.get(3)).getGpu().getStartNs()).isEqualTo(231_000);
    // events are the profiler's event id + 1; the record's stream is CUDA_EVENT's
    assertThat(m.get(4).getEvent().getEvent()).isEqualTo(8);
    assertThat(m.get(4).getEvent().getStream()).isEqualTo(13);
    assertThat(m.get(5).getEvent().getEvent()).isEqualTo(8);
    assertThat(m.get(5).getEvent().getStream()).isEqualTo(14);
    assertThat(m.get(7).getCopy().getDstKind()).isEqualTo(MemoryKind.PAGEABLE);
    assertThat(m.get(8).getSync().getScope()).isEqualTo(SyncScope.STREAM_SCOPE);
    assertThat(m.get(8).getSync().getStream()).isEqualTo(14);
    assertThat(m.get(9).getCopy().getStream()).as("the NULL stream").isZero();
    assertThat(m.get(9).getCopy().getAsync()).isFalse();
    assertThat(m.get(10).getSync().getScope()).isEqualTo(SyncScope.DEVICE_SCOPE);
    assertThat(m.get(11).getSync().getScope()).isEqualTo(SyncScope.EVENT_SCOPE);
    assertThat(m.get(11).getSync().getEvent()).isEqualTo(8);
    Event peer = m.get(12);
    assertThat(peer.getCopy().getSrcDevice()).isZero();
    assertThat(peer.getCopy().getDstDevice()).isEqualTo(1);
    assertThat(t.gpuAfter(peer).getGpu().getKind()).isEqualTo(GpuActivityKind.GPU_MEMCPY_PEER);
    assertThat(m.get(14).getResult()).as("cudaErrorMemoryAllocation").isEqualTo(2);

    List<Event> w = t.calls(WORKER);
    assertThat(w).singleElement().satisfies(e -> assertThat(e.getLaunch().getStream()).isZero());
    assertThat(t.gpuAfter(w.get(0)).getGpu().getStartNs()).isEqualTo(400_500);
    Event orphan = t.calls(OrphanPlacer.ORPHAN_TID_BASE).get(0);
    assertThat(orphan.getEntryNs()).isEqualTo(500_000);
    assertThat(orphan.getLaunch().getStream()).isEqualTo(13);

    Dvdg g = DvdgBuilder.build(out);
    assertThat(g.operations().size()).isEqualTo(9);
    assertThat(g.values().size()).isEqualTo(4 * 2 + 1);
  }

  @Test
  void olderSchemaMergesDoubleRecordsAndWarnsOfMissingTables() throws Exception {
    Path db = tmp.resolve("older.sqlite");
    NsysFixture.older(db);
    Path out = tmp.resolve("older.apptrace");
    Importer.Result r = run(db, out);
    assertThat(r.source()).containsExactly(entry("API calls", 10L), entry("kernels", 1L), entry("memcpys", 2L),
        entry("memsets", 0L), entry("synchronizations", 0L));
    assertThat(r.imported()).containsEntry("API calls", 10L).containsEntry("kernels", 1L)
        .containsEntry("memcpys", 2L).containsEntry("memsets", 0L);
    assertThat(r.warnings()).containsOnly(
        entry("table CUPTI_ACTIVITY_KIND_MEMSET absent (nsys writes it only when the run had such records): none"
            + " imported", 1L),
        entry("duplicate records of one call (same correlation id; older nsys exports write each runtime call"
            + " twice): merged", 5L),
        entry("stream synchronizations whose stream the source does not give (the replay infers it from the"
            + " measured times)", 1L));
    ImportedTrace t = ImportedTrace.read(out);
    assertThat(t.callNames(MAIN)).containsExactly("cudaMalloc", "cudaMemcpy", "cudaLaunchKernel", "cudaMemcpy",
        "cudaStreamSynchronize");
    List<Event> m = t.calls(MAIN);
    assertThat(m.get(1).getEntryNs()).as("the outer record").isEqualTo(50_000);
    assertThat(m.get(1).getDurationNs()).isEqualTo(100_000);
    assertThat(m.get(1).getCopy().getSrcKind()).isEqualTo(MemoryKind.PAGEABLE);
    assertThat(m.get(1).getCopy().getStream()).as("TARGET_INFO_CUDA_NULL_STREAM").isZero();
    assertThat(m.get(2).getLaunch().getGridX()).isEqualTo(4096);
    assertThat(m.get(4).getSync().getScope()).isEqualTo(SyncScope.UNKNOWN_STREAM_SCOPE);
  }

  @Test
  void gzippedSqliteImportsTheSame() throws Exception {
    Path db = tmp.resolve("recent.sqlite");
    NsysFixture.recent(db);
    Path gz = tmp.resolve("recent.sqlite.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(db, o);
    }
    Importer.Result a = run(db, tmp.resolve("a.apptrace"));
    Importer.Result b = run(gz, tmp.resolve("b.apptrace"));
    assertThat(b.imported()).isEqualTo(a.imported());
    assertThat(ImportedTrace.read(tmp.resolve("b.apptrace")).trace().records())
        .isEqualTo(ImportedTrace.read(tmp.resolve("a.apptrace")).trace().records());
  }

  /**
   * Names are looked up by id where StringIds is keyed by it (every export), read at once
   * otherwise: both give the same trace.
   */
  @Test
  void namesReadTheSameWhetherOrNotStringIdsIsKeyedById() throws Exception {
    Path keyed = tmp.resolve("keyed.sqlite");
    NsysFixture.recent(keyed);
    Path unkeyed = tmp.resolve("unkeyed.sqlite");
    NsysFixture.recent(unkeyed);
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + unkeyed);
        java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TABLE loose AS SELECT * FROM StringIds"); // no primary key
      s.execute("DROP TABLE StringIds");
      s.execute("ALTER TABLE loose RENAME TO StringIds");
    }
    try (SqliteFile a = SqliteFile.open(keyed); SqliteFile b = SqliteFile.open(unkeyed)) {
      assertThat(a.rowidKey("StringIds", "id")).isTrue();
      assertThat(b.rowidKey("StringIds", "id")).isFalse();
    }
    run(keyed, tmp.resolve("keyed.apptrace"));
    run(unkeyed, tmp.resolve("unkeyed.apptrace"));
    var records = ImportedTrace.read(tmp.resolve("keyed.apptrace")).trace().records();
    assertThat(records.toString()).contains("cudaLaunchKernel");
    assertThat(ImportedTrace.read(tmp.resolve("unkeyed.apptrace")).trace().records()).isEqualTo(records);
  }

  /**
   * An export large enough that its runtime calls are read ahead on a second thread over many
   * batches: every row is imported, and the trace is the same every time, whatever the two
   * threads' timing.
   */
  @Test
  void aLargeExportImportsEveryRowAndTheSameBytesEveryTime() throws Exception {
    Path db = tmp.resolve("large.sqlite");
    long rows = io.apptrace.bench.ImportBench.nsys(db, 60_000);
    Importer.Result a = run(db, tmp.resolve("a.apptrace"));
    Importer.Result b = run(db, tmp.resolve("b.apptrace"));
    assertThat(a.source().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(rows);
    assertThat(a.source().get("API calls")).isGreaterThan(4L * 4096);
    assertThat(a.imported()).containsEntry("API calls", a.source().get("API calls"))
        .containsEntry("kernels", a.source().get("kernels"));
    // the same records in the same order (the header differs only by the time of the import)
    var ra = ImportedTrace.read(tmp.resolve("a.apptrace")).trace().records();
    var rb = ImportedTrace.read(tmp.resolve("b.apptrace")).trace().records();
    assertThat(rb.size()).isEqualTo(ra.size());
    assertThat(rb.equals(ra)).as("the records of the two imports are equal").isTrue();
    assertThat(b.imported()).isEqualTo(a.imported());
  }

  @Test
  void versionSuffixesAreStrippedButRealNamesKept() {
    assertThat(NsysCalls.stripVersion("cudaMemcpy_v3020")).isEqualTo("cudaMemcpy");
    assertThat(NsysCalls.stripVersion("cudaLaunchKernel_v7000")).isEqualTo("cudaLaunchKernel");
    assertThat(NsysCalls.stripVersion("cudaStreamGetCaptureInfo_v2")).isEqualTo("cudaStreamGetCaptureInfo_v2");
    assertThat(NsysCalls.stripVersion("cudaStreamGetCaptureInfo_v2_v11030")).isEqualTo("cudaStreamGetCaptureInfo_v2");
    assertThat(NsysCalls.stripVersion("cuModuleGetLoadingMode")).isEqualTo("cuModuleGetLoadingMode");
  }

  @Test
  void globalIdsSplitIntoPidAndTid() {
    long g = NsysFixture.globalTid(1701896, 1701905);
    assertThat(NsysReader.pidOf(g)).isEqualTo(1701896);
    assertThat(NsysReader.tidOf(g)).isEqualTo(1701905);
  }
}
