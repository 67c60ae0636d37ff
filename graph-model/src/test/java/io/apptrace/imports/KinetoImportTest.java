package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.OpKind;
import io.apptrace.proto.Api;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.KindResolution;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.SyncScope;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kineto JSON imports of the fixtures in src/test/resources/imports: kineto-current.json (the
 * current category names, every event kind, a driver call, fractional microseconds, a launch
 * joined only through flow events, GPU work with no call) and kineto-older.json (Runtime, Kernel,
 * Memcpy, Memset; string thread ids; no cuda_sync records).
 */
class KinetoImportTest {
  @TempDir Path tmp;

  static final long B = 1_000_000_000L; // 1,000,000 us, the fixtures' base time, in ns

  Path fixture(String name) throws Exception {
    Path p = tmp.resolve(name);
    try (InputStream in = KinetoImportTest.class.getResourceAsStream("/imports/" + name)) {
      Files.copy(in, p);
    }
    return p;
  }

  Importer.Result run(Path in, Path out) throws Exception {
    return Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
  }

  @Test
  void currentCategoriesImportEveryEventKind() throws Exception {
    Path out = tmp.resolve("current.apptrace");
    Importer.Result r = run(fixture("kineto-current.json"), out);

    assertThat(r.format()).isEqualTo(Importer.Format.KINETO_JSON);
    assertThat(r.source()).containsExactly(entry("API calls", 15L), entry("kernels", 5L), entry("memcpys", 4L),
        entry("memsets", 1L), entry("cuda_sync records", 4L), entry("flow events", 2L));
    assertThat(r.imported()).containsExactly(entry("API calls", 15L), entry("kernels", 5L), entry("memcpys", 4L),
        entry("memsets", 1L), entry("cuda_sync records", 4L), entry("flow events", -1L),
        entry("GPU work with no traced call", 1L));
    assertThat(r.warnings()).containsExactly(entry("events joined through flow events (they had no correlation id)",
        2L));
    assertThat(r.notes()).containsExactly("GPU 0: NVIDIA A100-SXM4-40GB, 108 SMs, 39.6 GiB, compute capability 8.0",
        "distributed run: backend nccl rank 0 world_size 2");
    assertThat(r.truncatedAt()).isNull();

    ImportedTrace t = ImportedTrace.read(out);
    assertThat(t.trace().header().getSourceFormat()).isEqualTo("kineto-json");
    assertThat(t.tids()).containsExactly(100, 101, OrphanPlacer.ORPHAN_TID_BASE);
    assertThat(t.all(Event.BodyCase.THREAD_START)).extracting(e -> e.getThreadStart().getName())
        .containsExactly("main", "backward", "GPU 0 work with no traced call");
    assertThat(t.all(Event.BodyCase.PROCESS_START)).singleElement()
        .satisfies(e -> assertThat(e.getProcessStart().getExecutable()).isEqualTo("python3"));
    // stream 7 is the legacy default stream (handle 0); 13 a non-blocking stream
    assertThat(t.all(Event.BodyCase.STREAM)).extracting(e -> e.getStream().getStream() + "/" + e.getStream().getFlags())
        .containsExactly("13/1");

    assertThat(t.callNames(100)).containsExactly("cudaMalloc", "cudaMemcpyAsync", "cudaLaunchKernel",
        "cudaMemsetAsync", "cudaEventRecord", "cudaStreamWaitEvent", "cudaLaunchKernel", "cudaMemcpyAsync",
        "cudaStreamSynchronize", "cudaMemcpy", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpyPeerAsync");
    List<Event> main = t.calls(100);
    assertThat(main.get(0).getEntryNs()).isEqualTo(B);
    assertThat(main.get(0).getDurationNs()).isEqualTo(50_000);
    assertThat(main.get(0).getBodyCase()).isEqualTo(Event.BodyCase.BODY_NOT_SET);

    Event h2d = main.get(1);
    assertThat(h2d.getCorrelationId()).isEqualTo(2);
    assertThat(h2d.getCopy().getBytes()).isEqualTo(1 << 20);
    assertThat(h2d.getCopy().getKindResolved()).isEqualTo(CopyKind.HOST_TO_DEVICE);
    assertThat(h2d.getCopy().getSrcKind()).isEqualTo(MemoryKind.PINNED);
    assertThat(h2d.getCopy().getDstKind()).isEqualTo(MemoryKind.DEVICE);
    assertThat(h2d.getCopy().getStream()).isZero();
    assertThat(h2d.getCopy().getAsync()).isTrue();
    Event h2dGpu = t.gpuAfter(h2d);
    assertThat(h2dGpu.getGpu().getKind()).isEqualTo(GpuActivityKind.GPU_MEMCPY);
    assertThat(h2dGpu.getGpu().getStartNs()).isEqualTo(B + 105_000);
    assertThat(h2dGpu.getGpu().getEndNs()).isEqualTo(B + 125_000);
    assertThat(h2dGpu.getGpu().getStreamId()).isEqualTo(7);

    Event k1 = main.get(2);
    assertThat(k1.getLaunch().getGridX()).isEqualTo(4);
    assertThat(k1.getLaunch().getGridY()).isEqualTo(2);
    assertThat(k1.getLaunch().getBlockX()).isEqualTo(128);
    assertThat(k1.getLaunch().getSharedMemBytes()).isEqualTo(256);
    assertThat(t.all(Event.BodyCase.KERNEL_INFO)).extracting(e -> e.getKernelInfo().getDemangledName())
        .containsExactly("k1", "k2", "triton_k", "flowk", "orphan_k");

    assertThat(main.get(3).getMemset().getBytes()).isEqualTo(4096);
    assertThat(main.get(3).getMemset().getKind()).isEqualTo(MemoryKind.DEVICE);
    // the record's stream comes from the cuda_sync records that name it; events by record correlation
    assertThat(main.get(4).getEvent().getEvent()).isEqualTo(5);
    assertThat(main.get(4).getEvent().getStream()).isZero();
    assertThat(main.get(5).getEvent().getEvent()).isEqualTo(5);
    assertThat(main.get(5).getEvent().getStream()).isEqualTo(13);
    assertThat(main.get(6).getLaunch().getStream()).isEqualTo(13);
    assertThat(main.get(7).getCopy().getKindResolved()).isEqualTo(CopyKind.DEVICE_TO_HOST);
    assertThat(main.get(7).getCopy().getDstKind()).isEqualTo(MemoryKind.PAGEABLE);
    assertThat(main.get(8).getSync().getScope()).isEqualTo(SyncScope.STREAM_SCOPE);
    assertThat(main.get(8).getSync().getStream()).isEqualTo(13);
    assertThat(main.get(9).getCopy().getKindResolved()).isEqualTo(CopyKind.DEVICE_TO_DEVICE);
    assertThat(main.get(9).getCopy().getAsync()).as("cudaMemcpy is synchronous").isFalse();
    assertThat(main.get(10).getSync().getScope()).isEqualTo(SyncScope.DEVICE_SCOPE);
    assertThat(main.get(11).getSync().getScope()).isEqualTo(SyncScope.EVENT_SCOPE);
    assertThat(main.get(11).getSync().getEvent()).isEqualTo(5);
    Event peer = main.get(12);
    assertThat(peer.getCopy().getResolution()).isEqualTo(KindResolution.PEER_CALL);
    assertThat(t.gpuAfter(peer).getGpu().getKind()).isEqualTo(GpuActivityKind.GPU_MEMCPY_PEER);

    // the backward thread: a driver call, with the kernel's fractional microseconds kept to the ns
    List<Event> backward = t.calls(101);
    assertThat(backward).extracting(e -> e.getApi() + ":" + e.getApiName())
        .containsExactly("API_OTHER:cuLaunchKernel", Api.cudaLaunchKernel + ":");
    assertThat(t.gpuAfter(backward.get(0)).getGpu().getStartNs()).isEqualTo(1_000_400_500L);
    assertThat(t.gpuAfter(backward.get(0)).getGpu().getEndNs()).isEqualTo(1_000_410_750L);
    // joined through the flow event's id
    assertThat(backward.get(1).getCorrelationId()).isEqualTo(30);
    assertThat(backward.get(1).getLaunch().getStream()).isEqualTo(13);

    // GPU work with no call: on the synthetic thread, issued at its GPU start
    Event orphan = t.calls(OrphanPlacer.ORPHAN_TID_BASE).get(0);
    assertThat(orphan.getApiName()).isEqualTo("(launch not traced)");
    assertThat(orphan.getEntryNs()).isEqualTo(B + 500_000);
    assertThat(t.gpuAfter(orphan).getGpu().getName()).isEqualTo("orphan_k");
  }

  @Test
  void theGraphHasOneValuePerCopyEndpointAndMeasuredTimes() throws Exception {
    Path out = tmp.resolve("current.apptrace");
    run(fixture("kineto-current.json"), out);
    Dvdg g = DvdgBuilder.build(out);
    var ops = g.operations();
    assertThat(ops.size()).isEqualTo(10);
    long copies = java.util.stream.IntStream.range(0, ops.size()).filter(i -> ops.kind(i) == OpKind.COPY).count();
    assertThat(copies).isEqualTo(4);
    // two values per copy (its source and destination), one per memset; kernels have none
    assertThat(g.values().size()).isEqualTo(4 * 2 + 1);
    assertThat(g.allocations()).hasSize(9).allSatisfy(a -> assertThat(a.implicit()).isTrue());
    for (int i = 0; i < ops.size(); i++) {
      assertThat(ops.gpuTimes(i)).as("op %d %s has its measured GPU times", i, ops.name(i)).isNotNull();
      if (ops.kind(i) == OpKind.COPY) {
        assertThat(ops.inputCount(i)).isEqualTo(1);
        assertThat(ops.outputCount(i)).isEqualTo(1);
        assertThat(g.values().producer(ops.input(i, 0))).as("a copy's source is nobody's output").isEqualTo(-1);
      }
    }
    assertThat(g.warnings().counts()).isEmpty();
  }

  @Test
  void olderCategoryNamesAndStringThreadIds() throws Exception {
    Path out = tmp.resolve("older.apptrace");
    Importer.Result r = run(fixture("kineto-older.json"), out);
    assertThat(r.source()).containsExactly(entry("API calls", 4L), entry("kernels", 1L), entry("memcpys", 1L),
        entry("memsets", 1L), entry("cuda_sync records", 0L), entry("flow events", 2L));
    assertThat(r.imported()).containsEntry("API calls", 4L).containsEntry("kernels", 1L)
        .containsEntry("memcpys", 1L).containsEntry("memsets", 1L).containsEntry("GPU work with no traced call", 0L);
    assertThat(r.warnings()).containsExactly(entry("stream synchronizations whose stream the source does not give"
        + " (the replay infers it from the measured times)", 1L));
    ImportedTrace t = ImportedTrace.read(out);
    assertThat(t.callNames(7)).containsExactly("cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync",
        "cudaStreamSynchronize");
    List<Event> calls = t.calls(7);
    assertThat(calls.get(0).getLaunch().getGridX()).isEqualTo(16);
    assertThat(t.gpuAfter(calls.get(0)).getGpu().getStartNs()).isEqualTo(B + 10_000);
    assertThat(calls.get(1).getCopy().getSrcKind()).isEqualTo(MemoryKind.PAGEABLE);
    assertThat(calls.get(1).getCopy().getBytes()).isEqualTo(8192);
    assertThat(calls.get(3).getSync().getScope()).isEqualTo(SyncScope.UNKNOWN_STREAM_SCOPE);
  }

  @Test
  void gzippedImportsTheSame() throws Exception {
    Path plain = fixture("kineto-current.json");
    Path gz = tmp.resolve("current.json.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(plain, o);
    }
    Importer.Result a = run(plain, tmp.resolve("a.apptrace"));
    Importer.Result b = run(gz, tmp.resolve("b.apptrace"));
    assertThat(b.source()).isEqualTo(a.source());
    assertThat(b.imported()).isEqualTo(a.imported());
    assertThat(ImportedTrace.read(tmp.resolve("b.apptrace")).trace().records())
        .isEqualTo(ImportedTrace.read(tmp.resolve("a.apptrace")).trace().records());
  }

  @Test
  void aTruncatedFileImportsWhatPrecedesTheCut() throws Exception {
    String json = Files.readString(fixture("kineto-current.json"));
    int cut = json.indexOf("\"name\": \"cudaStreamSynchronize\"");
    Path in = tmp.resolve("cut.json");
    Files.writeString(in, json.substring(0, cut), StandardCharsets.UTF_8);
    Importer.Result r = run(in, tmp.resolve("cut.apptrace"));
    assertThat(r.truncatedAt()).startsWith("byte ");
    assertThat(r.source()).containsEntry("API calls", 8L).containsEntry("kernels", 2L).containsEntry("memcpys", 2L)
        .containsEntry("memsets", 1L).containsEntry("cuda_sync records", 1L);
    assertThat(r.imported()).containsEntry("API calls", 8L).containsEntry("kernels", 2L).containsEntry("memcpys", 2L);
    assertThat(r.warnings()).containsKey("the file ends early (at " + r.truncatedAt()
        + " of the decompressed JSON): the events before it were imported");
    assertThat(ImportedTrace.read(tmp.resolve("cut.apptrace")).callNames(100)).containsExactly("cudaMalloc",
        "cudaMemcpyAsync", "cudaLaunchKernel", "cudaMemsetAsync", "cudaEventRecord", "cudaStreamWaitEvent",
        "cudaLaunchKernel", "cudaMemcpyAsync");
  }

  @Test
  void aTruncatedGzipImportsWhatPrecedesTheCut() throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (OutputStream o = new GZIPOutputStream(bytes)) {
      o.write(launches(5000).getBytes(StandardCharsets.UTF_8));
    }
    byte[] all = bytes.toByteArray();
    Path in = tmp.resolve("cut.json.gz");
    Files.write(in, java.util.Arrays.copyOf(all, all.length / 2));
    Importer.Result r = run(in, tmp.resolve("cut.apptrace"));
    assertThat(r.truncatedAt()).isNotNull();
    assertThat(r.imported().get("API calls")).isBetween(1000L, 4000L);
    assertThat(r.imported().get("kernels")).isBetween(r.imported().get("API calls") - 1, r.imported().get("API calls"));
    assertThat(r.warnings()).hasSize(1);
  }

