package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.apptrace.proto.AnnotationKind;
import io.apptrace.proto.Event;
import io.apptrace.trace.NvtxRanges.Mark;
import io.apptrace.trace.NvtxRanges.Range;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NVTX ranges and marks each importer writes (docs/IMPORT.md): Kineto user annotations, Nsight
 * Systems' NVTX_EVENTS and nvprof's markers, as Annotation records that pair into the ranges the
 * source names, on the thread that named them, with the source's times.
 */
class ImportAnnotationsTest {
  @TempDir Path tmp;

  static final String LEFT_OUT = "NVTX ranges and marks of processes with no CUDA call or GPU work (left out)";

  Importer.Result run(Path in, Path out) throws Exception {
    return Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
  }

  /** Two profiler steps with a nested range, a range on a second thread, and what is not a range. */
  static final String KINETO = """
      {"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 10, "tid": 10, "ts": 1000, "dur": 100,
         "args": {"External id": 1}},
        {"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 10, "tid": 10, "ts": 1010, "dur": 40},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 1015, "dur": 20},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1020, "dur": 5,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1030, "dur": 10,
         "args": {"correlation": 1, "stream": 7, "device": 0}},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#8", "pid": 10, "tid": 10, "ts": 1100, "dur": 100},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1120, "dur": 5,
         "args": {"correlation": 2}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1130, "dur": 10,
         "args": {"correlation": 2, "stream": 7, "device": 0}},
        {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#8", "pid": 0, "tid": 7, "ts": 1130, "dur": 10},
        {"ph": "X", "cat": "user_annotation", "name": "backward", "pid": 10, "tid": 11, "ts": 1150, "dur": 20.5},
        {"ph": "X", "cat": "user_annotation", "name": "elsewhere", "pid": 99, "tid": 99, "ts": 1000, "dur": 5},
        {"ph": "X", "cat": "user_annotation", "name": "no duration", "pid": 10, "tid": 10, "ts": 1300},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaFuncGetAttributes", "pid": 10, "tid": 12, "ts": 2000,
         "dur": 100, "args": {"correlation": 5}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaGetDevice", "pid": 10, "tid": 12, "ts": 2050, "dur": 10,
         "args": {"correlation": 6}},
        {"ph": "X", "cat": "user_annotation", "name": "moved", "pid": 10, "tid": 12, "ts": 2040, "dur": 40}
      ]}
      """;

  @Test
  void kinetoUserAnnotationsAreRangesOfTheirThread() throws Exception {
    Path in = tmp.resolve("steps.json");
    Files.writeString(in, KINETO);
    Path out = tmp.resolve("steps.apptrace");
    Importer.Result r = run(in, out);

    assertThat(r.source()).containsEntry("user annotations", 7L).containsEntry("GPU user annotations", 1L);
    assertThat(r.imported()).containsEntry("user annotations", 5L).containsEntry("GPU user annotations", -1L);
    assertThat(r.warnings()).containsExactly(
        entry("user annotations that are not complete events with ts and dur (ignored)", 1L), entry(LEFT_OUT, 1L),
        entry("calls that begin before the previous call of their thread ends: moved to its end", 1L));

    ImportedTrace t = ImportedTrace.read(out);
    assertThat(t.ranges()).containsExactly(
        new Range(10, 10, "ProfilerStep#7", "", 1_000_000, 1_100_000, false),
        new Range(10, 10, "forward", "", 1_010_000, 1_050_000, false),
        new Range(10, 10, "ProfilerStep#8", "", 1_100_000, 1_200_000, false),
        new Range(10, 11, "backward", "", 1_150_000, 1_170_500, false),
        // cudaGetDevice began inside it, at 2,050 us, and was moved to 2,100 us, the end of the
        // call around it: the range ends just after it, so that it still holds it
        new Range(10, 12, "moved", "", 2_040_000, 2_100_001, false));
    assertThat(t.marks()).isEmpty();
    // the calls keep their place among the ranges: thread 10 opens its step, then calls
    assertThat(t.trace().records().stream().filter(x -> x.tid() == 10).map(x -> x.event())
        .filter(e -> e.hasAnnotation() || e.hasLaunch()).map(ImportAnnotationsTest::shown).toList()).containsExactly(
            "START ProfilerStep#7 @1000000", "START forward @1010000", "launch @1020000", "END @1050000",
            "END @1100000", "START ProfilerStep#8 @1100000", "launch @1120000", "END @1200000");
    assertThat(t.tids()).containsExactly(10, 11, 12);
  }

