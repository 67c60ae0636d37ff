package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.node.Cluster;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.proto.MpiOp;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of a job's replay that couple the node and the network (docs/JOBS.md, "Replay on a
 * cluster"), each on a drawn job with its times by hand.
 */
class JobOverlapTest {
  private static final long K_BYTES = 1 << 20;
  private static final double L = 2e-6;
  private static final double O = 0.5e-6;
  private static final double G = 1 / 10e9;
  /** LogGP (Alexandrov et al. 1995): a 1 MiB message arrives L + 2o + (k - 1)G after its send starts. */
  private static final double ARRIVAL = L + 2 * O + (K_BYTES - 1) * G;
  /** ... and its sender is busy o + kG. */
  private static final double SEND = O + K_BYTES * G;



  /**
   * Communication hidden behind a kernel in flight:
   *
   * <pre>
   *   rank 0 (node 0): MPI_Init | launch k (K) | MPI_Send 1 MiB to 1 | MPI_Recv 1 MiB from 1 | cudaStreamSynchronize | MPI_Finalize
   *   rank 1 (node 1): MPI_Init | MPI_Recv from 0 | MPI_Send to 0 | MPI_Finalize
   *
   *   rank 0's send: 0 .. o + kG; its message reaches rank 1 at A = L + 2o + (k - 1)G
   *   rank 1 sends back at A; rank 0's receive ends at 2A (k = 1 MiB, L = 2 us, o = 0.5 us,
   *   G = 1 / 10 GB/s: 2A = 215.7 us)
   *   the kernel (1 GiB on an A100: K = 1 GiB / 1555.2 GB/s + launch = 0.69 ms) runs from 0 to K,
   *   while rank 0 is in its MPI calls:
   *     with overlap (now):  rank 0 ends at max(K, 2A) = K       (0.69 ms)
   *     without (before):    rank 0 ends at 2A + K, the sum: its synchronization waited all of K
   *                          after the receive                   (0.91 ms)
   * </pre>
   */
  private static JobReplayResult sendRecvWhileAKernelRuns(Cluster c, double kernelBytes, int maxIterations)
      throws Exception {
    RankFixture r0 = new RankFixture(0, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).kernel(kernelBytes)
        .mpi(MpiOp.MPI_SEND, 1, K_BYTES, 3000).mpi(MpiOp.MPI_RECV, 1, K_BYTES, 3000).sync()
        .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    RankFixture r1 = new RankFixture(1, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).mpi(MpiOp.MPI_RECV, 0, K_BYTES, 3000)
        .mpi(MpiOp.MPI_SEND, 0, K_BYTES, 3000).mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    return JobOverlap.replay(RankFixture.job(r0, r1), RankFixture.programs(r0, r1), c, Replayer.Options.defaults(),
        maxIterations);
  }

  @Test
  void anMpiCallsWaitOverlapsTheKernelItsRankLaunchedBefore() throws Exception {
    Cluster c = RankFixture.cluster(2, 1, "[gpu0]");
    double k = RankFixture.kernel(c, 1024.0 * 1024 * 1024);
    assertThat(k).as("the kernel is longer than the exchange").isGreaterThan(2 * ARRIVAL);
    JobReplayResult r = sendRecvWhileAKernelRuns(c, 1024.0 * 1024 * 1024, JobOverlap.MAX_ITERATIONS);
    assertThat(r.ranks().get(0).pointToPoint()).as("send, then the receive waits for rank 1's reply")
        .isCloseTo(2 * ARRIVAL, within(2e-9));
    assertThat(r.ranks().get(0).end()).as("max(K, 2A), not K + 2A").isCloseTo(k, within(2e-9));
    assertThat(r.makespan()).isCloseTo(k, within(2e-9));
    assertThat(r.ranks().get(1).end()).as("rank 1's send back").isCloseTo(ARRIVAL + SEND, within(2e-9));
    assertThat(r.ranks().get(0).hidden()).as("all of rank 0's communication ran beside its kernel")
        .isCloseTo(2 * ARRIVAL, within(2e-9));
    assertThat(r.ranks().get(1).hidden()).as("rank 1 has no GPU work").isZero();
    assertThat(r.coupling().converged()).isTrue();
    assertThat(r.coupling().iterations()).as("iteration 0; 1, where the synchronization waits K - 2A and the"
        + " calls after it return 2A earlier; 2, which moves no call's return").isEqualTo(3);

    JobReplayResult before = sendRecvWhileAKernelRuns(c, 1024.0 * 1024 * 1024, 1);
    assertThat(before.makespan()).as("iteration 0 alone, as before: the sum K + 2A").isCloseTo(k + 2 * ARRIVAL,
        within(2e-9));
    assertThat(before.coupling().converged()).as("one iteration cannot show the calls' times settled").isFalse();
    assertThat(before.coupling().largestChangeSeconds()).as("rank 0's MPI_Finalize: held until 2A + K, not 0")
        .isCloseTo(k + 2 * ARRIVAL, within(1e-9));
  }

