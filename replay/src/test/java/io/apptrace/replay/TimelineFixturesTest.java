package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * Named timelines with their expected start and end times, on a node with round numbers: links of
 * 10 GB/s (10,000 bytes per us) that carry n bytes for n, a fixed overhead L+o of 10 us each way
 * (GPU time) and no shorter gap, host memory at 20 GB/s, the driver's staging buffer 64 KiB. A 1 MB
 * (10^6 bytes) pinned copy takes 10 + 100 us.
 */
class TimelineFixturesTest {
  static final long MB = 1_000_000;

  static Node node(int copyEngines, int gpus) throws Exception {
    StringBuilder g = new StringBuilder();
    StringBuilder l = new StringBuilder();
    for (int i = 0; i < gpus; i++) {
      g.append("  - {id: gpu").append(i).append(", model: test, memory: \"16 GiB\", memory_bandwidth: \"100 GB/s\","
          + " copy_engines: ").append(copyEngines).append(", concurrent_kernels: false}\n");
      l.append("  - {between: [sw0, gpu").append(i).append("], type: smp, bandwidth: \"10 GB/s\"}\n");
    }
    return NodeLoader.parse("fixture.yaml", """
        name: fixture
        description: round numbers for timeline fixtures
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus:
        %sswitches: [{id: sw0, type: pcie}]
        links:
          - {between: [cpu0, sw0], type: smp, bandwidth: "10 GB/s"}
        %smeasured:
          timed: gpu
          latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}
          staging_chunk: "64 KiB"
        """.formatted(g, l), "fixture.yaml");
  }

  static ReplayResult replay(ReplayProgram p, Node n) throws Exception {
    return Replayer.replay(p, n, Replayer.Options.defaults());
  }

  static void times(ReplayResult r, int op, double startUs, double endUs) {
    ReplayResult.OpTimes t = r.ops().get(op);
    assertThat(t.startNs() / 1e3).as("start of op %d (%s)", op, r.program().ops().get(op).name())
        .isCloseTo(startUs, offset(1e-6));
    assertThat(t.endNs() / 1e3).as("end of op %d (%s)", op, r.program().ops().get(op).name())
        .isCloseTo(endUs, offset(1e-6));
  }

