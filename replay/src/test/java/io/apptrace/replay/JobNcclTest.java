package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.node.Cluster;
import io.apptrace.proto.MpiOp;
import io.apptrace.proto.NcclOp;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * NCCL's work in a job's replay (docs/JOBS.md, "NCCL"), each rule on a drawn job with its times by
 * hand: an NCCL launch runs on its stream, starts when the last member's stream gets to it, and takes
 * the price of its algorithm over the members' placement; a group's sends and receives are one
 * launch; a trace replayed alone says that its NCCL calls are not priced.
 */
class JobNcclTest {
  private static final double L = 2e-6;
  private static final double O = 0.5e-6;
  private static final double G = 1 / 10e9;
  /** Thakur and Gropp's alpha between two nodes: LogGP's L + 2o. */
  private static final double ALPHA = L + 2 * O;
  private static final long N = 1 << 20;



  private static JobReplayResult replay(Cluster c, RankFixture... ranks) throws Exception {
    return JobOverlap.replay(RankFixture.job(ranks), RankFixture.programs(ranks), c, Replayer.Options.defaults(),
        JobOverlap.MAX_ITERATIONS);
  }

  private static JobReplayResult.NcclTime nccl(JobReplayResult r, NcclOp op) {
    return r.nccl().stream().filter(t -> t.op() == op).findFirst().orElseThrow();
  }

  /**
   * An all-reduce waits on the GPU for its last member:
   *
   * <pre>
   *   rank 0 (node 0): MPI_Init | launch k (K) | ncclAllReduce 1 MiB | cudaStreamSynchronize | MPI_Finalize
   *   rank 1 (node 1): MPI_Init | ncclAllReduce 1 MiB | cudaStreamSynchronize | MPI_Finalize
   *
   *   rank 1's stream gets to its all-reduce at 0, rank 0's at K (after its kernel): it runs from K
   *   to K + T on both, T the ring's 2 (p-1) alpha + 2 (p-1)/p n beta = 2 alpha + n beta (p = 2,
   *   alpha = L + 2o = 3 us, beta = 1 / 10 GB/s: T = 110.9 us); both synchronizations end at K + T
   * </pre>
   */
  @Test
  void anAllReduceStartsWhenItsLastMembersStreamGetsToItAndTakesTheRingsTime() throws Exception {
    Cluster c = RankFixture.cluster(2, 1, "[gpu0]");
    double k = RankFixture.kernel(c, 256.0 * 1024 * 1024);
    RankFixture r0 = new RankFixture(0, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).kernel(256.0 * 1024 * 1024)
        .nccl(NcclOp.NCCL_ALL_REDUCE, -1, N, 1000).sync().mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    RankFixture r1 = new RankFixture(1, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).nccl(NcclOp.NCCL_ALL_REDUCE, -1, N, 1000)
        .sync().mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    JobReplayResult r = replay(c, r0, r1);
    double t = 2 * ALPHA + N * G;
    assertThat(r.ranks()).extracting(JobReplayResult.RankTime::end).allSatisfy(e -> assertThat(e)
        .as("K + T").isCloseTo(k + t, within(2e-9)));
    assertThat(r.ranks().get(0).nccl()).as("rank 0's stream: T").isCloseTo(t, within(2e-9));
    assertThat(r.ranks().get(1).nccl()).as("rank 1's stream waits for rank 0's kernel: K + T")
        .isCloseTo(k + t, within(2e-9));
    JobReplayResult.NcclTime all = nccl(r, NcclOp.NCCL_ALL_REDUCE);
    assertThat(all.operations()).as("one all-reduce of two members").isEqualTo(1);
    assertThat(all.algorithm()).isEqualTo("ring");
    assertThat(all.seconds()).isCloseTo(t, within(1e-15));
    assertThat(all.interNode()).isEqualTo(1);
    assertThat(r.ranks().get(0).kernels()).as("the all-reduce is not a kernel of the rank's").isCloseTo(k,
        within(2e-9));
    assertThat(r.coupling().converged()).isTrue();
  }

