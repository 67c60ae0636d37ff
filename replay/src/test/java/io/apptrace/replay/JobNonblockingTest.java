package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.job.Job;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.node.ClusterLoader;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
import io.apptrace.proto.MpiUnrecorded;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replay of nonblocking collectives, of the completions that poll (Waitsome, Testall, Testany,
 * Testsome) and of probes, on jobs drawn call by call, each time computed here by hand.
 *
 * <p>One rank per node, L = 2 us, o = 0.5 us, G = 1 / (10 GB/s), gamma = 1 / (20 GB/s): a collective
 * costs Thakur and Gropp's formula with alpha = L + 2o = 3 us; a message of k bytes arrives
 * {@code L + 2o + (k - 1) G} after its send starts. Every call is traced 1 us long, so a rank's own
 * work before a call is the traced gap: its entry less the previous call's entry less 1 us (the
 * first call, MPI_Init, returns at 0).
 */
class JobNonblockingTest {
  private static final String CLUSTER = """
      name: test
      node: dgx-a100
      nodes: 4
      ranks_per_node: 1
      network:
        nic: {bandwidth: "10 GB/s", latency: "2 us"}
        loggp: {o: "0.5 us", g: "0 us"}
        topology: {class: fat-tree, oversubscription: 1, nodes_per_switch: 4}
        reduce_bandwidth: "20 GB/s"
      """;
  private static final double O = 0.5e-6;
  private static final double ALPHA = 2e-6 + 2 * O;
  private static final double BETA = 1 / 10e9;
  private static final double GAMMA = 1 / 20e9;
  private static final double US = 1e-6;

  private static Cluster cluster() throws Exception {
    return ClusterLoader.parse("test.yaml", CLUSTER);
  }

  /** A rank's calls, each at its entry (ns), traced 1 us long. */
  private static final class Rank {
    final int rank;
    final List<MpiEvent> calls = new ArrayList<>();

    Rank(int rank, int size) {
      this.rank = rank;
      add(0, MpiCall.newBuilder().setOp(MpiOp.MPI_INIT).setRank(rank).setCommSize(size));
    }

    Rank add(long entryUs, MpiCall.Builder c) {
      calls.add(new MpiEvent(calls.size(), 1, 1, entryUs * 1000, 1000, 0, c.setRank(rank).build()));
      return this;
    }

    RankTrace trace(int size) {
      return new RankTrace(Path.of("trace." + rank), rank, size, "h", 0, calls);
    }
  }

  private static MpiCall.Builder op(MpiOp op) {
    return MpiCall.newBuilder().setOp(op);
  }

  private static MpiCall.Builder completes(MpiOp op, long... requests) {
    MpiCall.Builder b = op(op);
    for (long r : requests) {
      b.addCompleted(MpiCompletion.newBuilder().setRequest(r));
    }
    return b;
  }

  private static MpiCall.Builder receives(MpiOp op, long request, int source, int tag, long bytes) {
    return op(op).addCompleted(MpiCompletion.newBuilder().setRequest(request).setReceive(true).setSource(source)
        .setTag(tag).setBytes(bytes));
  }

  private static JobReplay replay(Rank... ranks) throws Exception {
    List<RankTrace> ts = new ArrayList<>();
    for (Rank r : ranks) {
      ts.add(r.trace(ranks.length));
    }
    return new JobReplay(new Job(ts, ranks.length), cluster());
  }

