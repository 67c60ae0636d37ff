package io.apptrace.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.capture.Capture;
import io.apptrace.capture.CaptureOptions;
import io.apptrace.capture.NativeLibraries;
import io.apptrace.proto.MemoryKind;
import io.apptrace.testing.TestPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Graphs of real CUDA programs (tracer-native/tests/cuda) captured on the simulated device. */
class CapturedGraphTest {
  @TempDir Path tmp;

  private Dvdg capture(String program) throws Exception {
    Path trace = tmp.resolve(program + ".apptrace");
    new Capture(new CaptureOptions(List.of(TestPaths.cudaTest(program).toString()), trace, true, 4096,
        Duration.ofSeconds(10), new NativeLibraries(TestPaths.nativeDir()),
        ProcessBuilder.Redirect.DISCARD, ProcessBuilder.Redirect.INHERIT)).run(p -> { }, p -> { }, 100);
    return DvdgBuilder.build(trace);
  }

  /** The real vector add has the shape of Fig. 6.1, and its copies know their source lines. */
  @Test
  void vectorAddHasTheShapeOfFigure61AndSymbolizedCallSites() throws Exception {
    Dvdg g = capture("vecadd");
    assertThat(DvdgTest.edges(g)).containsExactly(
        "alloc0:v0 -cudaMemcpy-> alloc3:v1", "alloc1:v0 -cudaMemcpy-> alloc4:v1",
        "alloc3:v1 -vector_add-> alloc5:v1", "alloc4:v1 -vector_add-> alloc5:v1",
        "alloc5:v1 -cudaMemcpy-> alloc2:v1");
    CallSites sites = CallSites.of(g);
    OperationTable ops = g.operations();
    assertThat(sites.lookup(ops.pid(0), ops.callSite(0))).hasValueSatisfying(cs -> {
      assertThat(cs.function()).isEqualTo("main");
      assertThat(cs.file()).hasValueSatisfying(f -> assertThat(f).endsWith("vecadd.cu"));
      assertThat(cs.line()).hasValue(27);
    });
    // a <<<...>>> launch is placed at its own line, not in the stub nvcc generates
    int kernel = 2;
    assertThat(ops.kind(kernel)).isEqualTo(OpKind.KERNEL);
    int launchLine = lineOf(TestPaths.root().resolve("tracer-native/tests/cuda/vecadd.cu"), "vector_add<<<");
    assertThat(sites.lookup(ops.pid(kernel), ops.callSite(kernel))).hasValueSatisfying(cs -> {
      assertThat(cs.function()).isEqualTo("main");
      assertThat(cs.file()).hasValueSatisfying(f -> assertThat(f).endsWith("vecadd.cu"));
      assertThat(cs.line()).hasValue(launchLine);
    });
  }

