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
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nvprof SQLite imports of the profile {@link NvprofFixture} writes, whole and with parts missing. */
class NvprofImportTest {
  @TempDir Path tmp;

  static final int MAIN = (int) NvprofFixture.PID;
  static final int WORKER = MAIN + 1;

  Importer.Result run(Path in, Path out) throws Exception {
    return Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
  }

  @Test
  void everyTableImports() throws Exception {
    Path db = tmp.resolve("app.nvvp");
    NvprofFixture.write(db);
    Path out = tmp.resolve("app.apptrace");
    Importer.Result r = run(db, out);

    assertThat(r.format()).isEqualTo(Importer.Format.NVPROF_SQLITE);
    assertThat(r.host()).as("nvprof does not record the host").isEmpty();
    assertThat(r.source()).containsExactly(entry("API calls", 19L), entry("kernels", 4L), entry("memcpys", 4L),
        entry("memsets", 1L), entry("synchronizations", 5L), entry("event records", 1L));
    assertThat(r.imported()).containsExactly(entry("API calls", 19L), entry("kernels", 4L), entry("memcpys", 4L),
        entry("memsets", 1L), entry("synchronizations", 5L), entry("event records", -1L),
        entry("GPU work with no traced call", 1L));
    assertThat(r.warnings()).containsExactly(entry("runtime calls whose CUPTI callback id the tables of this build"
        + " do not name: kept as \"runtime cbid N\"", 1L));
    assertThat(r.notes()).containsExactly(
        "GPU 0: Tesla V100-SXM2-16GB, 80 SMs, 15.8 GiB, 6 copy engines, compute capability 7.0, 1530 MHz,"
            + " 898.0 GB/s memory bandwidth, ECC on",
        "GPU 1: Tesla V100-SXM2-16GB, 80 SMs, 15.8 GiB, 6 copy engines, compute capability 7.0, 1530 MHz,"
            + " 898.0 GB/s memory bandwidth, ECC on",
        "NVLink 2 between GPU 0 and GPU 1: 2 links, 50.0 GB/s",
        "NVLink 2 between GPU 1 and CPU 0: 1 link, 25.0 GB/s",
        "PCIe GPU 0: gen 3, 8 GT/s, x16, domain 0, upstream bus 1a",
        "PCIe bridge 5: gen 3, 8 GT/s, x16, domain 0, upstream bus 17");

    ImportedTrace t = ImportedTrace.read(out);
    assertThat(t.trace().header().getSourceFormat()).isEqualTo("nvprof-sqlite");
    assertThat(t.trace().records()).allSatisfy(rec -> assertThat(rec.pid()).isEqualTo(MAIN));
    assertThat(t.all(Event.BodyCase.PROCESS_START)).singleElement()
        .satisfies(e -> assertThat(e.getProcessStart().getExecutable()).isEqualTo("app --size=1"));
    // CUPTI's thread ids become pid, pid + 1 in the order of each thread's first call
    assertThat(t.tids()).containsExactly(MAIN, WORKER, OrphanPlacer.ORPHAN_TID_BASE);
    assertThat(t.all(Event.BodyCase.THREAD_START)).extracting(e -> e.getThreadStart().getTid() + " "
        + e.getThreadStart().getName() + " " + e.getThreadStart().getMainThread())
        .containsExactly(MAIN + " nvprof thread 2926520096 true", WORKER + " worker false",
            OrphanPlacer.ORPHAN_TID_BASE + " GPU 0 work with no traced call false");
    // 7 and 20 are the NULL streams of the two contexts (handle 0); 13 non-blocking, 14 blocking
    assertThat(t.all(Event.BodyCase.STREAM)).extracting(e -> e.getStream().getStream() + "/" + e.getStream().getFlags())
        .containsExactly("13/1", "14/0");
    assertThat(t.all(Event.BodyCase.NOTE)).hasSize(6);

    assertThat(t.callNames(MAIN)).containsExactly("cuInit", "cudaMalloc", "cudaMemcpyAsync", "cudaLaunchKernel",
        "cudaMemsetAsync", "cudaEventRecord", "cudaStreamWaitEvent", "cudaLaunchKernel", "cudaMemcpyAsync",
        "cudaStreamSynchronize", "cudaMemcpy", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpyPeerAsync",
        "cudaFree", "cudaMalloc", "runtime cbid 9999", "cuCtxSynchronize");
    List<Event> m = t.calls(MAIN);
    assertThat(m.get(0).getEntryNs()).isEqualTo(500);
    assertThat(m.get(0).getDurationNs()).isEqualTo(400);
    Event h2d = m.get(2);
    assertThat(h2d.getCopy().getBytes()).isEqualTo(1 << 20);
    assertThat(h2d.getCopy().getKindResolved()).isEqualTo(CopyKind.HOST_TO_DEVICE);
    assertThat(h2d.getCopy().getSrcKind()).isEqualTo(MemoryKind.PINNED);
    assertThat(h2d.getCopy().getDstKind()).isEqualTo(MemoryKind.DEVICE);
    assertThat(h2d.getCopy().getStream()).isEqualTo(13);
    assertThat(h2d.getCopy().getAsync()).isTrue();
    assertThat(t.gpuAfter(h2d).getGpu().getStartNs()).isEqualTo(105_000);
    assertThat(t.gpuAfter(h2d).getGpu().getEndNs()).isEqualTo(125_000);
    Event k1 = m.get(3);
    assertThat(k1.getLaunch().getGridX()).isEqualTo(4);
    assertThat(k1.getLaunch().getGridY()).isEqualTo(2);
    assertThat(k1.getLaunch().getBlockX()).isEqualTo(128);
    assertThat(k1.getLaunch().getSharedMemBytes()).isEqualTo(256);
    assertThat(t.gpuAfter(k1).getGpu().getName()).isEqualTo("scale");
    // nvprof names kernels by their mangled name: the display name is taken from it
    assertThat(t.all(Event.BodyCase.KERNEL_INFO)).extracting(e -> e.getKernelInfo().getDemangledName() + " "
        + e.getKernelInfo().getMangledName()).containsExactly("scale _Z5scalePfi", "fill<...> _Z4fillIfEvPT_i");
    Event memset = m.get(4);
    assertThat(memset.getMemset().getBytes()).isEqualTo(4096);
    assertThat(memset.getMemset().getKind()).isEqualTo(MemoryKind.DEVICE);
    assertThat(t.gpuAfter(memset).getGpu().getStartNs()).isEqualTo(231_000);
    // events are CUPTI's event id + 1; the record's stream is _CUDA_EVENT's
    assertThat(m.get(5).getEvent().getEvent()).isEqualTo(7);
    assertThat(m.get(5).getEvent().getStream()).isEqualTo(13);
    assertThat(m.get(6).getEvent().getEvent()).isEqualTo(7);
    assertThat(m.get(6).getEvent().getStream()).isEqualTo(14);
    assertThat(m.get(8).getCopy().getDstKind()).isEqualTo(MemoryKind.PAGEABLE);
    assertThat(m.get(8).getCopy().getKindResolved()).isEqualTo(CopyKind.DEVICE_TO_HOST);
    assertThat(m.get(9).getSync().getScope()).isEqualTo(SyncScope.STREAM_SCOPE);
    assertThat(m.get(9).getSync().getStream()).isEqualTo(14);
    assertThat(m.get(10).getCopy().getStream()).as("the NULL stream").isZero();
    assertThat(m.get(10).getCopy().getKindResolved()).isEqualTo(CopyKind.DEVICE_TO_DEVICE);
    assertThat(m.get(10).getCopy().getAsync()).isFalse();
    assertThat(m.get(11).getSync().getScope()).isEqualTo(SyncScope.DEVICE_SCOPE);
    assertThat(m.get(12).getSync().getScope()).isEqualTo(SyncScope.EVENT_SCOPE);
    assertThat(m.get(12).getSync().getEvent()).isEqualTo(7);
    Event peer = m.get(13);
    assertThat(peer.getCopy().getSrcDevice()).isZero();
    assertThat(peer.getCopy().getDstDevice()).isEqualTo(1);
    assertThat(t.gpuAfter(peer).getGpu().getKind()).isEqualTo(GpuActivityKind.GPU_MEMCPY_PEER);
    assertThat(m.get(15).getResult()).as("cudaErrorMemoryAllocation").isEqualTo(2);
    assertThat(m.get(17).getSync().getScope()).as("cuCtxSynchronize").isEqualTo(SyncScope.DEVICE_SCOPE);

    List<Event> w = t.calls(WORKER);
    assertThat(w).singleElement().satisfies(e -> {
      assertThat(e.getLaunch().getStream()).as("GPU 1's NULL stream").isZero();
      assertThat(e.getLaunch().getDevice()).isEqualTo(1);
    });
    assertThat(t.gpuAfter(w.get(0)).getGpu().getStartNs()).isEqualTo(400_500);
    Event orphan = t.calls(OrphanPlacer.ORPHAN_TID_BASE).get(0);
    assertThat(orphan.getEntryNs()).isEqualTo(500_000);
    assertThat(orphan.getLaunch().getStream()).isEqualTo(13);

    Dvdg g = DvdgBuilder.build(out);
    assertThat(g.operations().size()).isEqualTo(9);
    assertThat(g.values().size()).isEqualTo(4 * 2 + 1);
  }

