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
  /**
   * Each duration a model gives is rounded to the nearest nanosecond when it is scheduled: two
   * kernels measured at 1,001 ns, scaled by 0.3, last 300.3 ns each and are scheduled as 300 ns
   * each, so the second ends at 600 ns (not at 600.6 rounded once).
   *
   * <pre>
   *   [K1 0-300][K2 300-600]
   * </pre>
   */
  @Test
  void eachDurationIsRoundedToTheNearestNanosecondWhenItIsScheduled() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int k1 = f.kernel(0, s, "K1", 1_001);
    int k2 = f.kernel(0, s, "K2", 1_001);
    ReplayResult r = Replayer.replay(f.build(), TimelineFixturesTest.node(1, 1),
        Replayer.Options.defaults().withScaleKernels(0.3));
    assertThat(r.ops().get(k1).endNs()).isEqualTo(300.0);
    assertThat(r.ops().get(k2).startNs()).isEqualTo(300.0);
    assertThat(r.ops().get(k2).endNs()).isEqualTo(600.0);
  }

  /** The replay's components for {@code p} on {@code n}, wired as {@link Replayer#replay} wires them. */
  private record Wired(OpTable t, Links links, Clock clock, EventQueue queue, Transfers transfers, ReplayLoop loop) {
    static Wired of(ReplayProgram p, Node n) throws Exception {
      Replayer.Options o = Replayer.Options.defaults();
      OpTable t = new OpTable(p);
      Links links = new Links(n, false);
      PricedOps priced = new PricedOps(p, n, o, links, t);
      Clock clock = new Clock();
      EventQueue queue = new EventQueue();
      MeasuredTiming measured = new MeasuredTiming(p, t, o);
      Dependencies deps = new Dependencies(t, measured, false);
      StreamRules streams = new StreamRules(p, n, t, deps, o.deviceMap());
      Engines engines = new Engines(n, t, clock, queue, priced, false);
      HostThreads hosts = new HostThreads(p, n, o, t, clock, queue, streams, measured, new CallCosts(p, n,
          o.callCosts()), priced.afterCallNs());
      OpLifecycle lifecycle = new OpLifecycle(t, clock, queue, deps, streams, measured, engines, hosts);
      Transfers transfers = new Transfers(t, links, clock, queue, n.measured().stagingChunkBytes());
      hosts.issuesThrough(lifecycle);
      transfers.connect(lifecycle, hosts);
      return new Wired(t, links, clock, queue, transfers, new ReplayLoop(clock, queue, links, hosts, lifecycle,
          transfers, engines, t));
    }
  }

  /**
   * An event scheduled before the clock is an internal error that says when, never a loop that
   * does not advance.
   *
   * <pre>
   *   clock at 1,000 ns; an event at 500 ns: error
   * </pre>
   */
  @Test
  void anEventScheduledBeforeTheClockIsAnInternalError() throws Exception {
    Wired w = Wired.of(new ProgramFixture().build(), TimelineFixturesTest.node(1, 1));
    w.clock().advanceTo(1_000);
    w.queue().push(500, EventKind.CALL_STARTS, 0);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> w.loop().run())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("an event CALL_STARTS (id 0) was scheduled at 500 ns, before the clock's 1000 ns");
  }

  /**
   * A transfer event that ends no transfer is an internal error that names the operation in flight,
   * never a loop that does not advance.
   *
   * <pre>
   *   copy 0 in flight, due at 1,000 ns; a transfer event at 500 ns: error naming copy 0
   * </pre>
   */
  @Test
  void aTransferEventThatEndsNoTransferIsAnInternalErrorThatNamesTheOperation() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, 1_000);
    Wired w = Wired.of(f.build(), TimelineFixturesTest.node(1, 1));
    w.links().start(0, new int[] {0}, new double[] {1}, 1, 1_000, 0, 0);
    w.links().update(0);
    w.clock().advanceTo(500);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> w.transfers().due())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the replay made no progress at 500 ns: a transfer event was due but no transfer ended"
            + " (operation 0, cudaMemcpyAsync)");
  }
}