  /**
   * <pre>
   * rank 0: Iallreduce(1 MiB) at 1000 us ......................... Wait at 1100 us
   * rank 1:                       Iallreduce at 1050 us .. Wait at 1060 us
   * </pre>
   * Each Iallreduce returns after o; the operation starts at the last member's call (1049 us, as
   * replayed) and takes the ring's time; both Waits return when it ends, not when they are called.
   */
  @Test
  void aNonblockingCollectiveStartsAtItsLastMembersCallAndEndsAtTheWaits() throws Exception {
    long n = 1 << 20;
    Rank r0 = new Rank(0, 2).add(1000, op(MpiOp.MPI_IALLREDUCE).setCommSize(2).setBytes(n).setRequest(1))
        .add(1100, completes(MpiOp.MPI_WAIT, 1));
    Rank r1 = new Rank(1, 2).add(1050, op(MpiOp.MPI_IALLREDUCE).setCommSize(2).setBytes(n).setRequest(1))
        .add(1060, completes(MpiOp.MPI_WAIT, 1));
    JobReplay job = replay(r0, r1);
    JobReplayResult res = job.run();

    double ring = 2 * ALPHA + n * BETA + 0.5 * n * GAMMA; // 2 (p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma, p = 2
    double start = 1049 * US; // rank 1's call: 1050 us less MPI_Init's traced 1 us
    assertThat(job.exitSeconds(0, 1)).as("rank 0's Iallreduce returns after o").isCloseTo(999 * US + O, within(1e-15));
    assertThat(job.exitSeconds(1, 1)).as("rank 1's Iallreduce returns after o").isCloseTo(start + O, within(1e-15));
    assertThat(job.exitSeconds(0, 2)).as("rank 0's Wait, called at %s s, waits for the end",
        999 * US + O + 99 * US).isCloseTo(start + ring, within(1e-15));
    assertThat(job.exitSeconds(1, 2)).isCloseTo(start + ring, within(1e-15));
    assertThat(res.collectives()).singleElement().satisfies(c -> {
      assertThat(c.op()).isEqualTo(MpiOp.MPI_IALLREDUCE);
      assertThat(c.algorithm()).isEqualTo("ring");
      assertThat(c.seconds()).isCloseTo(ring, within(1e-15));
    });
    // each rank's time in MPI is collective time: its call's o and its Wait
    assertThat(res.ranks().get(0).collective()).isCloseTo(O + (start + ring - (999 * US + O + 99 * US)), within(1e-15));
    assertThat(res.ranks().get(0).pointToPoint()).isZero();
  }

  /**
   * Work between a nonblocking collective and its Wait hides it: rank 0 works 500 us after its
   * Ibcast, longer than the broadcast, and its Wait returns at once; blocking, the same job ends
   * the broadcast's time later.
   */
  @Test
  void workBetweenTheCallAndItsWaitHidesTheCollective() throws Exception {
    long n = 4096;
    double tree = ALPHA + n * BETA; // binomial tree, p = 2: lg p (alpha + n beta)
    Rank r0 = new Rank(0, 2).add(100, op(MpiOp.MPI_IBCAST).setCommSize(2).setBytes(n).setRequest(1))
        .add(601, completes(MpiOp.MPI_WAITALL, 1));
    Rank r1 = new Rank(1, 2).add(100, op(MpiOp.MPI_IBCAST).setCommSize(2).setBytes(n).setRequest(1))
        .add(601, completes(MpiOp.MPI_WAITALL, 1));
    JobReplay job = replay(r0, r1);
    JobReplayResult res = job.run();
    // Ibcast at 99 us returns at 99.5 us; 500 us of work; the Waitall at 599.5 us finds it done
    assertThat(job.exitSeconds(0, 2)).isCloseTo(599.5 * US, within(1e-15));
    assertThat(res.makespan()).isCloseTo(599.5 * US, within(1e-15));

    Rank b0 = new Rank(0, 2).add(100, op(MpiOp.MPI_BCAST).setCommSize(2).setBytes(n)).add(601, op(MpiOp.MPI_BARRIER)
        .setCommSize(2));
    Rank b1 = new Rank(1, 2).add(100, op(MpiOp.MPI_BCAST).setCommSize(2).setBytes(n)).add(601, op(MpiOp.MPI_BARRIER)
        .setCommSize(2));
    JobReplayResult blocking = replay(b0, b1).run();
    // Bcast 99 us + tree, 500 us of work, then a barrier (lg 2 alpha)
    assertThat(blocking.makespan()).isCloseTo(99 * US + tree + 500 * US + ALPHA, within(1e-15));
  }