  /**
   * A group's sends and receives are one launch, which ends with its last:
   *
   * <pre>
   *   rank i (node i): MPI_Init | ncclGroupStart | ncclSend 1 MiB to 1-i | ncclRecv 1 MiB from 1-i | ncclGroupEnd | sync | MPI_Finalize
   *   each call 1 us on the host: the group runs from 3 us (ncclGroupEnd) on both streams; each
   *   message takes LogGP's L + 2o + (k - 1) G between device buffers (GPUDirect RDMA):
   *   both ranks end at 3 us + L + 2o + (k - 1) G
   * </pre>
   * Two launches instead (a send, then a receive, on each rank's stream) would wait for each other:
   * NCCL deadlocks there too.
   */
  @Test
  void aGroupsSendsAndReceivesAreOneLaunchThatEndsWithItsLastMessage() throws Exception {
    Cluster c = RankFixture.cluster(2, 1, "[gpu0]");
    RankFixture[] ranks = new RankFixture[2];
    for (int i = 0; i < 2; i++) {
      ranks[i] = new RankFixture(i, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).nccl(NcclOp.NCCL_GROUP_START, -1, 0, 1000)
          .nccl(NcclOp.NCCL_SEND, 1 - i, N, 1000).nccl(NcclOp.NCCL_RECV, 1 - i, N, 1000)
          .nccl(NcclOp.NCCL_GROUP_END, -1, 0, 1000).sync().mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    }
    JobReplayResult r = replay(c, ranks);
    double arrival = L + 2 * O + (N - 1) * G;
    assertThat(r.makespan()).isCloseTo(3e-6 + arrival, within(2e-9));
    JobReplayResult.NcclTime p2p = nccl(r, NcclOp.NCCL_SEND);
    assertThat(p2p.operations()).as("two messages, one each way").isEqualTo(2);
    assertThat(p2p.bytes()).isEqualTo(2 * N);
    assertThat(p2p.seconds()).isCloseTo(2 * arrival, within(1e-15));
    assertThat(r.coupling().converged()).isTrue();
  }

  /**
   * Four ranks, two to a node on two nodes: a small all-reduce takes the double binary tree
   * (2 lg p alpha + 2 n beta = 4 alpha + 16 beta), a large one the ring (6 alpha + 3/2 n beta).
   */
  @Test
  void theCheaperOfTreeAndRingOverTheMembersPlacement() throws Exception {
    Cluster c = RankFixture.cluster(2, 2, "[gpu0, gpu1]");
    for (long n : new long[] {8, 8L << 20}) {
      RankFixture[] ranks = new RankFixture[4];
      for (int i = 0; i < 4; i++) {
        ranks[i] = new RankFixture(i, 4).mpi(MpiOp.MPI_INIT, -1, 0, 1000).nccl(NcclOp.NCCL_ALL_REDUCE, -1, n, 1000)
            .sync().mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
      }
      JobReplayResult r = replay(c, ranks);
      double tree = 4 * ALPHA + 2.0 * n * G;
      double ring = 6 * ALPHA + 1.5 * n * G;
      JobReplayResult.NcclTime all = nccl(r, NcclOp.NCCL_ALL_REDUCE);
      assertThat(all.algorithm()).as("%d B", n).isEqualTo(n == 8 ? "double binary tree" : "ring");
      assertThat(r.makespan()).as("%d B", n).isCloseTo(Math.min(tree, ring), within(2e-9));
    }
  }

  @Test
  void aTraceReplayedAloneOrRanksAsTracedSayTheirNcclCallsAreNotPriced() throws Exception {
    Cluster c = RankFixture.cluster(2, 1, "[gpu0]");
    RankFixture r0 = new RankFixture(0, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).nccl(NcclOp.NCCL_ALL_REDUCE, -1, N, 4000)
        .sync().mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    RankFixture r1 = new RankFixture(1, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).nccl(NcclOp.NCCL_ALL_REDUCE, -1, N, 4000)
        .sync().mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    ReplayResult alone = Replayer.replay(RankFixture.programs(r0).get(0), c.node(), Replayer.Options.defaults());
    assertThat(alone.notes()).anySatisfy(n -> assertThat(n).contains("1 NCCL call(s) keep their traced host time")
        .contains("NOT priced"));
    assertThat(alone.makespanNs()).as("the NCCL call's traced 4 us, and the MPI calls' 2 us").isEqualTo(6000);

    JobReplayResult traced = new JobReplay(RankFixture.job(r0, r1), c).run();
    assertThat(traced.nccl()).isEmpty();
    assertThat(traced.notes()).anySatisfy(n -> assertThat(n).contains("NCCL calls are NOT priced"));
    List<String> onNode = replay(c, r0, r1).notes();
    assertThat(onNode).noneSatisfy(n -> assertThat(n).contains("NOT priced"));
  }
}
