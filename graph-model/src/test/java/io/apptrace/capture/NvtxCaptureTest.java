package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.graph.CallLog;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.OpKind;
import io.apptrace.proto.Annotation;
import io.apptrace.proto.AnnotationKind;
import io.apptrace.proto.Api;
import io.apptrace.trace.TraceRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tests/cuda/nvtx.cu, built with the toolkit's NVTX v3 headers and nothing of apptrace: under
 * {@code apptrace run} (which names the interposer in NVTX_INJECTION64_PATH) its NVTX calls and
 * cudaProfilerStart/Stop are recorded, it prints and returns what it does untraced, and the graph's
 * call log holds its ranges and marks (docs/CAPTURE.md, "NVTX ranges and marks").
 */
class NvtxCaptureTest {
  @TempDir static Path tmp;
  static Captured c;

  @BeforeAll
  static void capture() throws Exception {
    c = Captured.run(tmp, "nvtx");
  }

  private static List<TraceRecord> annotations() {
    return c.records(r -> r.event().hasAnnotation());
  }

  private static List<Annotation> of(AnnotationKind kind) {
    return annotations().stream().map(r -> r.event().getAnnotation()).filter(a -> a.getKind() == kind).toList();
  }

  @Test
  void theProgramPrintsAndReturnsWhatItDoesUntraced() throws Exception {
    CaptureHarmTest.Untraced plain = CaptureHarmTest.Untraced.run("nvtx");
    assertThat(plain.stdout()).startsWith("sum ").endsWith("extra pop refused\n");
    assertThat(c.stdout()).isEqualTo(plain.stdout());
    assertThat(c.result().exitCode()).isEqualTo(plain.exitCode()).isZero();
    assertThat(c.result().notes()).noneMatch(n -> n.contains("NVTX"));
  }

  /** A tool the user named as NVTX injection library keeps its place, and the run says so. */
  @Test
  void aUsersNvtxInjectionIsKeptAndNamed() {
    Path lib = Path.of("/opt/apptrace/libapptrace.so");
    Map<String, String> env = new java.util.HashMap<>(Map.of("HOME", "/root"));
    List<String> notes = new ArrayList<>();
    Capture.nvtxInjection(env, lib, notes);
    assertThat(env).containsEntry("NVTX_INJECTION64_PATH", lib.toString());
    assertThat(notes).isEmpty();

    env.put("NVTX_INJECTION64_PATH", "/opt/nsys/libToolsInjection64.so");
    Capture.nvtxInjection(env, lib, notes);
    assertThat(env).containsEntry("NVTX_INJECTION64_PATH", "/opt/nsys/libToolsInjection64.so");
    assertThat(notes).singleElement().asString().startsWith("NVTX_INJECTION64_PATH is set"
        + " (/opt/nsys/libToolsInjection64.so): kept");
  }

  @Test
  void everyNvtxCallIsRecordedOnItsThreadWithWhatItReturned() {
    List<String> pushes = of(AnnotationKind.RANGE_PUSH).stream()
        .map(a -> (a.getDomain().isEmpty() ? "" : a.getDomain() + ":") + a.getMessage() + "@" + a.getLevel()).toList();
    assertThat(pushes).containsExactlyInAnyOrder("setup@0", "io:load@0", "wörker@0", "step@0", "inner@1", "step@0",
        "inner@1", "step@0", "inner@1", "unclosed@0");
    // the pops return the level closed; the one pop too many got -1, as NVTX specifies
    assertThat(of(AnnotationKind.RANGE_POP).stream().map(Annotation::getLevel).sorted().toList())
        .containsExactly(-1, 0, 0, 0, 0, 0, 0, 1, 1, 1);
    assertThat(of(AnnotationKind.MARK).stream().map(a -> a.getDomain() + "|" + a.getMessage()).toList())
        .containsExactlyInAnyOrder("|start", "|", "io|saved \u2713");

    // nvtxRangeStartEx on the main thread, nvtxRangeEnd of the same id on the worker
    TraceRecord start = annotations().stream()
        .filter(r -> r.event().getAnnotation().getKind() == AnnotationKind.RANGE_START).findFirst().orElseThrow();
    TraceRecord end = annotations().stream()
        .filter(r -> r.event().getAnnotation().getKind() == AnnotationKind.RANGE_END).findFirst().orElseThrow();
    assertThat(of(AnnotationKind.RANGE_START)).hasSize(1);
    assertThat(of(AnnotationKind.RANGE_END)).hasSize(1);
    assertThat(start.event().getAnnotation().getMessage()).isEqualTo("handoff");
    assertThat(end.event().getAnnotation().getRangeId()).isEqualTo(start.event().getAnnotation().getRangeId())
        .isPositive();
    assertThat(end.tid()).isNotEqualTo(start.tid());
    assertThat(end.event().getEntryNs()).isGreaterThan(start.event().getEntryNs());
    // records, not calls: no API number, no duration
    assertThat(annotations()).allSatisfy(r -> {
      assertThat(r.event().getApi()).isEqualTo(Api.API_UNSPECIFIED);
      assertThat(r.event().getDurationNs()).isZero();
    });
    assertThat(c.calls(Api.cudaProfilerStart)).hasSize(1);
    assertThat(c.calls(Api.cudaProfilerStop)).hasSize(1);
  }