  @Test
  void aKernelShorterThanTheExchangeEndsInsideItAndTheRankEndsWithTheReceive() throws Exception {
    Cluster c = RankFixture.cluster(2, 1, "[gpu0]");
    double k = RankFixture.kernel(c, 16.0 * 1024 * 1024);
    assertThat(k).isLessThan(2 * ARRIVAL);
    JobReplayResult r = sendRecvWhileAKernelRuns(c, 16.0 * 1024 * 1024, JobOverlap.MAX_ITERATIONS);
    assertThat(r.ranks().get(0).end()).as("max(K, 2A) = 2A").isCloseTo(2 * ARRIVAL, within(2e-9));
    assertThat(r.ranks().get(0).hidden()).as("the kernel's K of the 2A").isCloseTo(k, within(2e-9));
    assertThat(r.coupling().converged()).isTrue();
  }

  /** A rank that synchronizes before its MPI calls has nothing in flight: its segments never change. */
  @Test
  void aSegmentNeverCountsTheCallsTimeTwice() throws Exception {
    Cluster c = RankFixture.cluster(2, 1, "[gpu0]");
    RankFixture r0 = new RankFixture(0, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).host(50_000)
        .mpi(MpiOp.MPI_SEND, 1, K_BYTES, 3000).host(70_000).mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    RankFixture r1 = new RankFixture(1, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).mpi(MpiOp.MPI_RECV, 0, K_BYTES, 3000)
        .host(20_000).mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    JobReplayResult r = JobOverlap.replay(RankFixture.job(r0, r1), RankFixture.programs(r0, r1), c,
        Replayer.Options.defaults(), JobOverlap.MAX_ITERATIONS);
    double cpu = c.node().cpuSpeedFactor();
    assertThat(r.ranks().get(0).end()).as("50 us, the send, 70 us").isCloseTo((50e-6 + 70e-6) / cpu + SEND,
        within(2e-9));
    assertThat(r.ranks().get(0).compute()).isCloseTo((50e-6 + 70e-6) / cpu, within(2e-9));
    assertThat(r.ranks().get(1).end()).as("the message's arrival, 20 us").isCloseTo(50e-6 / cpu + ARRIVAL
        + 20e-6 / cpu, within(2e-9));
    assertThat(r.coupling().iterations()).as("nothing in flight, nothing shared: iteration 0 is the fixed point")
        .isEqualTo(1);
    assertThat(r.coupling().converged()).isTrue();
  }