  /**
   * <pre>
   * rank 0: Isend(k B, req 1) at 1000 us                              Wait at 1005 us
   * rank 1: Irecv(req 1) at 500 us, Testall at 600 and 700 us (nothing), Testany at 800 us (req 1),
   *         Ibarrier (req 2) at 900 us, Testsome at 950 us (nothing), Waitsome at 2000 us (req 2)
   * </pre>
   * The Tests that completed nothing take o; the Testany that completed the receive ends when the
   * message arrives (999 us + L + 2o + (k-1) G); the Ibarrier's Waitsome ends at the barrier's end.
   */
  @Test
  void testsThatCompleteNothingTakeOAndCompletionsWaitForWhatTheyCompleted() throws Exception {
    long k = 100_000;
    Rank r0 = new Rank(0, 2).add(1000, op(MpiOp.MPI_ISEND).setCommSize(2).setPeer(1).setTag(4).setBytes(k)
        .setRequest(1)).add(1005, completes(MpiOp.MPI_WAIT, 1)).add(3000, op(MpiOp.MPI_IBARRIER).setCommSize(2)
        .setRequest(2)).add(3001, completes(MpiOp.MPI_WAIT, 2));
    Rank r1 = new Rank(1, 2).add(500, op(MpiOp.MPI_IRECV).setCommSize(2).setPeer(0).setTag(4).setBytes(k)
        .setRequest(1)).add(600, op(MpiOp.MPI_TESTALL)).add(700, op(MpiOp.MPI_TESTALL))
        .add(800, receives(MpiOp.MPI_TESTANY, 1, 0, 4, k)).add(900, op(MpiOp.MPI_IBARRIER).setCommSize(2)
        .setRequest(2)).add(950, op(MpiOp.MPI_TESTSOME)).add(2000, completes(MpiOp.MPI_WAITSOME, 2));
    JobReplay job = replay(r0, r1);
    job.run();

    double irecv = 499 * US + O;
    double testall1 = irecv + 99 * US; // its start; it takes o
    assertThat(job.exitSeconds(1, 2)).isCloseTo(testall1 + O, within(1e-15));
    assertThat(job.exitSeconds(1, 3)).isCloseTo(testall1 + O + 99 * US + O, within(1e-15));
    double arrival = 999 * US + ALPHA + (k - 1) * BETA;
    assertThat(job.exitSeconds(1, 4)).as("the Testany that completed the receive waits for its message")
        .isCloseTo(arrival, within(1e-15));
    double ibarrier = arrival + 99 * US;
    assertThat(job.exitSeconds(1, 5)).isCloseTo(ibarrier + O, within(1e-15));
    double testsome = ibarrier + O + 49 * US;
    assertThat(job.exitSeconds(1, 6)).isCloseTo(testsome + O, within(1e-15));
    // rank 0: Isend at 999 us, busy o + k G; its Wait at 1004 us + o waits for that
    double sent = 999 * US + O + k * BETA;
    assertThat(job.exitSeconds(0, 2)).isCloseTo(Math.max(sent, 999 * US + O + 4 * US), within(1e-15));
    double barrierStart = job.exitSeconds(0, 2) + 1994 * US; // rank 0's Ibarrier, the last member's call
    assertThat(barrierStart).isGreaterThan(job.exitSeconds(1, 5));
    assertThat(job.exitSeconds(1, 7)).as("the Waitsome ends at the barrier's end (lg 2 alpha after its last call)")
        .isCloseTo(barrierStart + ALPHA, within(1e-15));
    assertThat(job.exitSeconds(0, 4)).isCloseTo(barrierStart + ALPHA, within(1e-15));
  }