  /**
   * The legacy default stream waits for the blocking streams and they wait for it; a non-blocking
   * stream does neither. Issued at t = 0 in this order:
   *
   * <pre>
   *   s1 (blocking)      [copy 0-110 ]                      [K_after 160-180]
   *   legacy                          [K_legacy 110-160]
   *   s2 (non-blocking)  [K_nb 0-30]
   * </pre>
   */
  @Test
  void defaultStreamSerialization() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.blocking();
    int legacy = f.legacy();
    int s2 = f.nonBlocking();
    int copy = f.copy(0, s1, TransferKind.PINNED_H2D, MB);
    int kLegacy = f.kernel(0, legacy, "K_legacy", 50_000);
    int kNb = f.kernel(0, s2, "K_nb", 30_000);
    int kAfter = f.kernel(0, s1, "K_after", 20_000);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, copy, 0, 110);
    times(r, kNb, 0, 30);
    times(r, kLegacy, 110, 160);
    times(r, kAfter, 160, 180);
    assertThat(r.makespanNs() / 1e3).isCloseTo(180, offset(1e-6));
  }

  /**
   * cudaEventRecord then cudaStreamWaitEvent order work across streams:
   *
   * <pre>
   *   s1  [K1 0-50] (record e)
   *   s2            (wait e) [copy 50-160]
   * </pre>
   */
  @Test
  void eventWaitAcrossStreams() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int e = f.event();
    int k1 = f.kernel(0, s1, "K1", 50_000);
    f.record(0, s1, e);
    f.waitEvent(0, s2, e);
    int copy = f.copy(0, s2, TransferKind.PINNED_H2D, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, k1, 0, 50);
    times(r, copy, 50, 160);
  }

  /**
   * cudaMemcpy from pageable memory returns once its source may be reused: the copy takes
   * 10 + 2 * 10^6 / 20,000 + 10^6 / 10,000 = 210 us (Abdelhafez et al. 2019, eq. 9), moving its bytes at 10^6 / 200
   * = 5,000 bytes per us; the call returns when the last 64 KiB staging chunk is left, at
   * 10 + (10^6 - 65,536) / 5,000 = 196.8928 us, which the replay's integer-nanosecond clock
   * takes as 196,893 ns, and the next call starts then.
   *
   * <pre>
   *   copy   [10 us L+o][------------ 200 us of data ------------]
   *   host   [cudaMemcpy .................................][next call at 196.893]
   * </pre>
   */
  @Test
  void synchronousPageableCopyReturnsBeforeTheLastChunksDma() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int copy = f.syncCopy(0, legacy, TransferKind.PAGEABLE_H2D, MB, 0);
    f.hostCall(0, 0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, copy, 0, 210);
    assertThat(r.calls().get(0).get(0).endNs()).isEqualTo(196_893);
    assertThat(r.calls().get(0).get(1).startNs()).isEqualTo(196_893);
  }

  /**
   * With its CPU's memcpy bandwidth measured (5 GB/s, 5,000 bytes per us) and 250 kB staging
   * buffers, a pageable copy of 1 MB is a pipeline of 4 chunks (docs/COST-MODEL.md, "Pageable host
   * memory"): the CPU stages each in 50 us, the link moves it in 25 us, so the CPU sets the pace and
   * chunk j's DMA ends at 50j + 25 us after the first is staged. The DMA cannot start before the
   * calling thread has staged the first chunk (docs/REPLAY.md, "Copies"): on the GPU the copy starts
   * at 50 us, then its 10 us of L+o and 175 us of data (10^6 / 175 bytes per us), to 235 us. The call
   * returns when the last chunk's 250,000 bytes are left: 60 + 750,000 / (10^6 / 175) = 191.25 us.
   *
   * <pre>
   *   host   [cudaMemcpy: stage chunk 0 | ... .......................][next call at 191.25]
   *   copy              [10 us L+o][------ 175 us: 4 DMAs, each waiting for its chunk ------]
   *          0          50                                                                 235
   * </pre>
   */
  @Test
  void pageableCopyIsAStagingPipeline() throws Exception {
    Node n = NodeLoader.parse("fixture.yaml", """
        name: fixture
        description: a pageable staging pipeline
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus: [{id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 1}]
        links: [{between: [cpu0, gpu0], type: smp, bandwidth: "10 GB/s"}]
        measured:
          timed: gpu
          latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}
          staging_chunk: "250 KB"
          memcpy_bandwidth: {cpu0: "5 GB/s"}
        """, "fixture.yaml");
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int copy = f.syncCopy(0, legacy, TransferKind.PAGEABLE_H2D, MB, 0);
    f.hostCall(0, 0);
    ReplayResult r = replay(f.build(), n);
    times(r, copy, 50, 235);
    assertThat(r.calls().get(0).get(0).endNs()).isEqualTo(191_250);
  }

  /**
   * A host-to-device and a device-to-host copy issued together in two streams. With one copy
   * engine the second waits for the first (and pays its own L+o: the engine last moved data the
   * other way); with two, they run at once, one per direction of the full-duplex link.
   *
   * <pre>
   *   1 engine:   h2d [0-110]          2 engines:  h2d [0-110]
   *               d2h        [110-220]             d2h [0-110]
   * </pre>
   */
  @Test
  void oppositeCopiesWithOneAndTwoCopyEngines() throws Exception {
    for (int engines : new int[] {1, 2}) {
      ProgramFixture f = new ProgramFixture();
      int s1 = f.nonBlocking();
      int s2 = f.nonBlocking();
      int h2d = f.copy(0, s1, TransferKind.PINNED_H2D, MB);
      int d2h = f.copy(0, s2, TransferKind.PINNED_D2H, MB);
      f.syncDevice(0);
      ReplayResult r = replay(f.build(), node(engines, 1));
      times(r, h2d, 0, 110);
      if (engines == 1) {
        times(r, d2h, 110, 220);
      } else {
        times(r, d2h, 0, 110);
      }
    }
  }

  /**
   * Two host-to-device copies to two GPUs behind one switch share its uplink, max-min fair: 1 MB
   * and 0.5 MB start together at 5,000 bytes per us each; the small one ends at 10 + 500,000 /
   * 5,000 = 110 us; the big one has 500,000 bytes left, which it then moves alone at 10,000 per us:
   * it ends at 160 us.
   *
   * <pre>
   *   cpu0-sw0 link   [both at 5 GB/s ......][gpu0's alone at 10 GB/s]
   *   to gpu0 (1 MB)  [10][------- 100 --------][---- 50 ----]  ends 160
   *   to gpu1 (0.5 MB)[10][------- 100 --------]                ends 110
   * </pre>
   */
  @Test
  void twoTransfersShareOneLink() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s0 = f.stream(false, false, 0);
    int s1 = f.stream(false, false, 1);
    int big = f.copy(0, s0, TransferKind.PINNED_H2D, MB);
    int small = f.copy(0, s1, TransferKind.PINNED_H2D, MB / 2);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 2));
    times(r, big, 0, 160);
    times(r, small, 0, 110);
    // the shared link was busy from 10 us (after L+o) to 160 us
    ReplayResult.LinkUse up = r.linkUse().stream().filter(u -> u.name().equals("cpu0->sw0")).findFirst().orElseThrow();
    assertThat(up.points().get(0)[0] / 1e3).isCloseTo(10, offset(1e-6));
    assertThat(up.points().get(0)[1]).isCloseTo(1.0, offset(1e-9));
    double[] last = up.points().get(up.points().size() - 1);
    assertThat(last[0] / 1e3).isCloseTo(160, offset(1e-6));
    assertThat(last[1]).isZero();
    // gpu1's own link: busy (half of it) from 10 to 110 us
    ReplayResult.LinkUse down1 = r.linkUse().stream().filter(u -> u.name().equals("sw0->gpu1")).findFirst()
        .orElseThrow();
    assertThat(down1.points().get(0)[1]).isCloseTo(0.5, offset(1e-9));
  }

  /** The critical path of the serialization fixture: copy, then the legacy kernel, then K_after. */
  @Test
  void theCriticalPathFollowsWhatEachStartWaitedFor() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.blocking();
    int legacy = f.legacy();
    f.copy(0, s1, TransferKind.PINNED_H2D, MB);
    f.kernel(0, legacy, "K_legacy", 50_000);
    f.kernel(0, s1, "K_after", 20_000);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 1));
    assertThat(r.criticalPath()).extracting(ReplayResult.Segment::label)
        .containsExactly("cudaMemcpyAsync", "K_legacy", "K_after");
    assertThat(r.breakdown().get("copies") / 1e3).isCloseTo(110, offset(1e-6));
    assertThat(r.breakdown().get("kernels") / 1e3).isCloseTo(70, offset(1e-6));
    assertThat(r.breakdown().get("copies pinned_h2d") / 1e3).isCloseTo(110, offset(1e-6));
  }
}