  /** The node of the PCIe-sharing scenario: two GPUs behind one switch, whose link to the CPU both copies cross. */
  private static final String SHARED_PCIE = """
      name: shared-pcie
      description: two GPUs behind one PCIe switch
      cpus:
        - {id: cpu0, model: Xeon, cores: 8, numa_node: 0, memory_bandwidth: "200 GB/s"}
      gpus:
        - {id: gpu0, model: A100, memory: "40 GiB", memory_bandwidth: "1555 GB/s", copy_engines: 2}
        - {id: gpu1, model: A100, memory: "40 GiB", memory_bandwidth: "1555 GB/s", copy_engines: 2}
      switches:
        - {id: plx0, type: pcie}
      links:
        - {between: [cpu0, plx0], type: pcie, generation: 3, lanes: 16}
        - {between: [plx0, gpu0], type: pcie, generation: 3, lanes: 16}
        - {between: [plx0, gpu1], type: pcie, generation: 3, lanes: 16}
      measured:
        source: made up for the test
        timed: gpu
        latency: {pinned_h2d: "10 us"}
      """;

  private static JobReplayResult copies(int ranksPerNode, String gpus, long bytes) throws Exception {
    Cluster c = sharedPcie(2, ranksPerNode, gpus);
    RankFixture[] ranks = new RankFixture[2];
    for (int i = 0; i < 2; i++) {
      ranks[i] = new RankFixture(i, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).copy(TransferKind.PINNED_H2D, bytes).sync()
          .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    }
    return JobOverlap.replay(RankFixture.job(ranks), RankFixture.programs(ranks), c, Replayer.Options.defaults(),
        JobOverlap.MAX_ITERATIONS);
  }

  /**
   * Two ranks of one node copy to their GPUs at once, through the switch's one link to the CPU:
   *
   * <pre>
   *   rank r (node 0, gpu r): MPI_Init | cudaMemcpyAsync 256 MiB pinned host to device | sync | MPI_Finalize
   *   alone (a node each):  T1 = (L + o) + n G      (L + o = 10 us, G = 1 / the route's effective bandwidth)
   *   together:             T2 = (L + o) + 2 n G    (the shared link carries both: each gets half)
   * </pre>
   */
  @Test
  void twoRanksOfOneNodeShareItsPcieLinkAndCopyLongerTogetherThanAlone() throws Exception {
    long n = 256L << 20;
    double alone = copies(1, "[gpu0, gpu1]", n).makespan();
    JobReplayResult together = copies(2, "[gpu0, gpu1]", n);
    double fixed = 10e-6;
    double nG = alone - fixed;
    assertThat(n / nG).as("n G: about 256 MiB over PCIe 3 x16's 15.75 GB/s less its packets' overhead")
        .isBetween(12e9, 15.75e9);
    assertThat(together.ranks()).extracting(JobReplayResult.RankTime::node).containsExactly(0, 0);
    assertThat(together.makespan()).as("(L + o) + 2 n G").isCloseTo(fixed + 2 * nG, within(2e-9));
    assertThat(together.ranks().get(0).copies()).as("each copy's time, shared").isCloseTo(fixed + 2 * nG,
        within(2e-9));
  }