  /**
   * <pre>
   * rank 0: Send(k1, tag 5) at 1000 us, Send(k2, tag 5) at 2000 us
   * rank 1: Iprobe at 200 us (nothing), Probe at 300 us, Recv 10 us after it, Probe, Recv
   * </pre>
   * Each Probe waits for the earliest message not yet received and takes nothing: the Recv after
   * it takes that message, the second Probe waits for the second.
   */
  @Test
  void aProbeWaitsForTheMessageItFoundWithoutTakingItAndIprobeTakesO() throws Exception {
    long k1 = 80_000;
    long k2 = 20_000;
    Rank r0 = new Rank(0, 2).add(1000, op(MpiOp.MPI_SEND).setCommSize(2).setPeer(1).setTag(5).setBytes(k1))
        .add(2000, op(MpiOp.MPI_SEND).setCommSize(2).setPeer(1).setTag(5).setBytes(k2));
    Rank r1 = new Rank(1, 2).add(200, op(MpiOp.MPI_IPROBE).setCommSize(2).setPeer(-1).setTag(5))
        .add(300, op(MpiOp.MPI_PROBE).setCommSize(2).setPeer(0).setTag(5).setBytes(k1).setFound(true))
        .add(311, op(MpiOp.MPI_RECV).setCommSize(2).setPeer(0).setTag(5).setBytes(k1))
        .add(400, op(MpiOp.MPI_PROBE).setCommSize(2).setPeer(0).setTag(5).setBytes(k2).setFound(true))
        .add(411, op(MpiOp.MPI_RECV).setCommSize(2).setPeer(0).setTag(5).setBytes(k2));
    JobReplay job = replay(r0, r1);
    JobReplayResult res = job.run();

    assertThat(job.exitSeconds(1, 1)).as("Iprobe takes o").isCloseTo(199 * US + O, within(1e-15));
    double first = 999 * US + ALPHA + (k1 - 1) * BETA;
    assertThat(job.exitSeconds(1, 2)).as("the Probe waits for the first message").isCloseTo(first, within(1e-15));
    assertThat(job.exitSeconds(1, 3)).as("the Recv, 10 us of work later, finds it there")
        .isCloseTo(first + 10 * US, within(1e-15));
    // rank 0's second send starts when its first is done (o + k1 G) and 999 us of work later
    double second = 999 * US + O + k1 * BETA + 999 * US;
    double arrival2 = second + ALPHA + (k2 - 1) * BETA;
    assertThat(job.exitSeconds(1, 4)).as("the second Probe waits for the second message")
        .isCloseTo(arrival2, within(1e-15));
    assertThat(job.exitSeconds(1, 5)).isCloseTo(arrival2 + 10 * US, within(1e-15));
    assertThat(res.interNode().messages()).as("a probe moves nothing").isEqualTo(2);
  }

  /** Nonblocking and blocking collectives of a communicator are matched in one order; an Iallreduce never matches an Allreduce. */
  @Test
  void blockingAndNonblockingCollectivesShareTheCommunicatorsOrder() throws Exception {
    Rank r0 = new Rank(0, 2).add(10, op(MpiOp.MPI_IALLREDUCE).setCommSize(2).setBytes(8).setRequest(1))
        .add(20, op(MpiOp.MPI_BARRIER).setCommSize(2)).add(30, completes(MpiOp.MPI_WAIT, 1));
    Rank r1 = new Rank(1, 2).add(10, op(MpiOp.MPI_IALLREDUCE).setCommSize(2).setBytes(8).setRequest(7))
        .add(20, op(MpiOp.MPI_BARRIER).setCommSize(2)).add(30, completes(MpiOp.MPI_WAIT, 7));
    JobMatching m = JobMatching.of(new Job(List.of(r0.trace(2), r1.trace(2)), 2));
    assertThat(m.collectives()).extracting(io.apptrace.job.Collective::op)
        .containsExactly(MpiOp.MPI_IALLREDUCE, MpiOp.MPI_BARRIER);

    Rank a0 = new Rank(0, 2).add(10, op(MpiOp.MPI_IALLREDUCE).setCommSize(2).setBytes(8).setRequest(1));
    Rank a1 = new Rank(1, 2).add(10, op(MpiOp.MPI_ALLREDUCE).setCommSize(2).setBytes(8));
    io.apptrace.job.CollectiveMatching cm = io.apptrace.job.CollectiveMatching.of(
        new Job(List.of(a0.trace(2), a1.trace(2)), 2));
    assertThat(cm.collectives()).isEmpty();
    assertThat(cm.mismatched()).isEqualTo(1);
  }

  /** A rank whose MPI_Finalize lists MPI functions apptrace passed through unrecorded is named in the notes. */
  @Test
  void unrecordedMpiFunctionsAreNamedInTheNotes() throws Exception {
    Rank r0 = new Rank(0, 2).add(10, op(MpiOp.MPI_FINALIZE).addUnrecorded(MpiUnrecorded.newBuilder()
        .setFunction("MPI_Put").setCalls(12)).addUnrecorded(MpiUnrecorded.newBuilder().setFunction("MPI_Win_fence")
        .setCalls(3)));
    Rank r1 = new Rank(1, 2).add(10, op(MpiOp.MPI_FINALIZE));
    JobReplayResult res = replay(r0, r1).run();
    assertThat(res.notes()).filteredOn(n -> n.contains("MPI calls apptrace does not record")).containsExactly(
        "rank 0: MPI calls apptrace does not record (MPI_Put x12, MPI_Win_fence x3) are NOT replayed as MPI: their"
            + " time is counted as the rank's own work and what they send is not priced");
  }
}
