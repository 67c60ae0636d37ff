package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replay's clock is exact at any makespan (docs/REPLAY.md, "The clock"): time is integer
 * nanoseconds, so work that starts late in a long timeline is priced and ordered exactly as the
 * same work at its start. A clock in floating-point nanoseconds loses its sub-nanosecond
 * resolution past 2^35 ns (34 s), where a transfer's completion could round back to "now" and
 * the replay spun forever.
 *
 * <pre>
 *   host   [-------- T of host work --------][cudaMemcpy][cudaMemcpy][cudaMemcpy][cudaMemcpy]
 *   copy                                     [64 MiB pageable H2D] x 4, one after the other
 * </pre>
 */
class ReplayClockTest {
  static final long SECOND = 1_000_000_000L;
  static final long MIB = 1L << 20;

  /** Host work for {@code hostNs}, then four synchronous 64 MiB pageable copies to the GPU. */
  static ReplayProgram lateCopies(long hostNs) {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    f.hostCall(0, 1_000);
    f.host(0, hostNs);
    for (int k = 0; k < 4; k++) {
      f.syncCopy(0, legacy, TransferKind.PAGEABLE_H2D, 64 * MIB, 0);
    }
    f.hostCall(0, 1_000);
    return f.build();
  }

  /** One replay's copy durations and the events it took. */
  record Outcome(List<Long> copyNs, long events, double makespanNs) {}

  static Outcome replay(ReplayProgram p, Node node, Replayer.Options o) {
    ReplayResult r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> Replayer.replay(p, node, o),
        "the replay did not finish: its clock stopped advancing");
    List<Long> copies = new ArrayList<>();
    for (ReplayResult.OpTimes t : r.ops()) {
      copies.add((long) (t.endNs() - t.startNs()));
      assertThat(t.startNs()).as("an integer ns start").isEqualTo(Math.rint(t.startNs()));
      assertThat(t.endNs()).as("an integer ns end").isEqualTo(Math.rint(t.endNs()));
    }
    return new Outcome(copies, r.events(), r.makespanNs());
  }

  @Test
  void timelinesOfOneSecondToOneWeekReplayInTheSameEvents() throws Exception {
    Node ac922 = NodeLoader.resolve("ac922");
    Outcome oneSecond = replay(lateCopies(SECOND), ac922, Replayer.Options.defaults());
    for (long host : new long[] {40 * SECOND, 3_600 * SECOND, 7 * 86_400 * SECOND}) {
      Outcome late = replay(lateCopies(host), ac922, Replayer.Options.defaults());
      assertThat(late.events()).as("events of a timeline of %d s", host / SECOND).isEqualTo(oneSecond.events());
      assertThat(late.copyNs()).as("copy durations after %d s", host / SECOND).isEqualTo(oneSecond.copyNs());
      assertThat(late.makespanNs() - host).as("the makespan after %d s of host work", host / SECOND)
          .isEqualTo(oneSecond.makespanNs() - SECOND);
    }
  }

  /** Kernels scaled up (--scale-kernels 20) push the same copies past 34 s of GPU time. */
  @Test
  void scaledKernelsPastThirtyFourSecondsStillFinish() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    for (int k = 0; k < 4; k++) {
      f.kernel(0, legacy, "long_kernel", 1_000_000_000L);
      f.syncCopy(0, legacy, TransferKind.PAGEABLE_D2H, 64 * MIB, 0);
    }
    Node ac922 = NodeLoader.resolve("ac922");
    Outcome once = replay(f.build(), ac922, Replayer.Options.defaults());
    Outcome scaled = replay(f.build(), ac922, Replayer.Options.defaults().withScaleKernels(20));
    assertThat(scaled.events()).isEqualTo(once.events());
    assertThat(scaled.makespanNs()).isGreaterThan(80.0 * SECOND);
  }
}
