package io.apptrace.graph;

import static io.apptrace.graph.TraceFixture.constPtr;
import static io.apptrace.graph.TraceFixture.opaque;
import static io.apptrace.graph.TraceFixture.ptr;
import static io.apptrace.graph.TraceFixture.scalar;
import static io.apptrace.graph.TraceFixture.struct;
import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.CopyKind;
import io.apptrace.proto.MemoryKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jgrapht.Graph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The DVDG of synthetic traces with fixed addresses: each rule of docs/GRAPH.md / issue 3. */
class DvdgTest {
  @TempDir Path tmp;

  /** Every edge as "allocN:vK -name-> allocM:vJ", synthetic ends as "none". */
  static List<String> edges(Dvdg g) {
    DvdgGraph v = g.view();
    List<String> out = new ArrayList<>();
    for (int e : v.edgeSet()) {
      out.add(vertex(g, v.getEdgeSource(e)) + " -" + g.operations().name(v.operationOf(e)) + "-> "
          + vertex(g, v.getEdgeTarget(e)));
    }
    return out;
  }

  static String vertex(Dvdg g, int vertex) {
    if (!g.view().isValue(vertex)) {
      return "none";
    }
    return "alloc" + g.values().allocation(vertex) + ":v" + g.values().version(vertex);
  }

  /**
   * Pearson 2018, Fig. 6.1, with the figure's addresses (moved up by 0x10000 so none is null):
   *
   * <pre>
   *   a_h:v0 --cudaMemcpy--> a_d:v1 --\
   *                                    vector_add --> s_d:v1 --cudaMemcpy--> s_h:v1
   *   b_h:v0 --cudaMemcpy--> b_d:v1 --/
   * </pre>
   *
   * Allocations: 0 a_h, 1 b_h, 2 s_h (malloc), 3 a_d, 4 b_d, 5 s_d (cudaMalloc), 1024 bytes each.
   * s_d is fresh device memory when the kernel writes it, so it is no input (a version never
   * written orders nothing); a_h and b_h hold what the CPU wrote, unseen: version 0, an input.
   */
  static TraceFixture figure61() {
    return new TraceFixture()
        .malloc(0x10000, 1024).malloc(0x10400, 1024).malloc(0x10800, 1024)
        .cudaMalloc(0x10c00, 1024).cudaMalloc(0x11000, 1024).cudaMalloc(0x11400, 1024)
        .memcpy(0x10c00, 0x10000, 1024, CopyKind.HOST_TO_DEVICE)
        .memcpy(0x11000, 0x10400, 1024, CopyKind.HOST_TO_DEVICE)
        .kernel(7, "_Z10vector_addPfPKfS1_i", ptr(), constPtr(), constPtr(), scalar(4))
        .launch(7, 0, 0x11400, 0x10c00, 0x11000, 1024)
        .memcpy(0x10800, 0x11400, 1024, CopyKind.DEVICE_TO_HOST);
  }

  @Test
  void figure61HasExactlyItsValuesAndEdges() throws Exception {
    Dvdg g = figure61().build(tmp);
    assertThat(g.values().size()).isEqualTo(6);
    assertThat(g.operations().size()).isEqualTo(4);
    assertThat(edges(g)).containsExactly(
        "alloc0:v0 -cudaMemcpy-> alloc3:v1",
        "alloc1:v0 -cudaMemcpy-> alloc4:v1",
        "alloc3:v1 -vector_add-> alloc5:v1",
        "alloc4:v1 -vector_add-> alloc5:v1",
        "alloc5:v1 -cudaMemcpy-> alloc2:v1");
    OperationTable ops = g.operations();
    assertThat(ops.inputConfidence(2, 0)).isEqualTo(Confidence.CONST_FROM_SIGNATURE);
    assertThat(ops.outputConfidence(2, 0)).isEqualTo(Confidence.ASSUMED_WRITTEN);
    assertThat(g.races()).isEmpty();
    assertThat(g.warnings().total()).isZero();
  }

  @Test
  void figure61GraphMlMatchesTheGoldenFile() throws Exception {
    Dvdg g = figure61().build(tmp);
    java.io.StringWriter w = new java.io.StringWriter();
    GraphMlExport.write(g, CallSites.none(), w);
    Goldens.assertXmlMatches("graph/figure61.graphml", w.toString());
  }