  /**
   * A message's copy on the node shares the node's links with a rank's own copy:
   *
   * <pre>
   *   rank 0 (node 0, gpu0): MPI_Init | MPI_Send n B of device memory to rank 1 | MPI_Finalize
   *   rank 1 (node 0, gpu1): MPI_Init | cudaMemcpyAsync n B device to pinned host | sync | MPI_Recv n B into host memory | MPI_Finalize
   *
   *   the message is the MPI library's device-to-host copy on gpu0, from 0; rank 1's own copy from
   *   gpu1, from 0: both cross the switch's one link to the CPU, each at half its bandwidth, and
   *   both take what one copy of 2n alone takes (f + 2nG, f the copy's fixed part);
   *   the message arrives 2o + f + 2nG after its send, not 2o + f + nG as priced alone
   * </pre>
   * Where no rank of the node copies, the message's copy is priced alone, as before.
   */
  @Test
  void aMessagesCopyOnTheNodeSharesItsLinkWithARanksOwnCopy() throws Exception {
    long n = 128L << 20;
    double alone = rankOwnCopy(n, false).ranks().get(1).copies();
    double twice = rankOwnCopy(2 * n, false).ranks().get(1).copies();
    JobReplayResult r = rankOwnCopy(n, true);
    assertThat(r.ranks().get(1).copies()).as("rank 1's copy, sharing the link: as long as 2n alone")
        .isCloseTo(twice, within(2e-9));
    assertThat(r.intraNode().messages()).isEqualTo(1);
    assertThat(r.intraNode().seconds()).as("the message: 2o + f + 2nG").isCloseTo(2 * O + twice, within(2e-9));
    assertThat(r.coupling().converged()).isTrue();

    Cluster c = sharedPcie(1, 2, "[gpu0, gpu1]");
    RankFixture s0 = new RankFixture(0, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).mpi(MpiOp.MPI_SEND, 1, n, 3000, true)
        .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    RankFixture s1 = new RankFixture(1, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).mpi(MpiOp.MPI_RECV, 0, n, 3000, false)
        .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    JobReplayResult quiet = JobOverlap.replay(RankFixture.job(s0, s1), RankFixture.programs(s0, s1), c,
        Replayer.Options.defaults(), JobOverlap.MAX_ITERATIONS);
    assertThat(quiet.intraNode().seconds()).as("no copy of the ranks': the message's price alone, 2o + f + nG")
        .isCloseTo(2 * O + alone, within(2e-9));
  }

  /** Rank 1 copies n B from gpu1 to pinned memory; rank 0 sends it n B from gpu0's memory when {@code send}. */
  private static JobReplayResult rankOwnCopy(long n, boolean send) throws Exception {
    Cluster c = sharedPcie(1, 2, "[gpu0, gpu1]");
    RankFixture r0 = new RankFixture(0, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000);
    RankFixture r1 = new RankFixture(1, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).copy(TransferKind.PINNED_D2H, n).sync();
    if (send) {
      r0.mpi(MpiOp.MPI_SEND, 1, n, 3000, true);
      r1.mpi(MpiOp.MPI_RECV, 0, n, 3000, false);
    }
    r0.mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    r1.mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    return JobOverlap.replay(RankFixture.job(r0, r1), RankFixture.programs(r0, r1), c, Replayer.Options.defaults(),
        JobOverlap.MAX_ITERATIONS);
  }

  /** A cluster of {@link #SHARED_PCIE} nodes. */
  private static Cluster sharedPcie(int nodes, int ranksPerNode, String gpus) throws Exception {
    Cluster base = RankFixture.cluster(nodes, ranksPerNode, gpus);
    Node node = NodeLoader.parse("shared-pcie.yaml", SHARED_PCIE, "shared-pcie.yaml");
    return new Cluster(base.name(), base.description(), base.sources(), node, base.nodes(), base.ranksPerNode(),
        base.gpus(), base.network());
  }

  /**
   * Two ranks the cluster maps to one GPU share its compute engine:
   *
   * <pre>
   *   rank r (node 0, gpu0): MPI_Init | launch k (K) | sync | MPI_Finalize
   *   on GPUs of their own: both end at K; on one GPU: one kernel after the other, the last at 2K
   * </pre>
   */
  @Test
  void twoRanksOnOneGpuShareItsComputeEngine() throws Exception {
    double bytes = 512.0 * 1024 * 1024;
    for (String gpus : List.of("[gpu0, gpu1]", "[gpu0]")) {
      Cluster c = RankFixture.cluster(1, 2, gpus);
      RankFixture[] ranks = new RankFixture[2];
      for (int i = 0; i < 2; i++) {
        ranks[i] = new RankFixture(i, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).kernel(bytes).sync()
            .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
      }
      JobReplayResult r = JobOverlap.replay(RankFixture.job(ranks), RankFixture.programs(ranks), c,
          Replayer.Options.defaults(), JobOverlap.MAX_ITERATIONS);
      double k = RankFixture.kernel(c, bytes);
      assertThat(r.makespan()).as(gpus).isCloseTo(gpus.equals("[gpu0]") ? 2 * k : k, within(2e-9));
    }
  }