  /** A Kineto trace of n launches, each followed by its kernel. */
  static String launches(int n) {
    StringBuilder s = new StringBuilder("{\"schemaVersion\": 1, \"traceEvents\": [\n");
    for (int i = 0; i < n; i++) {
      long ts = 1_000_000 + 10L * i;
      s.append(i == 0 ? "" : ",\n").append("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\","
          + " \"pid\": 1, \"tid\": 1, \"ts\": ").append(ts).append(", \"dur\": 4, \"args\": {\"correlation\": ")
          .append(i + 1).append("}},\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
          + " \"tid\": 7, \"ts\": ").append(ts + 5).append(", \"dur\": 3, \"args\": {\"correlation\": ").append(i + 1)
          .append(", \"stream\": 7, \"device\": 0, \"grid\": [1, 1, 1], \"block\": [32, 1, 1]}}");
    }
    return s.append("\n]}\n").toString();
  }

  @Test
  void theBareArrayFormIsRead() throws Exception {
    Path in = tmp.resolve("array.json");
    Files.writeString(in, "[{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
        + "\"ts\":10,\"dur\":2,\"args\":{\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
        + "\"tid\":7,\"ts\":15,\"dur\":3,\"args\":{\"correlation\":1,\"stream\":7,\"device\":0}}]");
    Importer.Result r = run(in, tmp.resolve("array.apptrace"));
    assertThat(r.imported()).containsEntry("API calls", 1L).containsEntry("kernels", 1L);
    Event launch = ImportedTrace.read(tmp.resolve("array.apptrace")).calls(1).get(0);
    assertThat(launch.getEntryNs()).isEqualTo(10_000);
    assertThat(launch.getDurationNs()).isEqualTo(2_000);
  }

  @Test
  void microsecondTextsAreExactNanoseconds() {
    assertThat(KinetoValues.microsText("1712867402348289.123")).isEqualTo(1_712_867_402_348_289_123L);
    assertThat(KinetoValues.microsText("1712867402348289.1")).isEqualTo(1_712_867_402_348_289_100L);
    assertThat(KinetoValues.microsText("0.5")).isEqualTo(500);
    assertThat(KinetoValues.microsText("1.5e3")).isEqualTo(1_500_000);
    assertThat(KinetoValues.microsText("12.3456")).as("below a nanosecond is dropped").isEqualTo(12_345);
    assertThat(KinetoValues.microsText("x")).isEqualTo(Long.MIN_VALUE);
  }
}