  private static int lineOf(Path source, String text) throws java.io.IOException {
    List<String> lines = java.nio.file.Files.readAllLines(source);
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i + 1;
      }
    }
    throw new AssertionError(text + " not in " + source);
  }

  /**
   * tests/cuda/managed.cu: a prefetch of managed memory to the GPU, the kernel, a prefetch back.
   * Each prefetch is a copy with managed memory at both ends that reads the region and writes no
   * new version; the prefetch back follows the kernel that wrote the data.
   */
  @Test
  void prefetchesOfManagedMemoryAreCopiesThatFollowTheirWriter() throws Exception {
    Dvdg g = capture("managed");
    assertThat(DvdgTest.edges(g)).containsExactly("alloc0:v0 -cudaMemPrefetchAsync-> none",
        "alloc0:v0 -inc-> alloc0:v1", "alloc0:v1 -cudaMemPrefetchAsync-> none");
    OperationTable ops = g.operations();
    assertThat(IntStream.range(0, ops.size()).mapToObj(ops::kind)).containsExactly(OpKind.COPY, OpKind.KERNEL,
        OpKind.COPY);
    assertThat(ops.direction(0)).isEqualTo(io.apptrace.trace.Direction.H2D);
    assertThat(ops.direction(2)).isEqualTo(io.apptrace.trace.Direction.D2H);
    assertThat(ops.srcMemory(0)).isEqualTo(MemoryKind.MANAGED);
    assertThat(ops.dstMemory(2)).isEqualTo(MemoryKind.MANAGED);
    assertThat(ops.bytes(2)).isEqualTo(1 << 20);
    assertThat(g.races()).isEmpty();
  }

  /** Four streams feeding a fifth through events: no race; the gather copy reads all four kernels. */
  @Test
  void pipelineWithEventsHasNoRaces() throws Exception {
    Dvdg g = capture("pipeline");
    assertThat(g.races()).isEmpty();
    OperationTable ops = g.operations();
    int gather = IntStream.range(0, ops.size()).filter(op -> ops.kind(op) == OpKind.COPY
        && ops.bytes(op) == 256 * 1024).findFirst().orElseThrow();
    assertThat(IntStream.range(0, ops.inputCount(gather))
        .mapToObj(k -> ops.name(g.values().producer(ops.input(gather, k))))).containsOnly("square").hasSize(4);
    for (int k = 0; k < ops.inputCount(gather); k++) {
      assertThat(ops.inputBytes(gather, k)).as("each kernel's chunk").isEqualTo(64 * 1024);
    }
  }

  /**
   * Page-locked memory is resident, so its NUMA node is known at allocation: one of this
   * machine's nodes, and the location says so.
   */
  @Test
  void pinnedMemoryKnowsItsNumaNode() throws Exception {
    Dvdg g = capture("pipeline");
    Allocation pinned = g.allocations().stream().filter(a -> a.kind() == MemoryKind.PINNED).findFirst()
        .orElseThrow();
    java.util.List<String> nodes;
    try (var dirs = java.nio.file.Files.list(java.nio.file.Path.of("/sys/devices/system/node"))) {
      nodes = dirs.map(d -> d.getFileName().toString()).filter(n -> n.matches("node\\d+")).toList();
    }
    assertThat(pinned.numaNode()).isPresent();
    assertThat(nodes).contains("node" + pinned.numaNode().getAsInt());
    assertThat(pinned.location()).isEqualTo("host-numa" + pinned.numaNode().getAsInt());
    Allocation device = g.allocations().stream().filter(a -> a.kind() == MemoryKind.DEVICE).findFirst()
        .orElseThrow();
    assertThat(device.location()).isEqualTo("gpu0");
  }

  /** Interior pointer, struct by value, extern "C" and template kernels, decoded for real. */
  @Test
  void kernelArgumentsOfEveryShapeBecomeEdges() throws Exception {
    Dvdg g = capture("kernel_args");
    OperationTable ops = g.operations();
    List<Integer> kernels = IntStream.range(0, ops.size()).filter(op -> ops.kind(op) == OpKind.KERNEL).boxed().toList();
    assertThat(kernels).extracting(ops::name).containsExactly("interior", "by_struct", "plain_c", "axpy<float>");
    int interior = kernels.get(0);
    assertThat(g.values().offset(ops.output(interior, 0))).isEqualTo(4000);
    int byStruct = kernels.get(1);
    assertThat(ops.outputConfidence(byStruct, 0)).isEqualTo(Confidence.FOUND_IN_STRUCT);
    int plain = kernels.get(2);
    // out and in are both untyped, but the PTX stores through out and only loads through in
    assertThat(ops.outputCount(plain)).isEqualTo(1);
    assertThat(ops.outputConfidence(plain, 0)).isEqualTo(Confidence.FOUND_IN_STRUCT);
    int axpy = kernels.get(3);
    assertThat(IntStream.range(0, ops.inputCount(axpy)).mapToObj(k -> ops.inputConfidence(axpy, k)))
        .contains(Confidence.CONST_FROM_SIGNATURE);
    assertThat(g.warnings().total()).isZero();
  }

  /**
   * The slices of the CUDA sample simpleStreams (tests/cuda/slices.cu): four streams' kernels on
   * four slices of one buffer, each reading a non-const {@code int *factor} its PTX only loads
   * from. The slices rule and the read-only parameter leave no race at all, certain or possible.
   */
  @Test
  void slicesOfOneBufferInFourStreamsAreNoRace() throws Exception {
    Dvdg g = capture("slices");
    assertThat(g.races()).isEmpty();
    OperationTable ops = g.operations();
    List<Integer> kernels = IntStream.range(0, ops.size()).filter(op -> ops.kind(op) == OpKind.KERNEL).boxed().toList();
    assertThat(kernels).hasSize(13);
    for (int k : kernels) {
      assertThat(ops.outputCount(k)).as("factor is read-only from the code: only the slice is written").isEqualTo(1);
      assertThat(IntStream.range(0, ops.inputCount(k)).mapToObj(i -> ops.inputConfidence(k, i)))
          .contains(Confidence.READ_ONLY_FROM_CODE);
    }
    for (int k : kernels.subList(1, kernels.size())) {
      assertThat(g.values().bytes(ops.output(k, 0))).as("a slice of 1024 ints").isEqualTo(4096);
    }
    assertThat(g.kernels().notAnalysed()).isEmpty();
  }

  /**
   * simpleHyperQ's pattern (tests/cuda/slots.cu): kernels in eight streams each store one element
   * of a small array. Their PTX only stores through the pointer: nothing is read, so no race.
   */
  @Test
  void oneElementWritesInManyStreamsAreNoRace() throws Exception {
    Dvdg g = capture("slots");
    assertThat(DvdgSummary.of(g).certainRaces()).isZero();
    assertThat(g.races()).isEmpty();
    OperationTable ops = g.operations();
    int kernelA = IntStream.range(0, ops.size()).filter(op -> ops.name(op).equals("kernel_a")).findFirst().orElseThrow();
    assertThat(ops.inputCount(kernelA)).isZero();
    assertThat(ops.outputConfidence(kernelA, 0)).isEqualTo(Confidence.WRITTEN_FROM_CODE);
    assertThat(g.values().bytes(ops.output(kernelA, 0))).as("up to kernel_b's element").isEqualTo(8);
  }

  /**
   * Rodinia huffman's pattern (tests/cuda/histogram.cu): two streams' kernels update one
   * histogram with atomicAdd and nothing orders them. The race stays reported: possible, since
   * the kernels' footprints are inferred, but not on an assumed write (the code stores).
   */
  @Test
  void atomicsOnOneHistogramFromTwoStreamsStayARace() throws Exception {
    Dvdg g = capture("histogram");
    assertThat(g.races()).singleElement().satisfies(r -> {
      assertThat(g.operations().name(r.writer())).isEqualTo("histo");
      assertThat(g.operations().name(r.reader())).isEqualTo("histo");
      assertThat(r.certain()).isFalse();
      assertThat(r.guessSet()).containsExactly(Race.Guess.KERNEL_FOOTPRINT);
    });
  }

  /**
   * Rodinia heartwall's pattern (tests/cuda/constant_pointers.cu): scale() has no parameter and
   * reaches its buffers through pointers in a __constant__ struct filled by cudaMemcpyToSymbol.
   * It reads d_in (what the first copy wrote) and writes d_out (what the copy back reads), as its
   * PTX says. idle() touches no memory at all: the summary counts it.
   */
  @Test
  void pointersInAConstantStructAreTheKernelsAccesses() throws Exception {
    Dvdg g = capture("constant_pointers");
    OperationTable ops = g.operations();
    int scale = IntStream.range(0, ops.size()).filter(op -> ops.name(op).equals("scale")).findFirst().orElseThrow();
    assertThat(ops.inputCount(scale)).isEqualTo(1);
    assertThat(ops.name(g.values().producer(ops.input(scale, 0)))).isEqualTo("cudaMemcpy");
    assertThat(ops.inputConfidence(scale, 0)).isEqualTo(Confidence.FROM_SYMBOL);
    assertThat(ops.outputCount(scale)).isEqualTo(1);
    assertThat(ops.outputConfidence(scale, 0)).isEqualTo(Confidence.FROM_SYMBOL);
    int back = ops.size() - 1;
    assertThat(ops.name(back)).isEqualTo("cudaMemcpy");
    assertThat(g.values().producer(ops.input(back, 0))).as("the copy back reads what scale wrote").isEqualTo(scale);
    assertThat(g.kernels().withoutAccess()).containsExactly(java.util.Map.entry("idle", 1));
  }
}
