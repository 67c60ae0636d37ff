package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static io.apptrace.replay.TimelineFixturesTest.node;
import static io.apptrace.replay.TimelineFixturesTest.replay;
import static io.apptrace.replay.TimelineFixturesTest.times;
import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * Each GPU's copy engines (docs/REPLAY.md, "Engines" and "Copies"; rule class {@link CopyEngines}):
 * with one engine every copy waits its turn; with two or more, host-to-device copies use the
 * even-numbered engines, device-to-host copies the odd-numbered ones, device-to-device and
 * GPU-to-GPU copies any; a free engine takes the earliest-issued ready copy; a copy pays its fixed
 * overhead L+o first, or the gap g when it follows a copy in the same direction on the same engine
 * back to back. Round numbers of {@link TimelineFixturesTest}: a 1 MB pinned copy takes 10 + 100
 * us, 0.5 MB 10 + 50 us (a node with no measured g pays L+o every time). One engine with a host-to-
 * device and a device-to-host copy is {@link TimelineFixturesTest#oppositeCopiesWithOneAndTwoCopyEngines}.
 */
class CopyEnginesTest {
  /** The round-number node of one GPU, with a measured gap g of 2 us each way. */
  static Node withGap(int copyEngines) throws Exception {
    return NodeLoader.parse("gap.yaml", """
        name: gap
        description: round numbers with a gap g
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus:
          - {id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: %d,
             concurrent_kernels: false}
        links: [{between: [cpu0, gpu0], type: smp, bandwidth: "10 GB/s"}]
        measured:
          timed: gpu
          latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}
          gap: {h2d: "2 us", d2h: "2 us"}
        """.formatted(copyEngines), "gap.yaml");
  }

  /**
   * With one copy engine every copy waits its turn, a device-to-device copy too. The
   * device-to-device copy's own time d is the cost model's ({@link TransferModel#estimate}).
   *
   * <pre>
   *   copy0  [h2d 0-110][d2h 110-220][d2d 220-(220+d)]
   * </pre>
   */
  @Test
  void withOneCopyEngineEveryCopyWaitsItsTurn() throws Exception {
    Node n = node(1, 1);
    ProgramFixture f = new ProgramFixture();
    int h2d = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int d2h = f.copy(0, f.nonBlocking(), TransferKind.PINNED_D2H, MB);
    int d2d = f.copy(0, f.nonBlocking(), TransferKind.D2D, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), n);
    double d = Math.round(new TransferModel(n).estimate(TransferKind.D2D, MB, TransferModel.Endpoints.gpu(0),
        TransferModel.Setting.MEASURED).seconds() * 1e9) / 1e3;
    times(r, h2d, 0, 110);
    times(r, d2h, 110, 220);
    assertThat(r.ops().get(d2d).startNs() / 1e3).isEqualTo(220.0);
    assertThat(r.ops().get(d2d).durationNs() / 1e3).isCloseTo(d, org.assertj.core.data.Offset.offset(0.002));
  }

  /**
   * With two engines, host-to-device copies take engine 0 and device-to-host copies engine 1: two
   * copies each way on four streams run two at a time, one per direction; with four engines two
   * host-to-device copies run at once on engines 0 and 2 (and share the link: 5,000 bytes per us
   * each, 10 + 200 us).
   *
   * <pre>
   *   2 engines:  copy0 (h2d) [a 0-110][b 110-220]     4 engines:  copy0 (h2d) [a 0-210]
   *               copy1 (d2h) [c 0-110][d 110-220]                 copy2 (h2d) [b 0-210]
   * </pre>
   */
  @Test
  void hostToDeviceCopiesUseTheEvenEnginesAndDeviceToHostCopiesTheOdd() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int a = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int b = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int c = f.copy(0, f.nonBlocking(), TransferKind.PINNED_D2H, MB);
    int d = f.copy(0, f.nonBlocking(), TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayProgram p = f.build();
    ReplayResult two = replay(p, node(2, 1));
    times(two, a, 0, 110);
    times(two, b, 110, 220);
    times(two, c, 0, 110);
    times(two, d, 110, 220);
    assertThat(two.ops().get(b).engine()).isEqualTo("gpu0 copy0 (h2d)");
    assertThat(two.ops().get(d).engine()).isEqualTo("gpu0 copy1 (d2h)");

    ProgramFixture g = new ProgramFixture();
    int a4 = g.copy(0, g.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int b4 = g.copy(0, g.nonBlocking(), TransferKind.PINNED_H2D, MB);
    g.syncDevice(0);
    ReplayResult four = replay(g.build(), node(4, 1));
    times(four, a4, 0, 210);
    times(four, b4, 0, 210);
    assertThat(four.ops().get(a4).engine()).isEqualTo("gpu0 copy0 (h2d)");
    assertThat(four.ops().get(b4).engine()).isEqualTo("gpu0 copy2 (h2d)");
  }

  /**
   * A device-to-device copy takes any free engine: with two engines and a host-to-device copy on
   * engine 0, it takes engine 1, and a device-to-host copy issued after it waits for it there.
   *
   * <pre>
   *   copy0 (h2d)  [h2d 0-110]
   *   copy1 (d2h)  [d2d 0-d][d2h d-(d+110)]
   * </pre>
   */
  @Test
  void deviceToDeviceCopiesUseAnyEngine() throws Exception {
    Node n = node(2, 1);
    ProgramFixture f = new ProgramFixture();
    int h2d = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int d2d = f.copy(0, f.nonBlocking(), TransferKind.D2D, MB);
    int d2h = f.copy(0, f.nonBlocking(), TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), n);
    times(r, h2d, 0, 110);
    assertThat(r.ops().get(d2d).startNs()).isZero();
    assertThat(r.ops().get(d2d).engine()).isEqualTo("gpu0 copy1 (d2h)");
    double d = r.ops().get(d2d).endNs() / 1e3;
    assertThat(d).isGreaterThan(0);
    times(r, d2h, d, d + 110);
  }

  /**
   * A free engine takes the earliest-issued ready copy, not the one ready first: copy B (issued
   * second, ready at 20 us after kernel K) runs before copy C (issued third, ready at 0).
   *
   * <pre>
   *   copy0  [A 0-110][B 110-170][C 170-230]
   *   s2     [K 0-20]
   * </pre>
   */
  @Test
  void aFreeEngineTakesTheEarliestIssuedReadyCopy() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int s3 = f.nonBlocking();
    int a = f.copy(0, s1, TransferKind.PINNED_H2D, MB);
    int k = f.kernel(0, s2, "K", 20_000);
    int b = f.copy(0, s2, TransferKind.PINNED_H2D, MB / 2);
    int c = f.copy(0, s3, TransferKind.PINNED_H2D, MB / 2);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, a, 0, 110);
    times(r, k, 0, 20);
    times(r, b, 110, 170);
    times(r, c, 170, 230);
  }

  /**
   * A copy that follows a copy in the same direction on the same engine back to back pays the gap g
   * (2 us here) instead of L+o (10 us); one that follows a copy the other way pays L+o (van
   * Werkhoven et al. 2014, sec. V; docs/COST-MODEL.md, "Back-to-back transfers").
   *
   * <pre>
   *   copy0  [10|a 100][2|b 100][10|c 100]
   *          0     110      212       322
   * </pre>
   */
  @Test
  void aCopyBackToBackInTheSameDirectionPaysTheGapInsteadOfLPlusO() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int a = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int b = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int c = f.copy(0, f.nonBlocking(), TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), withGap(1));
    times(r, a, 0, 110);
    times(r, b, 110, 212);
    times(r, c, 212, 322);
  }

  /**
   * A copy on an engine that has been idle pays L+o, even in the direction the engine last moved
   * data: the gap is for copies back to back. The second copy is issued at 150 us.
   *
   * <pre>
   *   copy0  [10|a 100]  idle  [10|b 100]
   *          0     110   150        260
   * </pre>
   */
  @Test
  void aCopyOnAnIdleEnginePaysLPlusO() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int a = f.copy(0, s, TransferKind.PINNED_H2D, MB);
    f.host(0, 150_000);
    int b = f.copy(0, s, TransferKind.PINNED_H2D, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), withGap(1));
    times(r, a, 0, 110);
    times(r, b, 150, 260);
  }

  /**
   * The gap is per engine: with two engines, a device-to-host copy that follows a host-to-device
   * copy on the other engine, and then another device-to-host copy back to back on its own engine,
   * pay L+o and g.
   *
   * <pre>
   *   copy0 (h2d)  [10|a 100]
   *   copy1 (d2h)  [10|c 100][2|d 100]
   *                0     110      212
   * </pre>
   */
  @Test
  void theGapIsPaidOnlyOnTheEngineThatMovedTheLastCopy() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int a = f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, MB);
    int c = f.copy(0, f.nonBlocking(), TransferKind.PINNED_D2H, MB);
    int d = f.copy(0, f.nonBlocking(), TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), withGap(2));
    times(r, a, 0, 110);
    times(r, c, 0, 110);
    times(r, d, 110, 212);
  }
}
