package io.apptrace.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The reference setting of Abdelhafez et al. 2019, sec. IV-C: L+o of each kind is the reference node's measured
 * 1-byte time (docs/COST-MODEL.md, LogGP form {@code T(n) = (L + o) + n * G}), everything else the
 * target's datasheet. Reference node: the bundled {@code s822lc} (NUMA node 0 with GPUs 0 and 1,
 * NUMA node 1 with GPUs 2 and 3: NUMA node 1 and GPU 0 is a remote route).
 */
class ReferenceLatencyTest {
  private static final double US = 1e-6;

  private static MemcpyData.Measurement m(TransferKind k, int numa, int gpu, long bytes, double us) {
    return new MemcpyData.Measurement("s822lc", "synthetic", k, numa, gpu, gpu, bytes, us * US, Timing.GPU);
  }

  private static Node node(String name) throws Exception {
    return NodeLoader.bundled(name).orElseThrow();
  }

  /**
   * <pre>
   *  kind          route                     sizes and times (us)                  L+o
   *  pinned_h2d    NUMA 0 - GPU 0 (local)    1 B: 9, 11, 10; 1 MiB: 40            10 (median of 3)
   *                NUMA 1 - GPU 0 (remote)   1 B: 50                               (not used: local ones exist)
   *  pinned_d2h    NUMA 0 - GPU 1 (local)    1 B: 12, 13, 14, 15                   13.5 (mean of 13 and 14)
   *  pageable_h2d  GPU 0's local node        256 B: 20, 22; 4 KiB: 30              21 (smallest size: 256 B)
   *  pageable_d2h  NUMA 1 - GPU 0 (remote)   256 B: 30                             30 (remote: no local copies)
   * </pre>
   */
  private static final List<MemcpyData.Measurement> ROWS = List.of(
      m(TransferKind.PINNED_H2D, 0, 0, 1, 9), m(TransferKind.PINNED_H2D, 0, 0, 1, 11),
      m(TransferKind.PINNED_H2D, 0, 0, 1, 10), m(TransferKind.PINNED_H2D, 0, 0, 1 << 20, 40),
      m(TransferKind.PINNED_H2D, 1, 0, 1, 50),
      m(TransferKind.PINNED_D2H, 0, 1, 1, 12), m(TransferKind.PINNED_D2H, 0, 1, 1, 13),
      m(TransferKind.PINNED_D2H, 0, 1, 1, 14), m(TransferKind.PINNED_D2H, 0, 1, 1, 15),
      m(TransferKind.PAGEABLE_H2D, -1, 0, 256, 20), m(TransferKind.PAGEABLE_H2D, -1, 0, 256, 22),
      m(TransferKind.PAGEABLE_H2D, -1, 0, 4096, 30),
      m(TransferKind.PAGEABLE_D2H, 1, 0, 256, 30));

  @Test
  void lPlusOIsTheMedianOfTheSmallestCopiesOnLocalRoutes() throws Exception {
    ReferenceLatency r = ReferenceLatency.of(node("s822lc"), ROWS);
    assertThat(r.node()).isEqualTo("s822lc");
    assertThat(r.overheads().keySet()).containsExactly(TransferKind.PINNED_H2D, TransferKind.PINNED_D2H,
        TransferKind.PAGEABLE_H2D, TransferKind.PAGEABLE_D2H);
    assertThat(r.overhead(TransferKind.PINNED_H2D).orElseThrow())
        .isEqualTo(new ReferenceLatency.Overhead(TransferKind.PINNED_H2D, 10 * US, 1, 3));
    ReferenceLatency.Overhead d2h = r.overhead(TransferKind.PINNED_D2H).orElseThrow();
    assertThat(d2h.seconds()).isCloseTo(13.5 * US, offset(1e-15));
    assertThat(d2h.copies()).isEqualTo(4);
    ReferenceLatency.Overhead pageable = r.overhead(TransferKind.PAGEABLE_H2D).orElseThrow();
    assertThat(pageable.seconds()).isCloseTo(21 * US, offset(1e-15));
    assertThat(pageable.bytes()).isEqualTo(256);
    assertThat(pageable.copies()).isEqualTo(2);
    assertThat(r.overhead(TransferKind.PAGEABLE_D2H).orElseThrow().seconds()).isCloseTo(30 * US, offset(1e-15));
    assertThat(r.overhead(TransferKind.D2D)).isEmpty();
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
    assertThat(ReferenceLatency.median(new double[] {1, 2, 3, 4})).isEqualTo(2.5);
    assertThat(ReferenceLatency.median(new double[] {1, 2, 7})).isEqualTo(2);
    assertThat(ReferenceLatency.median(new double[] {5})).isEqualTo(5);
  }

