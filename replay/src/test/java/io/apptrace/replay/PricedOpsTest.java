package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static io.apptrace.replay.TimelineFixturesTest.node;
import static io.apptrace.replay.TimelineFixturesTest.replay;
import static io.apptrace.replay.TimelineFixturesTest.times;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What each operation costs and where it runs (docs/REPLAY.md, "Durations" and "Devices"; rule
 * class {@link PricedOps}). Round numbers of {@link TimelineFixturesTest}: GPU memory at 100 GB/s,
 * the default launch overhead of 5 us, links of 10 GB/s, L+o 10 us.
 */
class PricedOpsTest {
  /**
   * A kernel without a measured GPU time is priced at the lower bound of docs/COST-MODEL.md,
   * "Kernels": the bytes through its pointer arguments over the GPU's memory bandwidth plus the
   * launch overhead, 10^6 / 10^5 bytes per us + 5 = 15 us; the result marks it and the notes say so.
   *
   * <pre>
   *   s  [K (1 MB through its arguments) 0-15]
   * </pre>
   */
  @Test
  void aKernelWithoutAMeasuredTimeIsPricedAtItsLowerBoundAndMarked() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int k = f.unmeasuredKernel(0, f.nonBlocking(), "K", MB);
    ReplayResult r = replay(f.build(), node(1, 1));
    times(r, k, 0, 15);
    assertThat(r.lowerBound(k)).isTrue();
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("1 kernel launch(es) had no measured GPU time:"
        + " priced at the lower bound"));
  }

  /**
   * --scale-kernels F multiplies every kernel's time: measured 50 and 30 us, scaled by 3.
   *
   * <pre>
   *   [K1 0-150][K2 150-240]
   * </pre>
   */
  @Test
  void scaleKernelsMultipliesEveryKernelsTime() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int k1 = f.kernel(0, s, "K1", 50_000);
    int k2 = f.kernel(0, s, "K2", 30_000);
    ReplayResult r = Replayer.replay(f.build(), node(1, 1), Replayer.Options.defaults().withScaleKernels(3));
    times(r, k1, 0, 150);
    times(r, k2, 150, 240);
  }

  /**
   * A kernel that reads and writes host memory directly (mapped, zero-copy) overlaps that traffic
   * with its work (van Werkhoven et al. 2014, eq. 6): L+o in, the longest of its work and each
   * direction's data time, L+o out. Reading 1 MB (100 us over the link) with 50 us of work: 10 + 100
   * + 10 = 120 us; with 150 us of work: 10 + 150 + 10 = 170 us.
   *
   * <pre>
   *   [10|---- max(work, 1 MB in, nothing out) ----|10]
   * </pre>
   */
  @Test
  void aZeroCopyKernelOverlapsItsHostTrafficWithItsWork() throws Exception {
    for (long work : new long[] {50_000, 150_000}) {
      ProgramFixture f = new ProgramFixture();
      int k = f.mappedKernel(0, f.nonBlocking(), "zero-copy", work, MB, 0);
      ReplayResult r = replay(f.build(), node(1, 1));
      times(r, k, 0, work == 50_000 ? 120 : 170);
    }
  }

  /**
   * A copy is priced by the transfer model for its kind, bytes, NUMA node and GPU (docs/COST-MODEL.md):
   * alone on s822lc, a 64 MiB pinned copy to gpu0 takes {@link TransferModel#estimate}'s time, from
   * the NUMA node local to gpu0 when the trace does not say, and the remote route's when the
   * trace's allocation was on the other socket.
   *
   * <pre>
   *   local:   cpu0 memory -> gpu0    [L+o|data]
   *   remote:  cpu1 memory -> gpu0    [L+o|data .........]
   * </pre>
   */
  @Test
  void aCopyIsPricedByTheTransferModelForItsKindBytesNumaNodeAndGpu() throws Exception {
    Node s822lc = NodeLoader.resolve("s822lc");
    TransferModel m = new TransferModel(s822lc);
    long n = 64L << 20;
    for (int numa : new int[] {-1, 1}) {
      ProgramFixture f = new ProgramFixture();
      f.copy(0, f.nonBlocking(), TransferKind.PINNED_H2D, n);
      ReplayProgram p = withNuma(f.build(), numa);
      double expected = m.estimate(TransferKind.PINNED_H2D, n, new TransferModel.Endpoints(numa, 0, 0),
          TransferModel.Setting.MEASURED).seconds() * 1e9;
      ReplayResult r = Replayer.replay(p, s822lc, Replayer.Options.defaults());
      assertThat(r.ops().get(0).durationNs()).as("NUMA node %d", numa).isCloseTo(expected, within(2.0));
    }
    double local = m.estimate(TransferKind.PINNED_H2D, n, TransferModel.Endpoints.gpu(0),
        TransferModel.Setting.MEASURED).seconds();
    double remote = m.estimate(TransferKind.PINNED_H2D, n, new TransferModel.Endpoints(1, 0, 0),
        TransferModel.Setting.MEASURED).seconds();
    assertThat(remote).as("the scenario needs a remote route that costs more").isGreaterThan(local);
  }

  private static ReplayProgram withNuma(ReplayProgram p, int numa) {
    List<ReplayProgram.Op> ops = new ArrayList<>();
    for (ReplayProgram.Op o : p.ops()) {
      ops.add(new ReplayProgram.Op(o.id(), o.kind(), o.name(), o.stream(), o.device(), o.peerDevice(), o.transfer(),
          o.bytes(), numa, o.measuredStartNs(), o.measuredEndNs(), o.touchedBytes(), o.mappedReadBytes(),
          o.mappedWriteBytes(), o.blocks(), o.synchronous()));
    }
    return new ReplayProgram(ops, p.streams(), p.threads(), p.events());
  }

  /**
   * The trace's device N runs on the node's GPU N; --map gpu1=gpu0 moves device 1's work to gpu0.
   * A copy to device 0 and one to device 1: on their own GPUs they share only the switch's uplink
   * (10 + 200 us each); mapped onto gpu0 they take its one copy engine in turn.
   *
   * <pre>
   *   as traced:  gpu0 copy0 [0-210]      --map gpu1=gpu0:  gpu0 copy0 [0-110][110-220]
   *               gpu1 copy0 [0-210]
   * </pre>
   */
  @Test
  void eachTraceDeviceRunsOnTheNodesGpuOfTheSameNumberUnlessMapped() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int a = f.copy(0, f.stream(false, false, 0), TransferKind.PINNED_H2D, MB);
    int b = f.copy(0, f.stream(false, false, 1), TransferKind.PINNED_H2D, MB);
    f.syncDevice(0);
    ReplayProgram p = f.build();
    ReplayResult traced = replay(p, node(1, 2));
    times(traced, a, 0, 210);
    times(traced, b, 0, 210);
    assertThat(traced.ops().get(b).engine()).isEqualTo("gpu1 copy0");
    ReplayResult mapped = Replayer.replay(p, node(1, 2), Replayer.Options.defaults().withDeviceMap(Map.of(1, 0)));
    times(mapped, a, 0, 110);
    times(mapped, b, 110, 220);
    assertThat(mapped.ops().get(b).engine()).isEqualTo("gpu0 copy0");
  }

  /** A trace that uses a device the node lacks is an error that names both and suggests --map. */
  @Test
  void aDeviceTheNodeLacksIsAnErrorThatNamesBothAndSuggestsMap() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.copy(0, f.stream(false, false, 2), TransferKind.PINNED_H2D, MB);
    ReplayProgram p = f.build();
    assertThatThrownBy(() -> replay(p, node(1, 2))).isInstanceOf(ReplayException.class).hasMessage(
        "the trace uses device 2 (cudaMemcpyAsync, operation 0), which fixture lacks (it has gpu0 to gpu1); map it"
            + " with --map gpu2=gpuN");
    assertThatThrownBy(() -> Replayer.replay(p, node(1, 2), Replayer.Options.defaults().withDeviceMap(Map.of(2, 5))))
        .hasMessageStartingWith("the trace's device 2 is mapped to gpu5 (cudaMemcpyAsync, operation 0)");
  }
}
