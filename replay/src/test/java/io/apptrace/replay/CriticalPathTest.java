package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * The critical path and its breakdown (docs/REPLAY.md, "What it reports"; rule class {@link
 * CriticalPath}): from whatever ends last, back through what made each link of the chain start when
 * it did; the breakdown of the makespan along it adds up to the makespan. The operation another
 * operation waited for is {@link TimelineFixturesTest#theCriticalPathFollowsWhatEachStartWaitedFor}.
 */
class CriticalPathTest {
  /**
   * A 10 us call, 20 us of host work, then two copies on two streams and one copy engine: copy B
   * waits for the engine copy A holds. Back from B's end: B, the operation that held its engine (A),
   * the call that issued A, the host time before it, the first call.
   *
   * <pre>
   *   thread  [call 0-10](host 20)[issue A, B at 30][cudaDeviceSynchronize ..... 200]
   *   copy0                       [A 30-140][B 140-200]
   *   breakdown: calls 10 + host 20 + copies 170 = 200 us
   * </pre>
   */
  @Test
  void thePathGoesBackThroughTheEngineHolderTheIssuingCallAndTheHostTime() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.hostCall(0, 10_000);
    f.host(0, 20_000);
    int a = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int b = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB / 2);
    f.syncDevice(0);
    ReplayResult r = TimelineFixturesTest.replay(f.build(), TimelineFixturesTest.node(1, 1));
    TimelineFixturesTest.times(r, a, 30, 140);
    TimelineFixturesTest.times(r, b, 140, 200);
    assertThat(r.criticalPath()).extracting(ReplayResult.Segment::op).containsSubsequence(a, b);
    assertThat(r.criticalPath().get(0).label()).isEqualTo("cudaGetLastError");
    assertThat(r.breakdown().get("calls") / 1e3).isCloseTo(10, offset(1e-9));
    assertThat(r.breakdown().get("host") / 1e3).isCloseTo(20, offset(1e-9));
    assertThat(r.breakdown().get("copies") / 1e3).isCloseTo(170, offset(1e-9));
    assertThat(r.makespanNs()).isEqualTo(200_000.0);
  }

  /**
   * The calls' own time on the path by kind: K2's launch call starts when K1's ends (7 us: a
   * launch), and the synchronization that waits for K2 wakes as measured after it (a sync).
   *
   * <pre>
   *   thread  [launch K1 0-7][launch K2 7-14][cudaDeviceSynchronize 14 ... 57]
   *   gpu     [K1 0-5]        [K2 7-57]
   *   breakdown: calls launch 7 + kernels 50 = 57 us
   * </pre>
   */
  @Test
  void theCallsOnThePathAreLaunchesSynchronizationsOrOthers() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    f.kernel(0, s1, "K1", 5_000, 0, 7_000);
    int k2 = f.kernel(0, s2, "K2", 50_000, 0, 7_000);
    f.syncDevice(0);
    ReplayResult r = TimelineFixturesTest.replay(f.build(), TimelineFixturesTest.node(1, 1));
    TimelineFixturesTest.times(r, k2, 7, 57);
    assertThat(r.breakdown().get("calls launch") / 1e3).isCloseTo(7, offset(1e-9));
    assertThat(r.breakdown().get("calls")).isEqualTo(r.breakdown().get("calls launch")
        + r.breakdown().getOrDefault("calls sync", 0.0) + r.breakdown().getOrDefault("calls other", 0.0));
    assertThat(r.breakdown().get("kernels") / 1e3).isCloseTo(50, offset(1e-9));
    assertThat(r.makespanNs()).isEqualTo(57_000.0);
  }
}