  @Test
  void rowsOfAGpuTheReferenceLacksAreNotUsed() throws Exception {
    ReferenceLatency r = ReferenceLatency.of(node("titan"), List.of(m(TransferKind.PINNED_H2D, -1, 3, 1, 99),
        m(TransferKind.PINNED_H2D, -1, 0, 1, 2)));
    assertThat(r.overhead(TransferKind.PINNED_H2D).orElseThrow().seconds()).isCloseTo(2 * US, offset(1e-15));
  }

  /**
   * Only L+o changes: Abdelhafez et al. 2019, eq. 10 {@code T = L+o + n / BW_eff} and eq. 9 {@code T = L+o + 2n /
   * Memory_BW + n / BW_eff} keep the target's bandwidths; the Peak-BW baseline (docs/COST-MODEL.md)
   * counts the reference L+o too. A kind in use that the reference lacks keeps the target's own.
   */
  @Test
  void appliedToATargetOnlyLPlusOChanges() throws Exception {
    Node summit = node("summit");
    ReferenceLatency r = ReferenceLatency.of(node("s822lc"), ROWS);
    ReferenceLatency.Applied a = r.applyTo(summit, Set.of(TransferKind.PINNED_H2D, TransferKind.PAGEABLE_H2D,
        TransferKind.D2D));
    assertThat(a.fallback()).containsExactly(TransferKind.D2D);
    assertThat(a.node().name()).isEqualTo("summit");
    assertThat(a.node().source()).isEqualTo("summit (with L+o from s822lc)");
    TransferModel own = new TransferModel(summit);
    TransferModel ref = new TransferModel(a.node());
    TransferModel.Endpoints gpu0 = TransferModel.Endpoints.gpu(0);
    for (long n : new long[] {1, 1 << 20, 1L << 30}) {
      for (TransferKind k : List.of(TransferKind.PINNED_H2D, TransferKind.PAGEABLE_H2D)) {
        TransferEstimate o = own.estimate(k, n, gpu0, TransferModel.Setting.DATASHEET);
        TransferEstimate p = ref.estimate(k, n, gpu0, TransferModel.Setting.DATASHEET);
        double lo = r.overhead(k).orElseThrow().seconds();
        assertThat(p.seconds()).as(k + " " + n).isCloseTo(o.seconds() - o.latency().seconds() + lo, offset(1e-12));
        assertThat(p.peakBwSeconds()).as(k + " " + n).isCloseTo(o.peakBwSeconds() - o.latency().seconds() + lo,
            offset(1e-12));
        assertThat(p.backOfEnvelopeSeconds()).isEqualTo(o.backOfEnvelopeSeconds());
      }
    }
    assertThat(ref.latency(TransferKind.D2D).seconds()).isEqualTo(own.latency(TransferKind.D2D).seconds());
    // a staged GPU-to-GPU copy the reference did not measure keeps the target's sum of its two pinned halves
    assertThat(ref.estimate(TransferKind.STAGED_P2P, 1, new TransferModel.Endpoints(-1, 0, 3),
        TransferModel.Setting.DATASHEET).latency().seconds()).isCloseTo(own.latency(TransferKind.PINNED_D2H).seconds()
            + own.latency(TransferKind.PINNED_H2D).seconds(), offset(1e-15));
  }
}
