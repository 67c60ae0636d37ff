package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.trace.TraceRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Nothing lost when a traced program dies: abort, an uncaught C++ exception, SIGBUS (with
 * SIGSEGV and exit from a thread in {@link CaptureFaultsTest}), and SIGKILL with threads alive.
 * Each program makes an exact number of calls that no synchronizing call flushed.
 */
class CaptureCrashTest {
  @TempDir Path tmp;

  /** tests/cuda/crash.cu: 1000 calls, then death by `how`; all 1000 are in the trace. */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"abort, 6", "throw, 6", "bus, 7"})
  void deathAfterNCallsKeepsAllN(String how, int signal) throws Exception {
    Captured c = Captured.run(tmp, "crash", how, "1000");
    assertThat(c.result().exitCode()).isEqualTo(128 + signal);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(1000);
    assertThat(c.events(Event::hasProcessEnd)).singleElement()
        .satisfies(e -> assertThat(e.getProcessEnd().getSignal()).isEqualTo(signal));
    if (how.equals("throw")) {
      assertThat(c.stderr()).contains("terminate called after throwing");
    }
  }

  /**
   * SIGKILL with 8 threads alive whose 100 calls each (and the main thread's last 200) were never
   * sent: all are recovered from the shared buffers, each thread's batches numbered without a gap
   * or a repeat.
   */
  @Test
  void sigkillWithThreadsAliveLosesNoCompletedCall() throws Exception {
    Captured c = Captured.run(tmp, "sigkill", "8");
    assertThat(c.result().exitCode()).isEqualTo(128 + 9);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(500 + 200 + 8 * 100);
    Map<Integer, List<TraceRecord>> byThread = c.records(r -> r.event().getApi() == Api.cudaMemsetAsync)
        .stream().collect(Collectors.groupingBy(TraceRecord::tid));
    assertThat(byThread).hasSize(9);
    assertThat(byThread.values().stream().filter(l -> l.size() == 100)).hasSize(8);
    for (List<TraceRecord> records : c.records(r -> r.tid() != 0).stream()
        .collect(Collectors.groupingBy(TraceRecord::tid)).values()) {
      List<Long> seqs = records.stream().map(TraceRecord::batchSeq).distinct().toList();
      assertThat(seqs).containsExactlyElementsOf(
          LongStream.range(0, seqs.size()).boxed().toList());
    }
    assertThat(c.result().connections()).singleElement()
        .satisfies(e -> assertThat(e.recovered()).isPositive());
    assertThat(c.result().notes()).anyMatch(n -> n.contains("recovered from its shared buffers"));
  }
}
