package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static io.apptrace.replay.TimelineFixturesTest.node;
import static io.apptrace.replay.TimelineFixturesTest.replay;
import static io.apptrace.replay.TimelineFixturesTest.times;
import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeOverride;
import io.apptrace.node.TransferKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The program's host threads (docs/REPLAY.md, "Host threads"; rule class {@link HostThreads}):
 * each runs its calls in order, spending between two calls the host time it spent in the trace
 * divided by the node's {@code cpu_speed_factor}; a call that blocks ends when what it waits for
 * is done, but not before its own cost. Round numbers of {@link TimelineFixturesTest}; the calls of
 * these programs (a trace from a real GPU) keep their measured durations, 0 unless said.
 */
class HostThreadsTest {
  /** The end of thread {@code t}'s call {@code i}, us. */
  static double callEnd(ReplayResult r, int t, int i) {
    return r.calls().get(t).get(i).endNs() / 1e3;
  }

  static double callStart(ReplayResult r, int t, int i) {
    return r.calls().get(t).get(i).startNs() / 1e3;
  }

  /**
   * The host time between two calls is divided by the node's cpu_speed_factor; a call's own
   * measured time is not. A 10 us call, 100 us of host work, then a launch: on a node with
   * cpu_speed_factor 2 the kernel starts at 10 + 100 / 2 = 60 us.
   *
   * <pre>
   *   factor 1:  [call 10][---- host 100 ----][launch] K 110-160
   *   factor 2:  [call 10][- host 50 -][launch] K 60-110
   * </pre>
   */
  @Test
  void hostTimeBetweenCallsIsDividedByTheCpuSpeedFactor() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    f.hostCall(0, 10_000);
    f.host(0, 100_000);
    int k = f.kernel(0, s, "K", 50_000);
    ReplayProgram p = f.build();
    times(replay(p, node(1, 1)), k, 110, 160);
    Node fast = NodeLoader.parse("fast.yaml", """
        name: fast
        description: round numbers, a CPU twice as fast as the capturing one
        cpu_speed_factor: 2
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus: [{id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 1}]
        links: [{between: [cpu0, gpu0], type: smp, bandwidth: "10 GB/s"}]
        measured: {timed: gpu, latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}}
        """, "fast.yaml");
    ReplayResult r = replay(p, fast);
    assertThat(callEnd(r, 0, 0)).isEqualTo(10.0);
    times(r, k, 60, 110);
  }

  /**
   * Each thread runs its calls in order, independently of the others; its first call starts as
   * long after the program's first call as it did in the trace. Thread 1 starts 30 us after thread 0.
   *
   * <pre>
   *   thread 0  [call 0-40][launch K1 at 40]          K1 40-90
   *   thread 1        (30) [launch K2 at 30]          K2 30-40
   * </pre>
   */
  @Test
  void eachThreadRunsItsCallsInOrderFromItsOwnStart() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    f.hostCall(0, 40_000);
    int k1 = f.kernel(0, s1, "K1", 50_000);
    f.host(1, 30_000);
    int k2 = f.kernel(1, s2, "K2", 10_000);
    ReplayResult r = replay(f.build(), node(1, 1));
    assertThat(callStart(r, 1, 0)).isEqualTo(30.0);
    times(r, k2, 30, 40);
    times(r, k1, 40, 90);
  }

  /**
   * cudaStreamSynchronize waits for everything issued to its stream before it, and for nothing
   * else. Two copy engines; s2's copy out ends at 60 us, s1's kernel at 160 us.
   *
   * <pre>
   *   s1      [copy in 0-110][K 110-160]
   *   s2      [copy out 0-60]
   *   thread  [sync s2 .. 60][sync s1 ........ 160]
   * </pre>
   */
  @Test
  void streamSynchronizeWaitsForEverythingIssuedToItsStream() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    f.copy(0, s1, TransferKind.PINNED_H2D, MB);
    f.kernel(0, s1, "K", 50_000);
    f.copy(0, s2, TransferKind.PINNED_D2H, MB / 2);
    f.syncStream(0, s2);
    f.syncStream(0, s1);
    ReplayResult r = replay(f.build(), node(2, 1));
    assertThat(callEnd(r, 0, 3)).isEqualTo(60.0);
    assertThat(callEnd(r, 0, 4)).isEqualTo(160.0);
  }

  /**
   * cudaEventSynchronize waits for the work before the event's last record: recorded after K1, it
   * returns when K1 ends, not K2; recorded again after K2, the next one returns when K2 ends.
   *
   * <pre>
   *   s       [K1 0-50] (record e) [K2 50-80] (record e at 50) [K3 80-100]
   *   thread  [sync e ...... 50][record, launch, sync e .. 80]
   * </pre>
   */
  @Test
  void eventSynchronizeWaitsForTheWorkBeforeTheEventsLastRecord() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int e = f.event();
    f.kernel(0, s, "K1", 50_000);
    f.record(0, s, e);
    f.kernel(0, s, "K2", 30_000);
    f.syncEvent(0, e); // call 3
    f.record(0, s, e);
    int k3 = f.kernel(0, s, "K3", 20_000);
    f.syncEvent(0, e); // call 6
    ReplayResult r = replay(f.build(), node(1, 1));
    assertThat(callEnd(r, 0, 3)).isEqualTo(50.0);
    assertThat(callEnd(r, 0, 6)).isEqualTo(80.0);
    times(r, k3, 80, 100);
  }

  /**
   * cudaDeviceSynchronize waits for everything the process issued to its device, on every stream,
   * and not for other devices. gpu0's 0.5 MB copy and gpu1's 1 MB copy share the switch's uplink:
   * they end at 110 and 160 us.
   *
   * <pre>
   *   gpu0 s0  [K 0-50]
   *   gpu0 s1  [copy 0.5 MB 0-110]
   *   gpu1 s2  [copy 1 MB 0-160          ]
   *   thread   [sync gpu0 ....... 110][sync gpu1 .. 160]
   * </pre>
   */
  @Test
  void deviceSynchronizeWaitsForEverythingTheProcessIssuedToItsDevice() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s0 = f.stream(false, false, 0);
    int s1 = f.stream(false, false, 0);
    int s2 = f.stream(false, false, 1);
    f.kernel(0, s0, "K", 50_000);
    f.copy(0, s1, TransferKind.PINNED_H2D, MB / 2);
    f.copy(0, s2, TransferKind.PINNED_H2D, MB);
    f.syncDevice(0, 0, 0); // call 3
    f.syncDevice(0, 1, 0); // call 4
    ReplayResult r = replay(f.build(), node(1, 2));
    assertThat(callEnd(r, 0, 3)).isEqualTo(110.0);
    assertThat(callEnd(r, 0, 4)).isEqualTo(160.0);
  }

  /**
   * cudaFree waits for its device like cudaDeviceSynchronize.
   *
   * <pre>
   *   s       [K 0-50]
   *   thread  [cudaFree ..... 50]
   * </pre>
   */
  @Test
  void cudaFreeWaitsForEverythingTheProcessIssuedToItsDevice() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    f.kernel(0, s, "K", 50_000);
    f.free(0, 0);
    ReplayResult r = replay(f.build(), node(1, 1));
    assertThat(callEnd(r, 0, 1)).isEqualTo(50.0);
  }

  /**
   * A synchronous copy (cudaMemcpy) from pinned memory returns when the copy ends.
   *
   * <pre>
   *   copy    [10|100]
   *   thread  [cudaMemcpy .. 110][next]
   * </pre>
   */
  @Test
  void aSynchronousCopyReturnsWhenItEnds() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int copy = f.syncCopy(0, legacy, TransferKind.PINNED_H2D, MB, 0);
    f.hostCall(0, 0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, copy, 0, 110);
    assertThat(callEnd(r, 0, 0)).isEqualTo(110.0);
    assertThat(callStart(r, 0, 1)).isEqualTo(110.0);
  }

  /**
   * A synchronous copy from pageable memory of one staging chunk (64 KiB here) or less returns when
   * it ends: its last chunk is its only one. 65,536 bytes take 10 + 2 x 65,536 / 20,000 + 65,536 /
   * 10,000 = 23.1072 us (Abdelhafez et al. 2019, eq. 9), 23,107 ns on the replay's clock.
   *
   * <pre>
   *   copy    [10|13.107]
   *   thread  [cudaMemcpy .. 23.107][next]
   * </pre>
   */
  @Test
  void aSynchronousPageableCopyOfOneChunkOrLessReturnsWhenItEnds() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int copy = f.syncCopy(0, legacy, TransferKind.PAGEABLE_H2D, 65_536, 0);
    f.hostCall(0, 0);
    ReplayResult r = replay(f.build(), node(1, 1));
    assertThat(r.ops().get(copy).endNs()).isEqualTo(23_107.0);
    assertThat(r.calls().get(0).get(0).endNs()).isEqualTo(23_107.0);
  }

  /**
   * A synchronous copy to pageable memory returns when it ends: the program's buffer is written by
   * the last staging copy. 1 MB from the GPU: 10 + 2 x 10^6 / 20,000 + 10^6 / 10,000 = 210 us.
   *
   * <pre>
   *   copy    [10|200]
   *   thread  [cudaMemcpy .. 210][next]
   * </pre>
   */
  @Test
  void aSynchronousCopyToPageableMemoryReturnsWhenItEnds() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int copy = f.syncCopy(0, legacy, TransferKind.PAGEABLE_D2H, MB, 0);
    f.hostCall(0, 0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, copy, 0, 210);
    assertThat(callEnd(r, 0, 0)).isEqualTo(210.0);
  }

  /**
   * A blocking call ends when what it waits for is done, but not before its own cost: a
   * synchronization measured at 3 us returns at 3 us when its stream is empty, and when its stream's
   * kernel (measured 0-50 us, replayed at 0.01 of that with --scale-kernels) ends at 0.5 us; a kernel
   * that ends after 3 us ends the call.
   *
   * <pre>
   *   empty stream:  thread [sync 0-3]
   *   short kernel:  s [K 0-0.5]         thread [sync 0-3]
   *   long kernel:   s [K 0-50]          thread [sync 0 ...... 50]
   * </pre>
   */
  @Test
  void aBlockingCallEndsNotBeforeItsOwnCost() throws Exception {
    ProgramFixture empty = new ProgramFixture();
    int s = empty.nonBlocking();
    empty.syncStream(0, s, 3_000);
    assertThat(callEnd(replay(empty.build(), node(1, 1)), 0, 0)).isEqualTo(3.0);

    ProgramFixture f = new ProgramFixture();
    int s2 = f.nonBlocking();
    int k = f.kernel(0, s2, "K", 50_000);
    f.syncStream(0, s2, 3_000);
    ReplayProgram p = f.build();
    ReplayResult scaled = Replayer.replay(p, node(1, 1), Replayer.Options.defaults().withScaleKernels(0.01));
    times(scaled, k, 0, 0.5);
    assertThat(callEnd(scaled, 0, 1)).isEqualTo(3.0);
    ReplayResult whole = replay(p, node(1, 1));
    assertThat(callEnd(whole, 0, 1)).isEqualTo(50.0);
  }

  /**
   * A --set of cpu_speed_factor divides the host time as the node file's own would: 400 us between
   * two calls on dgx1 with factor 4 are 100 us.
   *
   * <pre>
   *   [call][---- 100 ----][call]
   * </pre>
   */
  @Test
  void aSetOfTheCpuSpeedFactorDividesTheHostTime() throws Exception {
    Node n = NodeLoader.resolve("dgx1", List.of(new NodeOverride("cpu_speed_factor", "4")));
    ProgramFixture f = new ProgramFixture();
    f.hostCall(0, 0);
    f.host(0, 400_000);
    f.hostCall(0, 0);
    ReplayResult r = Replayer.replay(f.build(), n, Replayer.Options.defaults());
    assertThat(callStart(r, 0, 1)).isEqualTo(100.0);
  }
}
