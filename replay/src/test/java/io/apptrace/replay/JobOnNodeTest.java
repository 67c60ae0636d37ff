package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.job.Job;
import io.apptrace.node.Cluster;
import io.apptrace.node.ClusterLoader;
import io.apptrace.node.Node;
import io.apptrace.proto.MpiOp;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A job's ranks do their CUDA work on the cluster's node model between their MPI calls
 * (docs/JOBS.md, "Replay on a cluster"): the same two-rank job on a cluster of P100 nodes and on
 * one of A100 nodes, its kernels priced at their lower bound (bytes / memory bandwidth + launch
 * overhead, docs/COST-MODEL.md), ends where the kernels and LogGP put it, by hand:
 *
 * <pre>
 *   rank 0 (node 0): MPI_Init | launch k0 (B bytes) | cudaStreamSynchronize | MPI_Send 1 MiB to 1 | MPI_Finalize
 *   rank 1 (node 1): MPI_Init | MPI_Recv from 0 (traced 5 ms) | 100 us host | launch k1 (B bytes) | sync | MPI_Finalize
 *
 *   rank 0: send starts at K = B / bw + launch; busy o + kG; ends at K + o + kG
 *   rank 1: receive ends at K + L + 2o + (k - 1)G; then 100 us / cpu_speed_factor of host work and K:
 *           ends at 2K + L + 2o + (k - 1)G + 100 us / cpu_speed_factor
 * </pre>
 */
class JobOnNodeTest {
  private static final double B = 256.0 * 1024 * 1024;
  private static final long K_BYTES = 1 << 20;
  private static final double L = 2e-6;
  private static final double O = 0.5e-6;
  private static final double G = 1 / 10e9;

  private static Cluster cluster(String node) throws Exception {
    return ClusterLoader.parse("test.yaml", """
        name: test
        node: %s
        nodes: 2
        ranks_per_node: 1
        network:
          nic: {bandwidth: "10 GB/s", latency: "2 us"}
          loggp: {o: "0.5 us", g: "0 us"}
          topology: {class: fat-tree, oversubscription: 1, nodes_per_switch: 2}
        """.formatted(node));
  }

  /** A rank of the two-rank job: its MPI calls of K_BYTES when they send or receive. */
  private static final class Rank {
    final RankFixture r;

    Rank(int rank) {
      r = new RankFixture(rank, 2);
    }

    Rank mpi(MpiOp op, int peer, long tracedNs) {
      r.mpi(op, peer, op == MpiOp.MPI_SEND || op == MpiOp.MPI_RECV ? K_BYTES : 0, tracedNs);
      return this;
    }

    Rank kernelAndSync() {
      r.kernel(B).sync();
      return this;
    }

    Rank host(long ns) {
      r.host(ns);
      return this;
    }
  }

  private static JobReplayResult replay(String node) throws Exception {
    Cluster c = cluster(node);
    Rank r0 = new Rank(0).mpi(MpiOp.MPI_INIT, -1, 1000).kernelAndSync().mpi(MpiOp.MPI_SEND, 1, 3000)
        .mpi(MpiOp.MPI_FINALIZE, -1, 1000);
    Rank r1 = new Rank(1).mpi(MpiOp.MPI_INIT, -1, 1000).mpi(MpiOp.MPI_RECV, 0, 5_000_000).host(100_000)
        .kernelAndSync().mpi(MpiOp.MPI_FINALIZE, -1, 1000);
    return JobOverlap.replay(RankFixture.job(r0.r, r1.r), RankFixture.programs(r0.r, r1.r), c,
        Replayer.Options.defaults(), JobOverlap.MAX_ITERATIONS);
  }

  private static double kernel(String node) throws Exception {
    Node.Gpu g = cluster(node).node().gpus().get(0);
    return B / g.memoryBandwidth() + g.launchOverheadSeconds();
  }

  @Test
  void eachRanksKernelsTakeTheClusterNodesTimeAndTheMessagesWaitForThem() throws Exception {
    for (String node : List.of("dgx1", "dgx-a100")) {
      double k = kernel(node);
      double host = 100e-6 / cluster(node).node().cpuSpeedFactor();
      JobReplayResult r = replay(node);
      assertThat(r.between()).isEqualTo(RankSegments.Source.NODE);
      assertThat(r.ranks().get(0).end()).as("%s: rank 0 sends after its kernel", node)
          .isCloseTo(k + O + K_BYTES * G, within(2e-9));
      assertThat(r.ranks().get(1).end()).as("%s: rank 1 waits for the message, then runs its kernel", node)
          .isCloseTo(k + L + 2 * O + (K_BYTES - 1) * G + host + k, within(3e-9));
      assertThat(r.ranks().get(1).kernels()).isCloseTo(k, within(1e-9));
      assertThat(r.ranks().get(1).pointToPoint()).as("the receive waits from 0 for the message, not its traced 5 ms")
          .isCloseTo(k + L + 2 * O + (K_BYTES - 1) * G, within(2e-9));
      assertThat(r.makespan()).isEqualTo(r.ranks().get(1).end());
    }
    double p100 = kernel("dgx1");
    double a100 = kernel("dgx-a100");
    assertThat(p100).as("the P100's kernel is slower than the A100's").isGreaterThan(1.5 * a100);
    assertThat(replay("dgx1").makespan() - replay("dgx-a100").makespan()).as("two kernels on the critical path")
        .isCloseTo(2 * (p100 - a100), within(5e-9));
  }

  @Test
  void asTracedTheRanksKeepTheTimeBetweenTheirCallsAndNoKernelsAreReported() throws Exception {
    Rank r0 = new Rank(0).mpi(MpiOp.MPI_INIT, -1, 1000).host(7_000_000).mpi(MpiOp.MPI_FINALIZE, -1, 1000);
    JobReplayResult r = new JobReplay(new Job(List.of(r0.r.trace()), 1), cluster("dgx1")).run();
    assertThat(r.between()).isEqualTo(RankSegments.Source.TRACED);
    assertThat(r.ranks().get(0).end()).isCloseTo(7e-3, within(1e-12));
    assertThat(r.ranks().get(0).startup()).as("MPI_Init and MPI_Finalize as traced, apart").isCloseTo(2e-6,
        within(1e-15));
    assertThat(r.ranks().get(0).kernels()).isNaN();
  }
}
