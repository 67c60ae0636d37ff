package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static io.apptrace.replay.TimelineFixturesTest.node;
import static io.apptrace.replay.TimelineFixturesTest.replay;
import static io.apptrace.replay.TimelineFixturesTest.times;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * What a trace with measured times adds (docs/REPLAY.md, "Traces with measured times"; rule class
 * {@link MeasuredTiming}): how long a blocking call woke after its targets, which streams a
 * synchronization without a stream waited for, and under --keep-measured the measured durations and
 * dispatch delays. Round numbers of {@link TimelineFixturesTest}; measured times are on the trace's
 * clock, its first call at 0.
 */
class MeasuredTimingTest {
  static double callEnd(ReplayResult r, int t, int i) {
    return r.calls().get(t).get(i).endNs() / 1e3;
  }

  /**
   * A blocking call that waited returns as long after its targets end as it did in the trace (its
   * measured wake-up latency): the kernel was measured 0-50 us and the synchronization entered at
   * 10 us and left at 55 us, 5 us after it. Replayed with kernels twice as long, the kernel ends at
   * 100 us and the call at 105 us.
   *
   * <pre>
   *   trace:   s [K 0-50]        thread (10)[sync ........ 55]
   *   replay:  s [K 0-100]       thread (10)[sync ............... 105]
   * </pre>
   */
  @Test
  void aBlockingCallWakesAsLongAfterItsTargetsEndAsItDidInTheTrace() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int k = f.measured(0, s, "K", null, 0, 0, 50_000, 0);
    f.host(0, 10_000);
    f.syncStream(0, s, 45_000);
    ReplayResult r = Replayer.replay(f.build(), node(1, 1), Replayer.Options.defaults().withScaleKernels(2));
    times(r, k, 0, 100);
    assertThat(callEnd(r, 0, 1)).isEqualTo(105.0);
  }

  /**
   * A synchronization whose stream the profiler did not record (UNKNOWN_STREAM_SCOPE) waits for the
   * streams of its process and device whose last work had ended, as measured, by the time it
   * returned: s1's kernel (measured 0-50 us) but not s2's copy (measured 0-200 us); the call
   * entered at 10 us and left at 60 us. Replayed with kernels twice as long: it ends at 100 + 10 us,
   * before the copy's 210 us.
   *
   * <pre>
   *   trace:   s1 [K 0-50]  s2 [copy 0-200]       thread (10)[sync ? .. 60]
   *   replay:  s1 [K 0-100] s2 [copy 2 MB 0-210]  thread (10)[sync ? ......... 110]
   * </pre>
   */
  @Test
  void aSynchronizationWithoutAStreamWaitsForTheStreamsThatHadEndedWhenItReturned() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int k = f.measured(0, s1, "K", null, 0, 0, 50_000, 0);
    int copy = f.copy(0, s2, TransferKind.PINNED_H2D, 2 * MB);
    f.host(0, 10_000);
    f.syncSomeStreams(0, 0, 50_000);
    ReplayResult r = Replayer.replay(f.build(), node(1, 1), Replayer.Options.defaults().withScaleKernels(2));
    times(r, k, 0, 100);
    times(r, copy, 0, 210);
    assertThat(callEnd(r, 0, 2)).isEqualTo(110.0);
  }

  /**
   * Under --keep-measured, copies take their measured time and occupy no links (their measured time
   * already holds the contention they met): two 1 MB copies to gpu0 and gpu1, each measured at
   * 30 us, take 30 us, where modelled they would share the switch's uplink (10 + 200 us each).
   *
   * <pre>
   *   --keep-measured:  [copy to gpu0 0-30]   modelled:  [copy to gpu0 0-210]
   *                     [copy to gpu1 0-30]              [copy to gpu1 0-210]
   * </pre>
   */
  @Test
  void underKeepMeasuredCopiesTakeTheirMeasuredTimeAndOccupyNoLinks() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s0 = f.stream(false, false, 0);
    int s1 = f.stream(false, false, 1);
    int a = f.measured(0, s0, "cudaMemcpyAsync", TransferKind.PINNED_H2D, MB, 0, 30_000, 0);
    int b = f.measured(0, s1, "cudaMemcpyAsync", TransferKind.PINNED_H2D, MB, 0, 30_000, 0);
    ReplayProgram p = f.build();
    ReplayResult kept = Replayer.replay(p, node(1, 2), Replayer.Options.defaults().withKeepMeasured(true));
    times(kept, a, 0, 30);
    times(kept, b, 0, 30);
    ReplayResult modelled = replay(p, node(1, 2));
    times(modelled, a, 0, 210);
    times(modelled, b, 0, 210);
  }

  /**
   * Under --keep-measured each operation also starts as long after it could have as it did in the
   * trace: its measured dispatch delay, its measured start minus the later of its call's entry and
   * the measured end of what it waited for. K1's call entered at 0 and K1 started at 7 us; K2's call
   * entered at 2 us, K2 waited for K1 (ended 57 us) and started at 60 us: delays of 7 and 3 us. The
   * critical path shows them as launch latencies; --keep-measured-durations drops them.
   *
   * <pre>
   *   --keep-measured:            (7)[K1 7-57](3)[K2 60-80]
   *   --keep-measured-durations:  [K1 0-50][K2 50-70]
   * </pre>
   */
  @Test
  void underKeepMeasuredEachOperationStartsAfterItsMeasuredDispatchDelay() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int k1 = f.measured(0, s, "K1", null, 0, 7_000, 57_000, 2_000);
    int k2 = f.measured(0, s, "K2", null, 0, 60_000, 80_000, 0);
    ReplayProgram p = f.build();
    ReplayResult kept = Replayer.replay(p, node(1, 1), Replayer.Options.defaults().withKeepMeasured(true));
    times(kept, k1, 7, 57);
    times(kept, k2, 60, 80);
    assertThat(kept.criticalPath()).extracting(ReplayResult.Segment::label)
        .containsExactly("launch latency, as measured", "K1", "launch latency, as measured", "K2");
    ReplayResult durations = Replayer.replay(p, node(1, 1),
        Replayer.Options.defaults().withKeepMeasured(true).withKeepDelays(false));
    times(durations, k1, 0, 50);
    times(durations, k2, 50, 70);
  }

  /**
   * Under --keep-measured a blocking call that, as measured, returned before its targets ended (a
   * synchronous copy from pageable memory returning once its source is staged) keeps its measured
   * duration: the call took 40 us, the copy was measured 10-60 us.
   *
   * <pre>
   *   copy    (10)[copy 10-60]
   *   thread  [cudaMemcpy 0-40][next call at 40]
   * </pre>
   */
  @Test
  void underKeepMeasuredABlockingCallThatReturnedBeforeItsTargetsKeepsItsMeasuredDuration() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int copy = f.measuredSyncCopy(0, legacy, TransferKind.PAGEABLE_H2D, MB, 10_000, 60_000, 40_000);
    f.hostCall(0, 0);
    ReplayResult r = Replayer.replay(f.build(), node(1, 1), Replayer.Options.defaults().withKeepMeasured(true));
    times(r, copy, 10, 60);
    assertThat(callEnd(r, 0, 0)).isEqualTo(40.0);
    assertThat(r.calls().get(0).get(1).startNs() / 1e3).isEqualTo(40.0);
  }

  /**
   * With measured times, the report gives the mean and largest error of the operations' replayed
   * start times against their measured ones, as a share of the measured makespan, and the makespan
   * error. K2 was measured 70-100 us; replayed, it follows K1 at once (50-80 us): start errors 0 and
   * 20 us, mean 10 us (10% of the measured 100 us), largest 20 us, makespan 80 us (-20%).
   *
   * <pre>
   *   trace:   [K1 0-50]      [K2 70-100]
   *   replay:  [K1 0-50][K2 50-80]
   * </pre>
   */
  @Test
  void theTimelineErrorIsTheErrorOfTheStartTimesAndOfTheMakespan() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    f.measured(0, s, "K1", null, 0, 0, 50_000, 0);
    f.measured(0, s, "K2", null, 0, 70_000, 100_000, 0);
    ReplayResult r = replay(f.build(), node(1, 1));
    ReplayReport.TimelineError e = ReplayReport.timeline(r).orElseThrow();
    assertThat(e.ops()).isEqualTo(2);
    assertThat(e.meanStartErrorNs()).isEqualTo(10_000.0);
    assertThat(e.maxStartErrorNs()).isEqualTo(20_000.0);
    assertThat(e.measuredMakespanNs()).isEqualTo(100_000);
    assertThat(e.meanStartErrorPct()).isCloseTo(10, offset(1e-9));
    assertThat(e.makespanErrorPct()).isCloseTo(-20, offset(1e-9));
  }
}
