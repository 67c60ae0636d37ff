package io.apptrace.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.proto.NcclOp;
import org.junit.jupiter.api.Test;

/**
 * The NCCL algorithms' prices (docs/JOBS.md, "NCCL"): the ring of Patarasuk and Yuan (2009) for
 * every collective, the double binary tree of Sanders, Speck and Träff (2009) for all-reduce, the
 * cheaper taken; each formula on drawn p, n, alpha and beta.
 */
class NcclCollectiveCostTest {
  private static final double A = 5e-6;
  private static final double B = 1 / 25e9;

  @Test
  void ringAllReduceIsTwoPassesOfPMinusOneStepsEachMovingAPthOfTheBuffer() {
    for (int p : new int[] {2, 3, 4, 8, 16}) {
      long n = 64L << 20;
      CollectiveCost.Price r = NcclCollectiveCost.of(NcclOp.NCCL_ALL_REDUCE, p, n, 0, A, B);
      assertThat(r.algorithm()).as("p=%d, 64 MiB: the ring's bandwidth term is the smaller", p).isEqualTo("ring");
      assertThat(r.seconds()).as("2 (p-1) alpha + 2 (p-1)/p n beta").isCloseTo(2 * (p - 1) * A
          + 2.0 * (p - 1) / p * n * B, within(1e-15));
    }
  }

  @Test
  void smallAllReducesOnManyRanksTakeTheDoubleBinaryTree() {
    long n = 8;
    CollectiveCost.Price t = NcclCollectiveCost.of(NcclOp.NCCL_ALL_REDUCE, 64, n, 0, A, B);
    assertThat(t.algorithm()).isEqualTo("double binary tree");
    assertThat(t.seconds()).as("2 lg p alpha + 2 n beta, lg 64 = 6").isCloseTo(2 * 6 * A + 2.0 * n * B, within(1e-15));
    // on 64 ranks the ring's 126 alpha outweighs the tree's extra n/32 beta up to n = 114 alpha 32 / beta
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_ALL_REDUCE, 64, 64L << 20, 0, A, B).algorithm())
        .as("64 MiB on 64 ranks: 114 alpha = 570 us against n/32 beta = 84 us").isEqualTo("double binary tree");
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_ALL_REDUCE, 2, n, 0, A, B).algorithm())
        .as("p = 2: the tree's latency 2 lg 2 alpha equals the ring's, and its bandwidth term is twice").isEqualTo("ring");
    // where the two cross on 8 ranks: 2 (7 - 3) alpha = (2 - 14/8) n beta, n = 8 alpha / (0.25 beta)
    double cross = 8 * A / (0.25 * B);
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_ALL_REDUCE, 8, (long) (cross * 0.9), 0, A, B).algorithm())
        .isEqualTo("double binary tree");
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_ALL_REDUCE, 8, (long) (cross * 1.1), 0, A, B).algorithm())
        .isEqualTo("ring");
  }

  @Test
  void broadcastAndReduceArePipelinedRingsAllGatherAndReduceScatterRings() {
    int p = 6;
    long n = 3L << 20;
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_BROADCAST, p, n, 0, A, B).seconds())
        .as("(p-1) alpha + n beta").isCloseTo(5 * A + n * B, within(1e-15));
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_REDUCE, p, n, 0, A, B).seconds())
        .isCloseTo(5 * A + n * B, within(1e-15));
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_ALL_GATHER, p, n, p * n, A, B).seconds())
        .as("(p-1) alpha + (p-1)/p N beta, N the gathered vector").isCloseTo(5 * A + 5.0 / 6 * p * n * B, within(1e-15));
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_REDUCE_SCATTER, p, p * n, n, A, B).seconds())
        .as("(p-1) alpha + (p-1)/p N beta, N the send buffer").isCloseTo(5 * A + 5.0 / 6 * p * n * B, within(1e-15));
  }

  @Test
  void oneRankCostsNothingAndPointToPointIsNotACollective() {
    assertThat(NcclCollectiveCost.of(NcclOp.NCCL_ALL_REDUCE, 1, 1 << 20, 0, A, B).seconds()).isZero();
    assertThat(io.apptrace.job.NcclMatching.isCollective(NcclOp.NCCL_SEND)).isFalse();
    assertThat(io.apptrace.job.NcclMatching.isCollective(NcclOp.NCCL_REDUCE_SCATTER)).isTrue();
    assertThatThrownBy(() -> NcclCollectiveCost.of(NcclOp.NCCL_SEND, 2, 8, 0, A, B))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