  /**
   * The less certain edges in GraphML: a pointer found in a by-value struct, a pointer to const
   * (an input only, so its edge goes to the synthetic sink), and an implicit host region.
   *
   * <pre>
   *   stack:v0 --cudaMemcpy--> buf:v1 --by_struct--> buf:v2      (found-in-struct)
   *                            buf:v2 --sum--> sink               (const-from-signature)
   * </pre>
   */
  @Test
  void uncertainEdgesGraphMlMatchesTheGoldenFile() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMalloc(0x30000, 1024)
        .memcpy(0x30000, 0x7ffe_0000_1000L, 1024, CopyKind.HOST_TO_DEVICE)
        .kernel(2, "_Z9by_struct6Params", struct(16))
        .launch(2, 0, 0x30000, 0x4040_0000_0000_0040L)
        .kernel(4, "_Z3sumPKf", constPtr())
        .launch(4, 0, 0x30000)
        .build(tmp);
    assertThat(edges(g)).containsExactly("alloc1:v0 -cudaMemcpy-> alloc0:v1",
        "alloc0:v1 -by_struct-> alloc0:v2", "alloc0:v2 -sum-> none");
    java.io.StringWriter w = new java.io.StringWriter();
    GraphMlExport.write(g, CallSites.none(), w);
    Goldens.assertXmlMatches("graph/uncertain-edges.graphml", w.toString());
  }

  /** Host memory on a known NUMA node says so in its location; unknown stays "host". */
  @Test
  void hostLocationNamesTheNumaNodeWhenKnown() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMallocHost(0xe0000, 4096, 1).cudaMallocHost(0xf0000, 4096).cudaMalloc(0x100000, 4096)
        .memcpy(0x100000, 0xe0000, 4096, CopyKind.HOST_TO_DEVICE)
        .build(tmp);
    assertThat(g.allocations()).extracting(Allocation::location).containsExactly("host-numa1", "host", "gpu0");
    java.io.StringWriter w = new java.io.StringWriter();
    JsonExport.write(g, CallSites.none(), w);
    assertThat(w.toString()).contains("\"location\":\"host-numa1\"").contains("\"numa_node\":1");
  }

  /** A kernel given base + offset reads and writes from that offset to the allocation's end. */
  @Test
  void interiorPointerResolvesToItsAllocationFromItsOffset() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMalloc(0x20000, 4096)
        .memsetAsync(0x20000, 4096, 0)
        .kernel(1, "_Z8interiorPfi", ptr(), scalar(4))
        .launch(1, 0, 0x20000 + 1000, 32)
        .build(tmp);
    assertThat(edges(g)).containsExactly("none -cudaMemsetAsync-> alloc0:v1", "alloc0:v1 -interior-> alloc0:v2");
    int v2 = g.operations().output(1, 0);
    assertThat(g.values().offset(v2)).isEqualTo(1000);
    assertThat(g.values().bytes(v2)).isEqualTo(3096);
  }

  /** A device pointer inside a by-value struct: found by scanning its 8-byte words. */
  @Test
  void pointerInsideAByValueStructIsFoundInStruct() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMalloc(0x30000, 1024)
        .memsetAsync(0x30000, 1024, 0)
        .kernel(2, "_Z9by_struct6Params", struct(16))
        .launch(2, 0, 0x30000, 0x4040_0000_0000_0040L) // {float* data; int n; float scale}
        .build(tmp);
    assertThat(edges(g)).contains("alloc0:v1 -by_struct-> alloc0:v2");
    assertThat(g.operations().inputConfidence(1, 0)).isEqualTo(Confidence.FOUND_IN_STRUCT);
    assertThat(g.operations().outputConfidence(1, 0)).isEqualTo(Confidence.FOUND_IN_STRUCT);
  }

  /** An extern "C" kernel: no signature, so its 8-byte parameters are resolved like struct words. */
  @Test
  void externCKernelParametersAreResolvedAgainstAllocations() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMalloc(0x40000, 512).cudaMalloc(0x50000, 512)
        .memsetAsync(0x50000, 512, 0)
        .kernel(3, "plain_c", opaque(8), opaque(8), opaque(4))
        .launch(3, 0, 0x40000, 0x50000, 128)
        .build(tmp);
    // out (alloc 0) is fresh: written, not read; in (alloc 1) was written by the memset
    assertThat(edges(g)).containsExactly("none -cudaMemsetAsync-> alloc1:v1",
        "alloc1:v1 -plain_c-> alloc0:v1", "alloc1:v1 -plain_c-> alloc1:v2");
    assertThat(g.operations().name(1)).isEqualTo("plain_c");
  }

  /** A pointer to const is read, never written. */
  @Test
  void pointerToConstIsAnInputOnly() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMalloc(0x60000, 256)
        .memsetAsync(0x60000, 256, 0)
        .kernel(4, "_Z3sumPKf", constPtr())
        .launch(4, 0, 0x60000)
        .build(tmp);
    assertThat(edges(g)).containsExactly("none -cudaMemsetAsync-> alloc0:v1", "alloc0:v1 -sum-> none");
    assertThat(g.operations().outputCount(1)).isZero();
  }

  /** An address freed and allocated again is a new allocation: reads see the new one. */
  @Test
  void aFreedAndReusedAddressIsANewAllocation() throws Exception {
    Dvdg g = new TraceFixture()
        .malloc(0x90000, 1024)
        .cudaMalloc(0x70000, 1024)
        .memcpy(0x70000, 0x90000, 1024, CopyKind.HOST_TO_DEVICE)
        .cudaFree(0x70000)
        .cudaMalloc(0x70000, 1024)
        .memsetAsync(0x70000, 1024, 0)
        .memcpy(0x90000, 0x70000, 1024, CopyKind.DEVICE_TO_HOST)
        .build(tmp);
    assertThat(g.allocations()).hasSize(3);
    assertThat(edges(g)).containsExactly("alloc0:v0 -cudaMemcpy-> alloc1:v1",
        "none -cudaMemsetAsync-> alloc2:v1", "alloc2:v1 -cudaMemcpy-> alloc0:v1");
  }

  /** Host memory no allocation covers (a stack array) becomes an implicit region, marked so. */
  @Test
  void copyFromUnrecordedHostMemoryCreatesAnImplicitRegion() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMalloc(0xa0000, 256)
        .memcpy(0xa0000, 0x7ffe_0000_1000L, 256, CopyKind.HOST_TO_DEVICE)
        .build(tmp);
    Allocation implicit = g.allocation(1);
    assertThat(implicit.implicit()).isTrue();
    assertThat(implicit.start()).isEqualTo(0x7ffe_0000_1000L);
    assertThat(implicit.bytes()).isEqualTo(256);
    assertThat(implicit.kind()).isEqualTo(MemoryKind.PAGEABLE);
    assertThat(edges(g)).containsExactly("alloc1:v0 -cudaMemcpy-> alloc0:v1");
    assertThat(g.warnings().total()).isZero();
  }

  /**
   * A wider copy from host memory that covers an implicit region replaces it with one region,
   * and keeps what was written into the old one: the second copy reads the first copy's version
   * (bytes 0-255) and the new region's initial contents (bytes 256-511).
   */
  @Test
  void aWiderImplicitRegionKeepsWhatWasWrittenIntoTheOneItReplaces() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaMalloc(0xa0000, 512).memsetAsync(0xa0000, 512, 0)
        .memcpy(0x7ffe_0000_1000L, 0xa0000, 256, CopyKind.DEVICE_TO_HOST)
        .memcpy(0xa0000, 0x7ffe_0000_1000L, 512, CopyKind.HOST_TO_DEVICE)
        .build(tmp);
    assertThat(g.allocations()).filteredOn(Allocation::implicit).hasSize(2);
    OperationTable ops = g.operations();
    int back = 2;
    assertThat(ops.inputCount(back)).isEqualTo(2);
    assertThat(g.values().producer(ops.input(back, 0))).isEqualTo(1);
    assertThat(ops.inputBytes(back, 0)).isEqualTo(256);
    assertThat(g.values().version(ops.input(back, 1))).isZero();
    assertThat(ops.inputBytes(back, 1)).isEqualTo(256);
  }

  /**
   * Two non-blocking streams: a kernel in stream 0xA writes a buffer, a kernel in stream 0xB reads
   * it, nothing orders the two.
   *
   * <pre>
   *   stream A:  writer(buf) ........................
   *   stream B:  ............... reader(buf)   &lt;- race
   * </pre>
   */
  @Test
  void readInAnotherStreamWithoutOrderingIsARace() throws Exception {
    Dvdg g = twoStreams(false, false).build(tmp);
    assertThat(g.races()).singleElement().satisfies(r -> {
      assertThat(g.operations().name(r.writer())).isEqualTo("writer");
      assertThat(g.operations().name(r.reader())).isEqualTo("reader");
    });
  }

  /**
   * Race confidence (docs/GRAPH.md, "Races"): a race with a kernel on either end rests on its
   * inferred footprint, and here also on a write assumed through a non-const pointer whose code
   * was not read: possible, not certain, with both guesses named.
   */
  @Test
  void aRaceWithAKernelIsPossibleAndNamesItsGuesses() throws Exception {
    Dvdg g = twoStreams(false, false).build(tmp);
    assertThat(g.races()).singleElement().satisfies(r -> {
      assertThat(r.certain()).isFalse();
      assertThat(r.confidence()).isEqualTo("possible");
      assertThat(r.guessSet()).containsExactly(Race.Guess.KERNEL_FOOTPRINT, Race.Guess.ASSUMED_WRITE);
    });
    DvdgSummary s = DvdgSummary.of(g);
    assertThat(s.certainRaces()).isZero();
    assertThat(s.possibleRaces()).isEqualTo(1);
  }

  /**
   * Race confidence: two copies, whose ranges are known, in two non-blocking streams with nothing
   * between them: a certain race.
   *
   * <pre>
   *   stream A:  host -> buf (H2D) .....................
   *   stream B:  ..................... buf -> host (D2H)   &lt;- certain race
   * </pre>
   */
  @Test
  void aRaceBetweenTwoCopiesIsCertain() throws Exception {
    Dvdg g = new TraceFixture()
        .streamCreate(0xA, 1).streamCreate(0xB, 1)
        .cudaMallocHost(0x10000, 4096).cudaMallocHost(0x30000, 4096).cudaMalloc(0x20000, 4096)
        .memcpyAsync(0x20000, 0x10000, 4096, CopyKind.HOST_TO_DEVICE, 0xA)
        .memcpyAsync(0x30000, 0x20000, 4096, CopyKind.DEVICE_TO_HOST, 0xB)
        .build(tmp);
    assertThat(g.races()).singleElement().satisfies(r -> {
      assertThat(r.certain()).isTrue();
      assertThat(r.guesses()).isEmpty();
    });
    java.io.StringWriter w = new java.io.StringWriter();
    JsonExport.write(g, CallSites.none(), w);
    assertThat(w.toString()).contains("\"race\":\"certain\"").contains("\"race_writer\":0");
  }

  /**
   * The same with cudaEventRecord(e, A) after the writer and cudaStreamWaitEvent(B, e) before the
   * reader: ordered, no race.
   */
  @Test
  void anEventBetweenTheStreamsMakesItSafe() throws Exception {
    assertThat(twoStreams(true, false).build(tmp).races()).isEmpty();
  }

  /** The same with cudaStreamSynchronize(A) on the host before the reader is launched. */
  @Test
  void aHostSynchronizeMakesItSafe() throws Exception {
    assertThat(twoStreams(false, true).build(tmp).races()).isEmpty();
  }

  /**
   * A synchronization orders what a thread issues afterwards even on a stream it had used before:
   * B is used first, then A's writer, a cudaStreamSynchronize(A), and the reader on B. No race;
   * without the synchronization, the race.
   */
  @Test
  void aHostSynchronizeOrdersAStreamUsedBeforeIt() throws Exception {
    assertThat(streamUsedBefore(true, false).build(tmp).races()).isEmpty();
    assertThat(streamUsedBefore(false, false).build(tmp).races()).hasSize(1);
  }

  /**
   * The same when another thread synchronized: its cudaStreamSynchronize(A) returned before this
   * thread issued the reader, so A's writer had finished (docs/GRAPH.md, host synchronization).
   */
  @Test
  void anotherThreadsReturnedSynchronizeOrdersAStreamUsedBeforeIt() throws Exception {
    assertThat(streamUsedBefore(true, true).build(tmp).races()).isEmpty();
  }

  private static TraceFixture streamUsedBefore(boolean sync, boolean otherThread) {
    TraceFixture f = new TraceFixture()
        .streamCreate(0xA, 1).streamCreate(0xB, 1)
        .cudaMalloc(0xb0000, 4096).cudaMalloc(0xc0000, 4096)
        .kernel(5, "_Z6writerPf", ptr())
        .kernel(6, "_Z6readerPKf", constPtr())
        .memsetAsync(0xc0000, 4096, 0xB)
        .launch(5, 0xA, 0xb0000);
    if (sync) {
      f.thread(otherThread ? TraceFixture.PID + 1 : TraceFixture.PID).streamSynchronize(0xA).thread(TraceFixture.PID);
    }
    return f.launch(6, 0xB, 0xb0000);
  }

  private static TraceFixture twoStreams(boolean event, boolean sync) {
    TraceFixture f = new TraceFixture()
        .streamCreate(0xA, 1).streamCreate(0xB, 1)
        .cudaMalloc(0xb0000, 4096)
        .kernel(5, "_Z6writerPf", ptr())
        .kernel(6, "_Z6readerPKf", constPtr())
        .launch(5, 0xA, 0xb0000);
    if (event) {
      f.eventRecord(0xE, 0xA).streamWaitEvent(0xB, 0xE);
    }
    if (sync) {
      f.streamSynchronize(0xA);
    }
    return f.launch(6, 0xB, 0xb0000);
  }

  /** The legacy default stream waits for blocking streams: no race through it. */
  @Test
  void theLegacyDefaultStreamOrdersBlockingStreams() throws Exception {
    Dvdg g = new TraceFixture()
        .streamCreate(0xC, 0) // blocking
        .cudaMalloc(0xc0000, 4096).malloc(0xd0000, 4096)
        .kernel(5, "_Z6writerPf", ptr())
        .launch(5, 0xC, 0xc0000)
        .memcpy(0xd0000, 0xc0000, 4096, CopyKind.DEVICE_TO_HOST) // legacy stream
        .build(tmp);
    assertThat(g.races()).isEmpty();
  }

  /**
   * Four streams each copy a chunk into one buffer and run a kernel on their chunk (an interior
   * pointer): each kernel depends on its own chunk's copy only, and nothing is a race.
   */
  @Test
  void chunkedWritesKeepByteRangesApart() throws Exception {
    TraceFixture f = new TraceFixture().cudaMallocHost(0xe0000, 4096).cudaMalloc(0xf0000, 4096)
        .kernel(8, "_Z5scalePf", ptr());
    for (int s = 0; s < 4; s++) {
      f.streamCreate(0x100 + s, 1);
    }
    for (int s = 0; s < 4; s++) {
      f.memcpyAsync(0xf0000 + s * 1024, 0xe0000 + s * 1024, 1024, CopyKind.HOST_TO_DEVICE, 0x100 + s)
          .launch(8, 0x100 + s, 0xf0000 + s * 1024);
    }
    Dvdg g = f.build(tmp);
    assertThat(g.races()).isEmpty();
    OperationTable ops = g.operations();
    for (int s = 0; s < 4; s++) {
      int kernel = 2 * s + 1;
      assertThat(ops.inputCount(kernel)).isEqualTo(1);
      assertThat(g.values().producer(ops.input(kernel, 0))).isEqualTo(2 * s);
    }
  }

  /**
   * A read records how many bytes it took from each version: a device-to-host copy of a whole
   * buffer whose first three quarters were written by three chunk copies (1024 bytes each) and
   * whose last quarter was never written (fresh device memory, no input).
   */
  @Test
  void aReadRecordsTheBytesItTookFromEachVersion() throws Exception {
    TraceFixture f = new TraceFixture().cudaMallocHost(0xe0000, 4096).cudaMalloc(0xf0000, 4096)
        .malloc(0x200000, 4096);
    for (int s = 0; s < 3; s++) {
      f.memcpy(0xf0000 + s * 1024, 0xe0000 + s * 1024, 1024, CopyKind.HOST_TO_DEVICE);
    }
    f.memcpy(0x200000 + 512, 0xf0000 + 512, 2048, CopyKind.DEVICE_TO_HOST);
    Dvdg g = f.build(tmp);
    OperationTable ops = g.operations();
    int gather = 3;
    List<Long> read = new ArrayList<>();
    for (int k = 0; k < ops.inputCount(gather); k++) {
      read.add(ops.inputBytes(gather, k));
      assertThat(g.values().producer(ops.input(gather, k))).isEqualTo(k);
    }
    assertThat(read).containsExactly(512L, 1024L, 512L);
    for (int chunk = 0; chunk < 3; chunk++) {
      assertThat(ops.inputCount(chunk)).isEqualTo(1);
      assertThat(ops.inputBytes(chunk, 0)).as("chunk %d reads its 1024 host bytes", chunk).isEqualTo(1024L);
    }
    assertThat(DvdgSummary.of(g).consumers()).contains(new DvdgSummary.Traffic("cudaMemcpy", 3 * 1024 + 2048, 4));
  }

  /**
   * The canonical pipeline of van Werkhoven et al. 2014 (sec. IV), out of place: in each of
   * four streams a chunk copied in, {@code scale(out + off, in + off)}, the chunk copied out. The
   * output chunk is fresh memory, so its kernel takes the size of its input chunk: each kernel
   * writes its own 1024 bytes, reads only its stream's copy, and nothing is a race.
   */
  @Test
  void aKernelWritingAFreshChunkTakesTheSizeOfItsInputChunk() throws Exception {
    TraceFixture f = new TraceFixture().cudaMallocHost(0xe0000, 4096).cudaMallocHost(0x1e0000, 4096)
        .cudaMalloc(0xf0000, 4096).cudaMalloc(0x1f0000, 4096)
        .kernel(9, "_Z5scalePfPKffi", ptr(), constPtr(), scalar(4), scalar(4));
    for (int s = 0; s < 4; s++) {
      f.streamCreate(0x100 + s, 0);
    }
    for (int s = 0; s < 4; s++) {
      int off = s * 1024;
      f.memcpyAsync(0xf0000 + off, 0xe0000 + off, 1024, CopyKind.HOST_TO_DEVICE, 0x100 + s)
          .launch(9, 0x100 + s, 0x1f0000 + off, 0xf0000 + off, (256L << 32) | 0x40000000L) // a = 2.0f, n
          .memcpyAsync(0x1e0000 + off, 0x1f0000 + off, 1024, CopyKind.DEVICE_TO_HOST, 0x100 + s);
    }
    Dvdg g = f.build(tmp);
    assertThat(g.races()).isEmpty();
    OperationTable ops = g.operations();
    for (int s = 0; s < 4; s++) {
      int kernel = 3 * s + 1;
      assertThat(ops.name(kernel)).isEqualTo("scale");
      assertThat(ops.inputCount(kernel)).as("reads only the chunk its stream copied in").isEqualTo(1);
      assertThat(g.values().producer(ops.input(kernel, 0))).isEqualTo(3 * s);
      assertThat(ops.outputCount(kernel)).isEqualTo(1);
      int out = ops.output(kernel, 0);
      assertThat(g.values().offset(out)).isEqualTo(s * 1024L);
      assertThat(g.values().bytes(out)).isEqualTo(1024L);
      assertThat(g.values().producer(ops.input(kernel + 1, 0))).as("the copy out reads its kernel").isEqualTo(kernel);
    }
  }

  /**
   * The slices rule (docs/GRAPH.md, "Kernel reads and writes"), the pattern of the CUDA sample
   * simpleStreams: a kernel over the whole 4096-byte buffer (4 blocks) in the legacy stream, then
   * in each of four streams the same kernel over one slice (1 block), given base + k * 1024, and
   * the slice copied out. Each slice's footprint ends where the next launch's slice begins, the
   * last at the buffer's end: each stream reads and writes its own slice, and nothing is a race.
   *
   * <pre>
   *   legacy:   init(buf)                     [0, 4096)
   *   stream k: init(buf + k*1024) -> D2H      [k*1024, (k+1)*1024)
   * </pre>
   */
  @Test
  void slicesOfOneBufferEndWhereTheNextSliceBegins() throws Exception {
    TraceFixture f = new TraceFixture().cudaMalloc(0x40000, 4096).cudaMalloc(0x50000, 4)
        .cudaMallocHost(0x60000, 4096)
        .memcpy(0x50000, 0x60000, 4, CopyKind.HOST_TO_DEVICE)
        .kernel(3, "_Z10init_arrayPiPKii", ptr(), constPtr(), scalar(4));
    for (int s = 0; s < 4; s++) {
      f.streamCreate(0x100 + s, 0);
    }
    f.launchGrid(3, 0, 4, 0x40000, 0x50000, 1);
    for (int round = 0; round < 2; round++) {
      for (int s = 0; s < 4; s++) {
        f.launchGrid(3, 0x100 + s, 1, 0x40000 + s * 1024, 0x50000, 1);
      }
      for (int s = 0; s < 4; s++) {
        f.memcpyAsync(0x60000 + s * 1024, 0x40000 + s * 1024, 1024, CopyKind.DEVICE_TO_HOST, 0x100 + s);
      }
    }
    Dvdg g = f.build(tmp);
    assertThat(g.races()).isEmpty();
    OperationTable ops = g.operations();
    assertThat(g.values().bytes(ops.output(1, 0))).as("the whole-buffer launch").isEqualTo(4096);
    for (int round = 0; round < 2; round++) {
      for (int s = 0; s < 4; s++) {
        int kernel = 2 + round * 8 + s;
        int out = ops.output(kernel, 0);
        assertThat(g.values().offset(out)).isEqualTo(s * 1024L);
        assertThat(g.values().bytes(out)).as("round %d, slice %d", round, s).isEqualTo(1024L);
      }
    }
  }

  /** Frees of unknown pointers and copies from unknown device addresses: counted, never fatal. */
  @Test
  void unknownPointersAreWarningsNotFailures() throws Exception {
    Dvdg g = new TraceFixture()
        .cudaFree(0xdead0000L)
        .malloc(0x110000, 4096)
        .memcpy(0x110000, 0x2000_0000_0000L, 4096, CopyKind.DEVICE_TO_HOST)
        .build(tmp);
    assertThat(g.warnings().counts()).containsEntry("free of an unknown pointer", 1L)
        .containsEntry("copy from an unknown device address", 1L);
    assertThat(edges(g)).containsExactly("none -cudaMemcpy-> alloc0:v1");
  }

  /** cudaFree of managed memory: the call says device memory, the graph finds the managed allocation. */
  @Test
  void cudaFreeOfManagedMemoryFreesIt() throws Exception {
    Dvdg g = new TraceFixture().cudaMallocManaged(0x7000_0000_0000L, 4096).cudaFree(0x7000_0000_0000L).build(tmp);
    assertThat(g.warnings().total()).isZero();
  }

  /** Batches in the file out of time order: the graph follows time, not the file. */
  @Test
  void threadsAreMergedInTimeOrderWhateverTheFileOrder() throws Exception {
    TraceFixture f = new TraceFixture()
        .thread(1).cudaMalloc(0x120000, 512).memsetAsync(0x120000, 512, 0)
        .thread(2).malloc(0x130000, 512).memcpy(0x130000, 0x120000, 512, CopyKind.DEVICE_TO_HOST);
    Dvdg g = DvdgBuilder.build(f.write(tmp.resolve("reversed.apptrace"), true));
    assertThat(edges(g)).containsExactly("none -cudaMemsetAsync-> alloc0:v1", "alloc0:v1 -cudaMemcpy-> alloc1:v1");
  }

  /** The JGraphT view is consistent: every edge is among its ends' outgoing and incoming edges. */
  @Test
  void theJgraphtViewIsConsistent() throws Exception {
    Dvdg g = twoStreams(true, false).build(tmp);
    Graph<Integer, Integer> view = g.graph();
    for (int e : view.edgeSet()) {
      assertThat(view.outgoingEdgesOf(view.getEdgeSource(e))).contains(e);
      assertThat(view.incomingEdgesOf(view.getEdgeTarget(e))).contains(e);
      assertThat(view.getEdge(view.getEdgeSource(e), view.getEdgeTarget(e))).isEqualTo(e);
    }
    int degrees = view.vertexSet().stream().mapToInt(view::outDegreeOf).sum();
    assertThat(degrees).isEqualTo(view.edgeSet().size());
    assertThat(org.jgrapht.GraphTests.isSimple(view)).isTrue();
  }
}