  private static String shown(Event e) {
    if (!e.hasAnnotation()) {
      return "launch @" + e.getEntryNs();
    }
    String kind = e.getAnnotation().getKind() == AnnotationKind.RANGE_START ? "START " : "END";
    return kind + e.getAnnotation().getMessage() + " @" + e.getEntryNs();
  }

  @Test
  void nsysNvtxEventsAreRangesAndMarksOfTheirThreadAndDomain() throws Exception {
    Path db = tmp.resolve("nvtx.sqlite");
    NsysFixture.withNvtx(db);
    Path out = tmp.resolve("nvtx.apptrace");
    Importer.Result r = run(db, out);

    assertThat(r.source()).containsEntry("NVTX ranges", 6L).containsEntry("NVTX marks", 1L);
    assertThat(r.imported()).containsEntry("NVTX ranges", 5L).containsEntry("NVTX marks", 1L)
        .containsEntry("API calls", 16L);
    assertThat(r.warnings()).containsExactly(
        entry("NVTX ranges and marks of a domain the export does not name (taken as the default domain)", 1L),
        entry(LEFT_OUT, 1L));

    ImportedTrace t = ImportedTrace.read(out);
    int pid = (int) NsysFixture.PID;
    int main = (int) NsysFixture.MAIN;
    assertThat(t.ranges()).containsExactly(
        new Range(pid, main, "outer", "", 100_000, 400_000, false),
        new Range(pid, main, "inner", "", 120_000, 160_000, false),
        new Range(pid, (int) NsysFixture.WORKER, "load", "io", 130_000, 300_000, false),
        new Range(pid, main, "lost", "", 200_000, 210_000, false),
        // never popped: it ends with the thread's last call, a cudaMalloc that returns at 421 us
        new Range(pid, main, "tail", "", 410_000, 421_000, true));
    assertThat(t.marks()).containsExactly(new Mark(pid, main, "go", "", 150_000));
  }

  @Test
  void nvprofMarkersAreRangesAndMarksOfTheirThread() throws Exception {
    Path db = tmp.resolve("markers.nvvp");
    NvprofFixture.writeWithMarkers(db);
    Path out = tmp.resolve("markers.apptrace");
    Importer.Result r = run(db, out);

    assertThat(r.source()).containsEntry("NVTX ranges", 4L).containsEntry("NVTX marks", 3L);
    assertThat(r.imported()).containsEntry("NVTX ranges", 4L).containsEntry("NVTX marks", 2L);
    assertThat(r.warnings()).containsEntry(
        "NVTX markers on no host thread (objectKind other than thread or process): ignored", 1L);

    ImportedTrace t = ImportedTrace.read(out);
    int pid = (int) NvprofFixture.PID;
    int main = pid;
    int worker = pid + 1;
    int quiet = pid + 2; // the thread that made no call: numbered after those that did
    assertThat(t.ranges()).containsExactly(
        new Range(pid, main, "step", "", 99_000, 170_000, false),
        new Range(pid, main, "launch", "", 119_000, 126_000, false),
        new Range(pid, worker, "io", "net", 199_000, 300_000, false),
        // never ended: it ends with the thread's last call, a cuCtxSynchronize that returns at 431 us
        new Range(pid, main, "open", "", 425_000, 431_000, true));
    assertThat(t.marks()).containsExactly(new Mark(pid, quiet, "hello", "", 50_000),
        new Mark(pid, main, "go", "", 150_000));
    assertThat(t.all(Event.BodyCase.ANNOTATION)).filteredOn(e -> e.getAnnotation().getMessage().equals("step"))
        .singleElement().satisfies(e -> assertThat(e.getAnnotation().getCategory()).isEqualTo(3));
    assertThat(t.all(Event.BodyCase.THREAD_START)).extracting(e -> e.getThreadStart().getName())
        .contains("nvprof thread " + 0x0badf00d);
  }

  @Test
  void aProfileWithoutRangesListsNone() throws Exception {
    Path db = tmp.resolve("plain.nvvp");
    NvprofFixture.write(db);
    Importer.Result r = run(db, tmp.resolve("plain.apptrace"));
    assertThat(r.source()).doesNotContainKeys("NVTX ranges", "NVTX marks");
    assertThat(ImportedTrace.read(tmp.resolve("plain.apptrace")).all(Event.BodyCase.ANNOTATION)).isEmpty();
  }
}