  @Test
  void missingTablesAndColumnsAreWarningsAndTheRestImports() throws Exception {
    Path db = tmp.resolve("older.nvvp");
    NvprofFixture.write(db, "CUPTI_ACTIVITY_KIND_STREAM", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
        "CUPTI_ACTIVITY_KIND_PCIE", "CUPTI_ACTIVITY_KIND_MEMCPY.srcKind");
    Path out = tmp.resolve("older.apptrace");
    Importer.Result r = run(db, out);
    assertThat(r.source()).containsExactly(entry("API calls", 19L), entry("kernels", 4L), entry("memcpys", 4L),
        entry("memsets", 1L), entry("synchronizations", 0L), entry("event records", 1L));
    assertThat(r.imported()).containsEntry("API calls", 19L).containsEntry("kernels", 4L)
        .containsEntry("memcpys", 4L).containsEntry("memsets", 1L).containsEntry("synchronizations", 0L);
    assertThat(r.warnings()).containsOnly(
        entry("table CUPTI_ACTIVITY_KIND_SYNCHRONIZATION absent: synchronizing calls imported without what they"
            + " waited for", 1L),
        entry("table CUPTI_ACTIVITY_KIND_STREAM absent: streams other than each context's NULL stream taken as"
            + " blocking streams", 1L),
        entry("column srcKind absent from CUPTI_ACTIVITY_KIND_MEMCPY: taken as unknown", 1L),
        entry("runtime calls whose CUPTI callback id the tables of this build do not name: kept as \"runtime cbid"
            + " N\"", 1L),
        entry("stream synchronizations whose stream the source does not give (the replay infers it from the"
            + " measured times)", 1L),
        entry("stream waits on an event whose stream or record the source does not give (ignored)", 1L),
        entry("event synchronizations the source says nothing more of (the replay infers the stream from the"
            + " measured times)", 1L));
    assertThat(r.notes()).hasSize(4).noneMatch(n -> n.startsWith("PCIe"));

    ImportedTrace t = ImportedTrace.read(out);
    assertThat(t.all(Event.BodyCase.STREAM)).extracting(e -> e.getStream().getStream() + "/" + e.getStream().getFlags())
        .as("no stream table: blocking").containsExactly("13/0", "14/0");
    List<Event> m = t.calls(MAIN);
    assertThat(m.get(2).getCopy().getSrcKind()).isEqualTo(MemoryKind.MEMORY_KIND_UNSPECIFIED);
    assertThat(m.get(2).getCopy().getDstKind()).isEqualTo(MemoryKind.DEVICE);
    assertThat(m.get(10).getCopy().getStream()).as("the NULL stream, from CUPTI_ACTIVITY_KIND_CONTEXT").isZero();
    assertThat(m.get(9).getSync().getScope()).isEqualTo(SyncScope.UNKNOWN_STREAM_SCOPE);
    assertThat(m.get(11).getSync().getScope()).isEqualTo(SyncScope.DEVICE_SCOPE);
  }

