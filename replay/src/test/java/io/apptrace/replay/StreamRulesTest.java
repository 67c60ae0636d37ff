package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static io.apptrace.replay.TimelineFixturesTest.node;
import static io.apptrace.replay.TimelineFixturesTest.replay;
import static io.apptrace.replay.TimelineFixturesTest.times;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * CUDA's ordering rules between streams (docs/REPLAY.md, "Streams"; rule class {@link StreamRules})
 * on the round numbers of {@link TimelineFixturesTest}: a 1 MB pinned copy takes 10 + 100 us, 0.5 MB
 * 10 + 50 us; kernels take their measured time, one at a time. The legacy default stream's rule
 * with blocking and non-blocking streams together is {@link
 * TimelineFixturesTest#defaultStreamSerialization}, cudaStreamWaitEvent across streams {@link
 * TimelineFixturesTest#eventWaitAcrossStreams}.
 */
class StreamRulesTest {
  /**
   * A stream runs its operations in issue order, even where they could run on different engines at
   * once (two copy engines, one compute engine).
   *
   * <pre>
   *   s  [copy in 0-110][K 110-160][copy out 160-270]
   * </pre>
   */
  @Test
  void aStreamRunsItsOperationsInIssueOrder() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int in = f.copy(0, s, TransferKind.PINNED_H2D, MB);
    int k = f.kernel(0, s, "K", 50_000);
    int out = f.copy(0, s, TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(2, 1));
    times(r, in, 0, 110);
    times(r, k, 110, 160);
    times(r, out, 160, 270);
  }

  /**
   * A stream created with cudaStreamNonBlocking neither waits for the legacy default stream nor is
   * waited for by it. Issued at t = 0 in this order, two copy engines:
   *
   * <pre>
   *   legacy        [K_legacy 0-50][copy out 50-110]
   *   non-blocking  [copy in 0-110 ]
   * </pre>
   *
   * Were the non-blocking stream a blocking one, its copy would wait for K_legacy (50-160) and the
   * legacy stream's copy out for it (160-220).
   */
  @Test
  void aNonBlockingStreamNeitherWaitsForTheLegacyStreamNorIsWaitedFor() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int nb = f.nonBlocking();
    int k = f.kernel(0, legacy, "K_legacy", 50_000);
    int in = f.copy(0, nb, TransferKind.PINNED_H2D, MB);
    int out = f.copy(0, legacy, TransferKind.PINNED_D2H, MB / 2);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(2, 1));
    times(r, k, 0, 50);
    times(r, in, 0, 110);
    times(r, out, 50, 110);
  }

  /**
   * The legacy default stream of a device waits for that device's blocking streams only. gpu0 and
   * gpu1 share the switch's uplink, so their copies move at 5,000 bytes per us each: gpu0's 0.5 MB
   * ends at 10 + 100 = 110 us, gpu1's 1 MB at 160 us (its second half alone).
   *
   * <pre>
   *   gpu0 blocking  [copy 0.5 MB 0-110]
   *   gpu1 blocking  [copy 1 MB 0-160          ]
   *   gpu0 legacy                       [K 110-160]   (not 160-210)
   * </pre>
   */
  @Test
  void theLegacyStreamWaitsOnlyForTheBlockingStreamsOfItsDevice() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int b0 = f.stream(false, true, 0);
    int b1 = f.stream(false, true, 1);
    int legacy = f.legacy();
    int c0 = f.copy(0, b0, TransferKind.PINNED_H2D, MB / 2);
    int c1 = f.copy(0, b1, TransferKind.PINNED_H2D, MB);
    int k = f.kernel(0, legacy, "K", 50_000);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 2));
    times(r, c0, 0, 110);
    times(r, c1, 0, 160);
    times(r, k, 110, 160);
  }

  /**
   * A per-thread default stream behaves as a blocking stream: two threads' per-thread streams do
   * not wait for each other, the legacy stream waits for both, and each waits for the legacy
   * stream's earlier work. Thread 1 launches K2 1 us after thread 0 launched K_legacy.
   *
   * <pre>
   *   thread 0 per-thread  [copy 0-110]
   *   thread 1 per-thread  [K1 0-50]
   *   legacy (thread 0)                [K_legacy 110-130]
   *   thread 1 per-thread                                [K2 130-140]
   * </pre>
   */
  @Test
  void aPerThreadDefaultStreamBehavesAsABlockingStream() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int pt0 = f.perThread();
    int pt1 = f.perThread();
    int legacy = f.legacy();
    int copy = f.copy(0, pt0, TransferKind.PINNED_H2D, MB);
    int k1 = f.kernel(1, pt1, "K1", 50_000);
    int kl = f.kernel(0, legacy, "K_legacy", 20_000);
    f.host(1, 1_000);
    int k2 = f.kernel(1, pt1, "K2", 10_000);
    f.syncDevice(0);
    f.syncDevice(1);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, copy, 0, 110);
    times(r, k1, 0, 50);
    times(r, kl, 110, 130);
    times(r, k2, 130, 140);
  }

  /**
   * cudaStreamWaitEvent makes the waiting stream's next operation wait for the work recorded in the
   * event, not for work issued to the recording stream after the record.
   *
   * <pre>
   *   s1  [K1 0-50] (record e) [K2 50-80]
   *   s2            (wait e)   [copy 50-160]      (not 80-190)
   * </pre>
   */
  @Test
  void aStreamWaitsForTheWorkRecordedNotForLaterWork() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int e = f.event();
    int k1 = f.kernel(0, s1, "K1", 50_000);
    f.record(0, s1, e);
    int k2 = f.kernel(0, s1, "K2", 30_000);
    f.waitEvent(0, s2, e);
    int copy = f.copy(0, s2, TransferKind.PINNED_H2D, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, k1, 0, 50);
    times(r, k2, 50, 80);
    times(r, copy, 50, 160);
  }

  /**
   * Waiting for an event that was never recorded waits for nothing (CUDA: such an event is
   * complete).
   *
   * <pre>
   *   s1  [K1 0-50]
   *   s2  (wait e, never recorded) [copy 0-110]
   * </pre>
   */
  @Test
  void waitingForAnEventNeverRecordedWaitsForNothing() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int e = f.event();
    int k1 = f.kernel(0, s1, "K1", 50_000);
    f.waitEvent(0, s2, e);
    int copy = f.copy(0, s2, TransferKind.PINNED_H2D, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, k1, 0, 50);
    times(r, copy, 0, 110);
  }

  /** The fixture node, with or without implicit synchronization. */
  static Node implicitSync(boolean on) throws Exception {
    return NodeLoader.parse("implicit.yaml", """
        name: implicit
        description: round numbers, implicit synchronization %s
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus:
          - {id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 2,
             concurrent_kernels: false, implicit_sync: %s}
        links: [{between: [cpu0, gpu0], type: smp, bandwidth: "10 GB/s"}]
        measured:
          timed: gpu
          latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}
        """.formatted(on, on), "implicit.yaml");
  }

  /**
   * On a GPU with implicit synchronization (van Werkhoven et al. 2014, sec. IV), an operation that
   * follows a kernel in its stream waits for every kernel issued before it on that GPU, from any
   * stream, until they end (the choice of docs/REPLAY.md). Issued in this order: K1 on s1, K2 on
   * s2, a copy out on s1.
   *
   * <pre>
   *   implicit sync:     s1 [K1 0-50]            [copy out 80-190]
   *                      s2          [K2 50-80]
   *   without:           s1 [K1 0-50][copy out 50-160]
   *                      s2          [K2 50-80]
   * </pre>
   */
  @Test
  void withImplicitSynchronizationAnOperationAfterAKernelWaitsForEveryEarlierKernel() throws Exception {
    for (boolean on : new boolean[] {true, false}) {
      ProgramFixture f = new ProgramFixture();
      int s1 = f.nonBlocking();
      int s2 = f.nonBlocking();
      int k1 = f.kernel(0, s1, "K1", 50_000);
      int k2 = f.kernel(0, s2, "K2", 30_000);
      int out = f.copy(0, s1, TransferKind.PINNED_D2H, MB);
      f.syncDevice(0);
      ReplayResult r = replay(f.build(), implicitSync(on));
      times(r, k1, 0, 50);
      times(r, k2, 50, 80);
      if (on) {
        times(r, out, 80, 190);
      } else {
        times(r, out, 50, 160);
      }
    }
  }

  /**
   * Implicit synchronization holds only an operation that follows a kernel in its stream: a copy
   * that follows a copy does not wait for another stream's kernel.
   *
   * <pre>
   *   s2  [K 0-200                         ]
   *   s1  [copy in 0-110][copy out 110-170]       (not 200-260)
   * </pre>
   */
  @Test
  void withImplicitSynchronizationAnOperationAfterACopyDoesNotWaitForOtherKernels() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int k = f.kernel(0, s2, "K", 200_000);
    int in = f.copy(0, s1, TransferKind.PINNED_H2D, MB);
    int out = f.copy(0, s1, TransferKind.PINNED_D2H, MB / 2);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), implicitSync(true));
    times(r, k, 0, 200);
    times(r, in, 0, 110);
    times(r, out, 110, 170);
  }

  /**
   * Implicit synchronization waits for every kernel issued before the operation, not only the last
   * one issued: K1 is issued first but waits for a copy in its stream, so K2 (issued after it, ready
   * at once) runs and ends first; the copy out that follows K2 must still wait for K1. Two copy
   * engines.
   *
   * <pre>
   *   s1  [copy in 0-110][K1 110-140]
   *   s2  [K2 0-20]                  [copy out 140-250]     (not 20-130)
   * </pre>
   */
  @Test
  void withImplicitSynchronizationAnOperationWaitsForEarlierKernelsThatEndLater() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int in = f.copy(0, s1, TransferKind.PINNED_H2D, MB);
    int k1 = f.kernel(0, s1, "K1", 30_000);
    int k2 = f.kernel(0, s2, "K2", 20_000);
    int out = f.copy(0, s2, TransferKind.PINNED_D2H, MB);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), implicitSync(true));
    times(r, in, 0, 110);
    times(r, k2, 0, 20);
    times(r, k1, 110, 140);
    times(r, out, 140, 250);
  }
}