  /**
   * The ranks of a node leave their first MPI call together: rank 1 reaches MPI_Init 300 us after
   * rank 0, whose kernel launched after MPI_Init then runs while rank 1 catches up in the node's
   * replay but, in the job, from 0 like rank 1's: both end at K.
   */
  @Test
  void theRanksOfANodeLeaveMpiInitTogether() throws Exception {
    Cluster c = RankFixture.cluster(1, 2, "[gpu0, gpu1]");
    double bytes = 512.0 * 1024 * 1024;
    RankFixture r0 = new RankFixture(0, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).kernel(bytes).sync()
        .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    RankFixture r1 = new RankFixture(1, 2).host(300_000).mpi(MpiOp.MPI_INIT, -1, 0, 1000).kernel(bytes).sync()
        .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    JobReplayResult r = JobOverlap.replay(RankFixture.job(r0, r1), RankFixture.programs(r0, r1), c,
        Replayer.Options.defaults(), JobOverlap.MAX_ITERATIONS);
    double k = RankFixture.kernel(c, bytes);
    assertThat(r.ranks().get(0).end()).isCloseTo(k, within(2e-9));
    assertThat(r.ranks().get(1).end()).isCloseTo(k, within(2e-9));
    assertThat(r.coupling().converged()).isTrue();
  }

  /**
   * A node is settled when holding its MPI calls longer can only move each rank's later work by as
   * much: its ranks share nothing (each its own GPU, no copies) and none has GPU work in flight at
   * an MPI call (MiniFE-like ranks: a kernel, a synchronization, then the exchange). Replayed with
   * its calls held for other times, its segments are the same, so the job replay stops there.
   *
   * <pre>
   *   rank r (node 0, gpu r): MPI_Init | launch k | sync | 30 us | MPI_Send/Recv 1 MiB | launch k | sync | MPI_Finalize
   * </pre>
   */
  @Test
  void aNodeWithNothingSharedAndNothingInFlightAtItsMpiCallsIsSettled() throws Exception {
    Cluster c = RankFixture.cluster(1, 2, "[gpu0, gpu1]");
    RankFixture[] ranks = new RankFixture[2];
    for (int i = 0; i < 2; i++) {
      ranks[i] = new RankFixture(i, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).kernel(64e6).sync().host(30_000)
          .mpi(i == 0 ? MpiOp.MPI_SEND : MpiOp.MPI_RECV, 1 - i, K_BYTES, 3000).kernel(64e6).sync()
          .mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    }
    NodeRanks node = NodeRanks.of(RankFixture.job(ranks).ranks(), RankFixture.programs(ranks), c, java.util.Map.of());
    assertThat(node.sharesNothing()).isTrue();
    RankOnNode.Replayed zero = RankOnNode.replay(node, c, Replayer.Options.defaults(), new long[2][3], new long[2][0], null);
    RankOnNode.Replayed held = RankOnNode.replay(node, c, Replayer.Options.defaults(),
        new long[][] {{0, 97_000, 0}, {40_000, 133_000, 0}}, new long[2][0], null); // held until these times on the node's clock
    assertThat(zero.settled()).isTrue();
    for (int k = 0; k < 2; k++) {
      assertThat(held.segments().get(k).sameTimes(zero.segments().get(k))).as("rank %d", k).isTrue();
    }

    RankFixture[] shared = new RankFixture[2];
    for (int i = 0; i < 2; i++) {
      shared[i] = new RankFixture(i, 2).mpi(MpiOp.MPI_INIT, -1, 0, 1000).copy(TransferKind.PINNED_H2D, 1 << 26)
          .sync().mpi(MpiOp.MPI_FINALIZE, -1, 0, 1000);
    }
    assertThat(NodeRanks.of(RankFixture.job(shared).ranks(), RankFixture.programs(shared), c, java.util.Map.of())
        .sharesNothing()).as("copies share the node's links").isFalse();
  }
}
