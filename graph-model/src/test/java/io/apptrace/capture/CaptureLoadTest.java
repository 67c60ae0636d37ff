package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.trace.TraceRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 64 threads calling at once: exact counts per thread. This is the load of docs/RELIABILITY.md
 * at 2,000 calls per thread; the full 100,000 per thread (6.4 million events, with the collector's
 * memory) is tracer-native/bench/run-load-bench.
 */
class CaptureLoadTest {
  private static final int THREADS = 64;
  private static final int CALLS = 2000;

  @TempDir Path tmp;

  @Test
  void sixtyFourThreadsLoseNothing() throws Exception {
    Captured c = Captured.run(tmp, "threads", Integer.toString(THREADS), Integer.toString(CALLS));
    assertThat(c.result().exitCode()).isZero();
    Map<Integer, List<TraceRecord>> byThread = c.records(r -> r.event().getApi() != Api.API_UNSPECIFIED)
        .stream().collect(Collectors.groupingBy(TraceRecord::tid));
    Map<Integer, Long> memsets = count(byThread, Api.cudaMemsetAsync);
    Map<Integer, Long> launches = count(byThread, Api.rt__cudaLaunchKernel);
    assertThat(memsets.values().stream().filter(n -> n == CALLS / 2)).hasSize(THREADS);
    assertThat(launches.values().stream().filter(n -> n == CALLS / 2)).hasSize(THREADS);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(THREADS * CALLS / 2);
    assertThat(c.calls(Api.rt__cudaLaunchKernel)).hasSize(THREADS * CALLS / 2);
    assertThat(c.calls(Api.cudaStreamSynchronize)).hasSize(THREADS);
    assertThat(c.events(Event::hasProcessEnd)).singleElement()
        .satisfies(e -> assertThat(e.getProcessEnd().getDropped()).isZero());
    for (List<TraceRecord> records : c.records(r -> r.tid() != 0).stream()
        .collect(Collectors.groupingBy(TraceRecord::tid)).values()) {
      long max = records.stream().mapToLong(TraceRecord::batchSeq).max().orElse(0);
      assertThat(records.stream().map(TraceRecord::batchSeq).distinct().count()).isEqualTo(max + 1);
    }
    assertThat(c.result().events()).isEqualTo(c.trace().records().stream().filter(r -> r.tid() != 0).count());
  }

  private static Map<Integer, Long> count(Map<Integer, List<TraceRecord>> byThread, Api api) {
    return byThread.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> e.getValue().stream().filter(r -> r.event().getApi() == api).count()));
  }
}
