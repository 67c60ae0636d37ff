package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Annotation;
import io.apptrace.proto.AnnotationKind;
import io.apptrace.proto.Api;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How annotations and profiler calls pair into ranges (docs/CAPTURE.md, "NVTX ranges and marks"). */
class NvtxRangesTest {
  private final List<NvtxRanges.Range> ranges = new ArrayList<>();
  private final List<NvtxRanges.Mark> marks = new ArrayList<>();
  private final NvtxRanges n = new NvtxRanges(ranges::add, marks::add);

  private static Annotation a(AnnotationKind kind, String message, String domain, long id) {
    return Annotation.newBuilder().setKind(kind).setMessage(message).setDomain(domain).setRangeId(id).build();
  }

  private static Annotation push(String message, String domain) {
    return a(AnnotationKind.RANGE_PUSH, message, domain, 0);
  }

  private static Annotation pop(String domain) {
    return a(AnnotationKind.RANGE_POP, "", domain, 0);
  }

  @Test
  void pushAndPopNestPerThreadAndDomain() {
    n.annotation(1, 10, 100, push("outer", ""));
    n.annotation(1, 10, 110, push("load", "io"));
    n.annotation(1, 11, 115, push("other thread", ""));
    n.annotation(1, 10, 120, push("inner", ""));
    n.annotation(1, 10, 130, pop("")); // closes "inner", not "load" of domain io
    n.annotation(1, 10, 140, pop("io"));
    n.annotation(1, 11, 145, pop(""));
    n.annotation(1, 10, 150, pop(""));
    n.annotation(1, 10, 160, pop("")); // nothing open: closes nothing
    n.finish();
    assertThat(ranges).containsExactly(
        new NvtxRanges.Range(1, 10, "inner", "", 120, 130, false),
        new NvtxRanges.Range(1, 10, "load", "io", 110, 140, false),
        new NvtxRanges.Range(1, 11, "other thread", "", 115, 145, false),
        new NvtxRanges.Range(1, 10, "outer", "", 100, 150, false));
  }

  @Test
  void startAndEndPairByIdAcrossThreadsInEitherReadingOrder() {
    n.annotation(1, 10, 100, a(AnnotationKind.RANGE_START, "handoff", "", 7));
    n.annotation(1, 11, 200, a(AnnotationKind.RANGE_END, "", "", 7));
    // the worker's batch read first: its end comes before its start
    n.annotation(1, 11, 400, a(AnnotationKind.RANGE_END, "", "", 8));
    n.annotation(1, 10, 300, a(AnnotationKind.RANGE_START, "late", "", 8));
    // the same id in another process is another range
    n.annotation(2, 20, 500, a(AnnotationKind.RANGE_END, "", "", 7));
    n.annotation(1, 10, 600, a(AnnotationKind.RANGE_END, "", "", 99)); // never started
    n.finish();
    assertThat(ranges).containsExactly(
        new NvtxRanges.Range(1, 10, "handoff", "", 100, 200, false),
        new NvtxRanges.Range(1, 10, "late", "", 300, 400, false));
  }

  @Test
  void theProfilerRangeRunsFromStartsEntryToStopsExit() {
    assertThat(NvtxRanges.profilerCall(Api.cudaProfilerStart_VALUE, "")).isEqualTo(1);
    assertThat(NvtxRanges.profilerCall(Api.cudaProfilerStop_VALUE, "")).isEqualTo(-1);
    assertThat(NvtxRanges.profilerCall(Api.API_OTHER_VALUE, "cuProfilerStart")).isEqualTo(1);
    assertThat(NvtxRanges.profilerCall(Api.cudaMalloc_VALUE, "")).isZero();
    n.profiler(1, 10, 100, 105, true);
    n.profiler(1, 10, 150, 155, true); // already started: one profiler per process
    n.profiler(1, 11, 200, 210, false);
    n.profiler(1, 10, 300, 310, false); // not started: nothing to stop
    n.finish();
    assertThat(ranges).containsExactly(new NvtxRanges.Range(1, 10, NvtxRanges.PROFILER, "", 100, 210, false));
  }

  @Test
  void rangesLeftOpenEndAtTheLastEventOfTheirThread() {
    n.annotation(1, 10, 100, push("outer", ""));
    n.annotation(1, 10, 110, push("inner", ""));
    n.annotation(1, 10, 120, a(AnnotationKind.RANGE_START, "started", "", 3));
    n.profiler(1, 11, 130, 135, true);
    n.seen(1, 10, 500);
    n.seen(1, 10, 450); // events of a thread may be seen out of order: the latest end counts
    n.seen(1, 11, 900);
    n.annotation(1, 10, 140, a(AnnotationKind.MARK, "here", "io", 0));
    n.finish();
    assertThat(ranges).containsExactly(
        new NvtxRanges.Range(1, 10, "outer", "", 100, 500, true),
        new NvtxRanges.Range(1, 10, "inner", "", 110, 500, true),
        new NvtxRanges.Range(1, 10, "started", "", 120, 500, true),
        new NvtxRanges.Range(1, 11, NvtxRanges.PROFILER, "", 130, 900, true));
    assertThat(marks).containsExactly(new NvtxRanges.Mark(1, 10, "here", "io", 140));
  }
}
