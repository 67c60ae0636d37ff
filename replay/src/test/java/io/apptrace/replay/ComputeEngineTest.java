package io.apptrace.replay;

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
 * Each GPU's compute engine (docs/REPLAY.md, "Engines"; rule class {@link ComputeEngine}): kernels
 * and memsets run one at a time (a kernel is taken to fill the GPU), the earliest-issued ready one
 * first; where the node allows concurrent kernels, kernels with fewer thread blocks than the GPU
 * has SMs share it. Round numbers of {@link TimelineFixturesTest}.
 */
class ComputeEngineTest {
  /** One GPU of 80 SMs, concurrent kernels allowed or not. */
  static Node concurrent(boolean allowed) throws Exception {
    return NodeLoader.parse("compute.yaml", """
        name: compute
        description: round numbers, 80 SMs
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus:
          - {id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 1,
             sms: 80, concurrent_kernels: %s}
        links: [{between: [cpu0, gpu0], type: smp, bandwidth: "10 GB/s"}]
        measured:
          timed: gpu
          latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}
        """.formatted(allowed), "compute.yaml");
  }

  /**
   * Kernels of two streams run one at a time, even on a GPU that allows concurrent kernels, when
   * the trace does not say how many thread blocks they have (a kernel is then taken to fill the GPU).
   *
   * <pre>
   *   s1  [K1 0-50]
   *   s2           [K2 50-80]
   * </pre>
   */
  @Test
  void kernelsRunOneAtATime() throws Exception {
    for (Node n : new Node[] {node(1, 1), concurrent(true)}) {
      ProgramFixture f = new ProgramFixture();
      int s1 = f.nonBlocking();
      int s2 = f.nonBlocking();
      int k1 = f.kernel(0, s1, "K1", 50_000);
      int k2 = f.kernel(0, s2, "K2", 30_000);
      f.syncDevice(0);
      ReplayResult r = replay(f.build(), n);
      times(r, k1, 0, 50);
      times(r, k2, 50, 80);
      assertThat(r.ops().get(k2).engine()).isEqualTo("gpu0 compute");
    }
  }

  /**
   * A memset runs on the compute engine too, and takes its on-GPU fixed cost plus its bytes written
   * at the memory's streaming rate (docs/COST-MODEL.md, "Each kind of transfer";
   * {@link TransferModel#memsetSeconds}).
   *
   * <pre>
   *   s1  [memset 1 MB 0-m]
   *   s2                   [K m-(m+30)]
   * </pre>
   */
  @Test
  void aMemsetRunsOnTheComputeEngineAtItsFixedCostAndStreamingRate() throws Exception {
    Node n = node(1, 1);
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int m = f.memset(0, s1, 1_000_000);
    int k = f.kernel(0, s2, "K", 30_000);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), n);
    double memsetUs = Math.round(new TransferModel(n).memsetSeconds(1_000_000, n.gpus().get(0)) * 1e9) / 1e3;
    assertThat(memsetUs).as("at least 1 MB at 100 GB/s").isGreaterThanOrEqualTo(10);
    times(r, m, 0, memsetUs);
    times(r, k, memsetUs, memsetUs + 30);
  }

  /**
   * A free compute engine takes the earliest-issued ready kernel, not the one ready first. K_x is
   * issued before K_y but becomes ready at 30 us (after a 0.2 MB copy, 10 + 20 us); K_y is ready at
   * 0; both wait for K1, and K_x runs first.
   *
   * <pre>
   *   s1  [K1 0-50]
   *   s2  [copy 0-30]    [K_x 50-70]
   *   s3                            [K_y 70-90]
   * </pre>
   */
  @Test
  void theEarliestIssuedReadyKernelRunsFirst() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.nonBlocking();
    int s2 = f.nonBlocking();
    int s3 = f.nonBlocking();
    int k1 = f.kernel(0, s1, "K1", 50_000);
    int copy = f.copy(0, s2, TransferKind.PINNED_H2D, 200_000);
    int kx = f.kernel(0, s2, "K_x", 20_000);
    int ky = f.kernel(0, s3, "K_y", 20_000);
    f.syncDevice(0);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, k1, 0, 50);
    times(r, copy, 0, 30);
    times(r, kx, 50, 70);
    times(r, ky, 70, 90);
  }

  /**
   * Where the GPU runs kernels concurrently, kernels with fewer thread blocks than it has SMs share
   * it; a kernel that fills it waits until they are done, and holds it alone; a small kernel issued
   * after it waits for it (the earliest-issued first). Without concurrent kernels, all four run one
   * at a time.
   *
   * <pre>
   *   concurrent (80 SMs):  K1 (40 blocks) [0-50]
   *                         K2 (40 blocks) [0-30]
   *                         K3 (80 blocks)        [50-70]
   *                         K4 (40 blocks)               [70-80]
   *   not concurrent:       K1 [0-50] K2 [50-80] K3 [80-100] K4 [100-110]
   * </pre>
   */
  @Test
  void smallKernelsShareTheGpuWhereItRunsKernelsConcurrently() throws Exception {
    for (boolean allowed : new boolean[] {true, false}) {
      ProgramFixture f = new ProgramFixture();
      int k1 = f.kernel(0, f.nonBlocking(), "K1", 50_000, 40);
      int k2 = f.kernel(0, f.nonBlocking(), "K2", 30_000, 40);
      int k3 = f.kernel(0, f.nonBlocking(), "K3", 20_000, 80);
      int k4 = f.kernel(0, f.nonBlocking(), "K4", 10_000, 40);
      f.syncDevice(0);
      ReplayResult r = replay(f.build(), concurrent(allowed));
      if (allowed) {
        times(r, k1, 0, 50);
        times(r, k2, 0, 30);
        times(r, k3, 50, 70);
        times(r, k4, 70, 80);
      } else {
        times(r, k1, 0, 50);
        times(r, k2, 50, 80);
        times(r, k3, 80, 100);
        times(r, k4, 100, 110);
      }
    }
  }

  /**
   * Under --keep-measured, a kernel kept at its measured time shares the GPU with the others (its
   * time already holds whatever it overlapped in the trace), where the GPU allows concurrent
   * kernels; replayed with modelled times the same kernels run one at a time.
   *
   * <pre>
   *   --keep-measured:  K1 [0-50]          without:  K1 [0-50]
   *                     K2 [0-30]                    K2      [50-80]
   * </pre>
   */
  @Test
  void underKeepMeasuredKernelsKeptAtTheirMeasuredTimesShareTheGpu() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int k1 = f.kernel(0, f.nonBlocking(), "K1", 50_000);
    int k2 = f.kernel(0, f.nonBlocking(), "K2", 30_000);
    f.syncDevice(0);
    ReplayProgram p = f.build();
    ReplayResult kept = Replayer.replay(p, concurrent(true), Replayer.Options.defaults().withKeepMeasured(true));
    times(kept, k1, 0, 50);
    times(kept, k2, 0, 30);
    ReplayResult modelled = Replayer.replay(p, concurrent(true), Replayer.Options.defaults());
    times(modelled, k2, 50, 80);
  }
}