  @Test
  void gzippedProfileImportsTheSameAndLeavesNoTemporaryFile() throws Exception {
    Path db = tmp.resolve("app.nvvp");
    NvprofFixture.write(db);
    Path gz = tmp.resolve("app.nvvp.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(db, o);
    }
    Path scratch = Files.createDirectory(tmp.resolve("scratch"));
    Importer.Result a = run(db, tmp.resolve("a.apptrace"));
    Importer.Result b = Importer.run(gz, tmp.resolve("b.apptrace"), Importer.Options.defaults().withTmpDir(scratch));
    assertThat(b.format()).isEqualTo(Importer.Format.NVPROF_SQLITE);
    assertThat(b.imported()).isEqualTo(a.imported());
    assertThat(ImportedTrace.read(tmp.resolve("b.apptrace")).trace().records())
        .isEqualTo(ImportedTrace.read(tmp.resolve("a.apptrace")).trace().records());
    try (Stream<Path> left = Files.list(scratch)) {
      assertThat(left).as("the decompressed copy is deleted").isEmpty();
    }
  }

  @Test
  void aProfileWithEmptyTablesImportsAsAnEmptyTrace() throws Exception {
    Path db = tmp.resolve("empty.nvvp");
    NvprofFixture.writeEmpty(db);
    Importer.Result r = run(db, tmp.resolve("empty.apptrace"));
    assertThat(r.format()).isEqualTo(Importer.Format.NVPROF_SQLITE);
    assertThat(r.source()).containsExactly(entry("API calls", 0L), entry("kernels", 0L), entry("memcpys", 0L),
        entry("memsets", 0L), entry("synchronizations", 0L), entry("event records", 0L));
    assertThat(r.warnings()).isEmpty();
    assertThat(ImportedTrace.read(tmp.resolve("empty.apptrace")).trace().records()).isEmpty();
  }

  @Test
  void kindsFollowCuptisEnums() {
    // CUpti_ActivityMemoryKind (cupti_activity.h)
    assertThat(Stream.of(0, 1, 2, 3, 4, 5, 6, 7).map(NvprofGpuWork::memoryKind)).containsExactly(
        MemoryKind.MEMORY_KIND_UNSPECIFIED, MemoryKind.PAGEABLE, MemoryKind.PINNED, MemoryKind.DEVICE,
        MemoryKind.ARRAY, MemoryKind.MANAGED, MemoryKind.DEVICE, MemoryKind.MANAGED);
  }
}