  @Test
  void theCallLogHoldsItsRangesAndMarks() throws Exception {
    Dvdg g = DvdgBuilder.build(tmp.resolve("trace.apptrace"), true);
    CallLog log = g.calls().orElseThrow();
    Map<String, Long> names = log.ranges().stream()
        .collect(Collectors.groupingBy(r -> (r.domain().isEmpty() ? "" : r.domain() + ":") + r.name(), TreeMap::new,
            Collectors.counting()));
    assertThat(names).containsExactlyInAnyOrderEntriesOf(Map.of("setup", 1L, "io:load", 1L, "handoff", 1L, "wörker", 1L,
        "step", 3L, "inner", 3L, "cudaProfiler", 1L, "unclosed", 1L));
    assertThat(log.marks()).extracting(CallLog.Mark::name).containsExactlyInAnyOrder("start", "", "saved \u2713");

    // each step holds its 4 launches and its inner range; the profiler range holds the 5 after them
    List<CallLog.Range> steps = ranges(log, "step");
    for (CallLog.Range s : steps) {
      assertThat(launchesIn(g, s)).isEqualTo(4);
      assertThat(ranges(log, "inner")).filteredOn(i -> i.startNs() >= s.startNs() && i.endNs() <= s.endNs()).hasSize(1);
    }
    assertThat(launchesIn(g, ranges(log, "cudaProfiler").get(0))).isEqualTo(5);
    // "handoff" opened on the main thread, closed after the worker's kernel
    CallLog.Range handoff = ranges(log, "handoff").get(0);
    CallLog.Range worker = ranges(log, "wörker").get(0);
    assertThat(handoff.thread()).isNotEqualTo(worker.thread());
    assertThat(handoff.endNs()).isGreaterThanOrEqualTo(worker.endNs());
    assertThat(launchesIn(g, worker)).isEqualTo(1);
    // "unclosed" ends at the main thread's last event: after every call of that thread
    CallLog.Range unclosed = ranges(log, "unclosed").get(0);
    long lastCallEnd = 0;
    for (int i = 0; i < log.size(); i++) {
      if (log.thread(i) == unclosed.thread()) {
        lastCallEnd = Math.max(lastCallEnd, log.entryNs(i) + log.durationNs(i));
      }
    }
    assertThat(unclosed.endNs()).isGreaterThanOrEqualTo(lastCallEnd);
    assertThat(lastCallEnd).isGreaterThan(unclosed.startNs());
  }

  private static List<CallLog.Range> ranges(CallLog log, String name) {
    List<CallLog.Range> out = new ArrayList<>();
    log.ranges().stream().filter(r -> r.name().equals(name)).forEach(out::add);
    out.sort(java.util.Comparator.comparingLong(CallLog.Range::startNs));
    return out;
  }

  /** Calls that issued a kernel inside the range (any thread). */
  private static long launchesIn(Dvdg g, CallLog.Range r) {
    CallLog log = g.calls().orElseThrow();
    long n = 0;
    for (int i = 0; i < log.size(); i++) {
      if (log.type(i) == CallLog.Type.OP && g.operations().kind(log.a(i)) == OpKind.KERNEL
          && log.entryNs(i) >= r.startNs() && log.entryNs(i) < r.endNs()) {
        n++;
      }
    }
    return n;
  }
}
