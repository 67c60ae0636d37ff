package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.job.Job;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.node.ClusterLoader;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The replay prices every message and collective by its formula, exactly: drawn cases of each
 * collective on p ranks of n bytes, and point-to-point messages between and within nodes, are
 * replayed and compared with the formulas written out here (Thakur and Gropp 2003; LogGP).
 */
class JobReplayPricingTest {
  /** One rank per node, full bisection: alpha = L + 2o, beta = 1/B exactly. */
  private static final String CLUSTER = """
      name: test
      node: dgx-a100
      nodes: 64
      ranks_per_node: 1
      network:
        nic: {bandwidth: "10 GB/s", latency: "2 us"}
        loggp: {o: "0.5 us", g: "0 us"}
        topology: {class: fat-tree, oversubscription: 1, nodes_per_switch: 64}
        reduce_bandwidth: "20 GB/s"
      """;

  private static final double ALPHA = 2e-6 + 2 * 0.5e-6;
  private static final double BETA = 1 / 10e9;
  private static final double GAMMA = 1 / 20e9;

  private static int lg(int p) {
    int l = 0;
    while ((1 << l) < p) {
      l++;
    }
    return l;
  }

  /** Thakur and Gropp's cost of each operation as MPICH chooses it. */
  private static double expected(MpiOp op, int p, long n) {
    int l = lg(p);
    double f = (p - 1.0) / p;
    double big = (double) p * n;
    return switch (op) {
      case MPI_BARRIER -> l * ALPHA;
      case MPI_BCAST -> n < 12288 || p < 8 ? l * (ALPHA + n * BETA) : (l + p - 1) * ALPHA + 2 * f * n * BETA;
      case MPI_REDUCE -> l * (ALPHA + n * BETA + n * GAMMA);
      case MPI_ALLREDUCE -> n <= 2048 ? l * (ALPHA + n * BETA + n * GAMMA)
          : 2 * (p - 1) * ALPHA + 2 * f * n * BETA + f * n * GAMMA;
      case MPI_ALLGATHER -> big < 524288 && Integer.bitCount(p) == 1 ? l * ALPHA + f * big * BETA
          : (p - 1) * ALPHA + f * big * BETA;
      case MPI_ALLTOALL -> n <= 256 ? l * ALPHA + n * p / 2.0 * l * BETA : (p - 1) * (ALPHA + n * BETA);
      case MPI_GATHER, MPI_SCATTER -> l * ALPHA + f * big * BETA;
      default -> throw new AssertionError(op);
    };
  }

  private static Cluster cluster() throws Exception {
    return ClusterLoader.parse("test.yaml", CLUSTER);
  }

  private static MpiEvent call(int index, long entryNs, MpiCall c) {
    return new MpiEvent(index, 1, 1, entryNs, 1000, 0, c);
  }

  @Test
  void everyCollectiveTakesItsAlgorithmsTimeOnDrawnCases() throws Exception {
    Random rnd = new Random(24);
    MpiOp[] ops = {MpiOp.MPI_BARRIER, MpiOp.MPI_BCAST, MpiOp.MPI_REDUCE, MpiOp.MPI_ALLREDUCE, MpiOp.MPI_ALLGATHER,
        MpiOp.MPI_ALLTOALL, MpiOp.MPI_GATHER, MpiOp.MPI_SCATTER};
    for (int trial = 0; trial < 80; trial++) {
      MpiOp op = ops[trial % ops.length];
      int p = 2 + rnd.nextInt(63);
      long n = op == MpiOp.MPI_BARRIER ? 0 : 1L << rnd.nextInt(24);
      List<RankTrace> ranks = new ArrayList<>();
      for (int r = 0; r < p; r++) {
        // every rank calls at once, 1 ms after its first call (MPI_Init's traced microsecond is not in
        // the projected timeline: every rank leaves MPI_Init at 0)
        MpiCall init = MpiCall.newBuilder().setOp(MpiOp.MPI_INIT).setRank(r).setCommSize(p).build();
        MpiCall col = MpiCall.newBuilder().setOp(op).setRank(r).setCommSize(p).setBytes(n).build();
        ranks.add(new RankTrace(Path.of("r" + r), r, p, "h", 0, List.of(call(0, 0, init), call(1, 1_000_000, col))));
      }
      JobReplayResult res = new JobReplay(new Job(ranks, p), cluster()).run();
      assertThat(res.collectives()).hasSize(1);
      assertThat(res.collectives().get(0).seconds()).as("%s p=%d n=%d", op, p, n)
          .isCloseTo(expected(op, p, n), within(1e-15));
      assertThat(res.makespan()).isCloseTo(1e-3 - 1e-6 + expected(op, p, n), within(1e-12));
    }
  }

  @Test
  void aMessageBetweenNodesTakesLogGpsTimeAndAReceiveWaitsForIt() throws Exception {
    Random rnd = new Random(7);
    for (int trial = 0; trial < 20; trial++) {
      long k = 1 + rnd.nextInt(1 << 22);
      MpiCall send = MpiCall.newBuilder().setOp(MpiOp.MPI_SEND).setRank(0).setPeer(1).setTag(3).setBytes(k).build();
      MpiCall recv = MpiCall.newBuilder().setOp(MpiOp.MPI_RECV).setRank(1).setPeer(0).setTag(3).setBytes(k).build();
      RankTrace r0 = new RankTrace(Path.of("a"), 0, 2, "h", 0, List.of(call(0, 0, send)));
      RankTrace r1 = new RankTrace(Path.of("b"), 1, 2, "h", 0, List.of(call(0, 0, recv)));
      JobReplayResult res = new JobReplay(new Job(List.of(r0, r1), 2), cluster()).run();
      double logGp = 2e-6 + 2 * 0.5e-6 + (k - 1) * BETA;
      assertThat(res.interNode().messages()).isEqualTo(1);
      assertThat(res.interNode().seconds()).isCloseTo(logGp, within(1e-15));
      assertThat(res.ranks().get(1).end()).as("the receive ends when the message has arrived")
          .isCloseTo(logGp, within(1e-15));
      assertThat(res.ranks().get(0).end()).as("the sender is busy o + k G").isCloseTo(0.5e-6 + k * BETA, within(1e-15));
    }
  }

  @Test
  void ranksOnOneNodeExchangeOverItsLinksAndNotTheNic() throws Exception {
    Cluster c = cluster().with(1, cluster().network());
    Cluster two = new Cluster("t", "", List.of(), c.node(), 1, 2, c.gpus(), c.network());
    MpiCall send = MpiCall.newBuilder().setOp(MpiOp.MPI_SEND).setRank(0).setPeer(1).setBytes(1 << 20)
        .setDeviceBuffer(true).build();
    MpiCall recv = MpiCall.newBuilder().setOp(MpiOp.MPI_RECV).setRank(1).setPeer(0).setBytes(1 << 20)
        .setDeviceBuffer(true).build();
    JobReplayResult res = new JobReplay(new Job(List.of(
        new RankTrace(Path.of("a"), 0, 2, "h", 0, List.of(call(0, 0, send))),
        new RankTrace(Path.of("b"), 1, 2, "h", 1, List.of(call(0, 0, recv)))), 2), two).run();
    assertThat(res.interNode().messages()).isZero();
    assertThat(res.intraNode().messages()).isEqualTo(1);
    assertThat(res.intraNode().paths()).containsOnlyKeys("GPU to GPU in the node");
  }
}
