package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static io.apptrace.replay.TimelineFixturesTest.node;
import static io.apptrace.replay.TimelineFixturesTest.times;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * Slack per operation (docs/REPLAY.md, "Slack"; rule class {@link Slack}): how much later an
 * operation could end before the makespan grows, on the round numbers of {@link
 * TimelineFixturesTest} (1 MB pinned copy 10 + 100 us, 0.5 MB 10 + 50 us; one kernel at a time).
 */
class SlackTest {
  private static ReplayResult replay(ReplayProgram p, io.apptrace.node.Node n) throws Exception {
    return Replayer.replay(p, n, Replayer.Options.defaults().withSlack(true));
  }

  /** Without being asked for, a replay keeps no dependency for slack and gives none. */
  @Test
  void aReplayNotAskedForSlackGivesNone() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int k = f.kernel(0, s, "K", 50_000);
    f.syncDevice(0);
    ReplayResult r = Replayer.replay(f.build(), node(2, 1), Replayer.Options.defaults());
    assertThat(r.ops().get(k).slackNs()).isNaN();
  }

  /**
   * The chain copy in, K, copy out sets the makespan; K2 ran first on the compute engine and K
   * could not start before 110 anyway: K2 could end 60 us later (at K's start) and change nothing.
   *
   * <pre>
   *   s    [copy in 0-110][K 110-160][copy out 160-270]
   *   s2   [K2 0-50]        slack 60
   * </pre>
   */
  @Test
  void anOperationOffThePathCanEndAsLateAsWhatComesAfterItStarts() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int s2 = f.nonBlocking();
    int k2 = f.kernel(0, s2, "K2", 50_000);
    int in = f.copy(0, s, TransferKind.PINNED_H2D, MB);
    int k = f.kernel(0, s, "K", 50_000);
    int out = f.copy(0, s, TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(2, 1));
    times(r, k2, 0, 50);
    times(r, k, 110, 160);
    assertThat(r.ops().get(in).slackNs()).isZero();
    assertThat(r.ops().get(k).slackNs()).isZero();
    assertThat(r.ops().get(out).slackNs()).isZero();
    assertThat(r.ops().get(k2).slackNs()).isCloseTo(60_000, offset(1.0));
  }

  /**
   * A copy on its own stream that only the final synchronization waits for may end as late as
   * the makespan; the synchronous copy, which the host waits for before its host work and the
   * kernel, has none.
   *
   * <pre>
   *   legacy  [sync copy 0-110] host 110-210 [K 210-260]
   *   s2      [copy out 0-60]     slack 200
   * </pre>
   */
  @Test
  void whatOnlyTheFinalSynchronizationWaitsForHasTheRestOfTheMakespan() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int s2 = f.nonBlocking();
    int out = f.copy(0, s2, TransferKind.PINNED_D2H, MB / 2);
    int in = f.syncCopy(0, legacy, TransferKind.PINNED_H2D, MB, 0);
    f.host(0, 100_000);
    int k = f.kernel(0, legacy, "K", 50_000);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(2, 1));
    times(r, in, 0, 110);
    times(r, k, 210, 260);
    times(r, out, 0, 60);
    assertThat(r.ops().get(out).slackNs()).isCloseTo(200_000, offset(1.0));
    assertThat(r.ops().get(in).slackNs()).isZero();
    assertThat(r.ops().get(k).slackNs()).isZero();
  }

  /** Every segment of the critical path is an operation with no slack. */
  @Test
  void theCriticalPathsOperationsHaveNoSlack() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int s2 = f.nonBlocking();
    f.copy(0, s, TransferKind.PINNED_H2D, MB);
    f.kernel(0, s, "K", 50_000);
    f.copy(0, s2, TransferKind.PINNED_H2D, MB / 2);
    f.kernel(0, s2, "K2", 20_000);
    f.copy(0, s, TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(2, 1));
    for (ReplayResult.Segment seg : r.criticalPath()) {
      if (seg.op() >= 0) {
        assertThat(r.ops().get(seg.op()).slackNs()).as("slack of %s", seg.label()).isZero();
      }
    }
  }

  /**
   * Busy shares: a 1 MB copy (10 us fixed, then 100 us of data over cpu0->sw0->gpu0) and a 50 us
   * kernel after it; makespan 160 us. The copy engine is busy 110 us, the compute engine 50, each
   * link direction and cpu0's memory the 100 us the data crosses them; both engines are on the
   * critical path.
   */
  @Test
  void busyShares() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    f.copy(0, s, TransferKind.PINNED_H2D, MB);
    f.kernel(0, s, "K", 50_000);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(2, 1));
    assertThat(r.makespanNs()).isCloseTo(160_000, offset(1.0));
    java.util.List<BusyShare.Resource> busy = BusyShare.of(r);
    assertThat(busy).extracting(BusyShare.Resource::name).startsWith("gpu0 copy0 (h2d)");
    BusyShare.Resource copy = busy.get(0);
    assertThat(copy.share()).isCloseTo(110.0 / 160, offset(1e-9));
    assertThat(copy.onCriticalPath()).isTrue();
    assertThat(busy).filteredOn(x -> x.name().equals("gpu0 compute")).singleElement()
        .satisfies(x -> assertThat(x.share()).isCloseTo(50.0 / 160, offset(1e-9)))
        .satisfies(x -> assertThat(x.onCriticalPath()).isTrue());
    assertThat(r.linkBusy()).containsOnlyKeys("cpu0->sw0", "sw0->gpu0", "cpu0 memory");
    r.linkBusy().values().forEach(v -> assertThat(v).isCloseTo(100_000, offset(1.0)));
  }
}
