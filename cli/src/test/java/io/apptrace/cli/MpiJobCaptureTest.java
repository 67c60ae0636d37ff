package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.job.Job;
import io.apptrace.job.JobTraffic;
import io.apptrace.job.JobTraffic.CollectiveTraffic;
import io.apptrace.job.JobTraffic.PairTraffic;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.proto.MpiOp;
import io.apptrace.trace.TraceReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A real MPI job captured rank by rank: Open MPI's mpirun, and MPICH's mpiexec (Hydra), start
 * `apptrace run --sim -o trace.%r.apptrace` per rank, on the simulated device, with the programs
 * of tracer-native/tests/mpi built against that MPI. Every message and collective the programs
 * make is counted exactly, per pair of ranks, the same under both. Each MPI's tests are skipped
 * (with a message) where it is not installed.
 */
class MpiJobCaptureTest {
  @TempDir Path tmp;

  /** halo.cu: iterations, halo doubles per message. */
  private static final int ITERS = 5;
  private static final long HALO_BYTES = 256 * 8;

  @ParameterizedTest
  @EnumSource(MpiLaunch.Mpi.class)
  void fourRanksOfAHaloExchangeGiveEveryMessageBetweenEveryPairOfRanks(MpiLaunch.Mpi mpi) throws Exception {
    List<Path> traces = MpiLaunch.captured(tmp, mpi, "halo", 4);
    assertThat(traces).hasSize(4);
    for (int r = 0; r < 4; r++) {
      try (TraceReader reader = TraceReader.open(tmp.resolve("trace." + r + ".apptrace"))) {
        var job = reader.header().getJob();
        assertThat(List.of(job.getRank(), job.getWorldSize(), job.getLocalRank(), job.getLocalSize()))
            .containsExactly(r, 4, r, 4);
        assertThat(job.getLauncher()).isEqualTo(mpi.rankLauncher);
        assertThat(job.getHost()).isNotEmpty().isEqualTo(reader.header().getHost());
      }
    }
    JobTraffic t = JobTraffic.of(Job.read(traces));
    assertThat(List.of(t.unmatchedSends(), t.unmatchedReceives(), t.mismatchedCollectives())).containsExactly(0, 0, 0);
    // each rank: ITERS device halos to its left (tag 0) and to its right (tag 1), one host int to
    // its right (MPI_Sendrecv), and rank 0 100 doubles to rank 3 (received with MPI_ANY_SOURCE)
    List<PairTraffic> expected = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      int left = (r + 3) % 4;
      int right = (r + 1) % 4;
      long extraLeft = r == 0 ? 1 : 0;
      expected.add(new PairTraffic(r, left, ITERS + extraLeft, ITERS * HALO_BYTES + extraLeft * 800, ITERS));
      expected.add(new PairTraffic(r, right, ITERS + 1, ITERS * HALO_BYTES + 4, ITERS));
    }
    assertThat(t.pairs()).containsExactlyInAnyOrderElementsOf(expected);
    // MPI_Allreduce on the node's communicator (MPI_Comm_split_type): one operation of 4 ints
    assertThat(t.collectives()).containsExactly(new CollectiveTraffic(MpiOp.MPI_ALLREDUCE, 1, 4, 16));
    for (JobTraffic.RankTraffic r : t.ranks()) {
      assertThat(r.sent()).as("rank %d", r.rank()).isEqualTo(2 * ITERS + 1 + (r.rank() == 0 ? 1 : 0));
      assertThat(r.received()).as("rank %d", r.rank()).isEqualTo(2 * ITERS + 1 + (r.rank() == 3 ? 1 : 0));
    }
    RankTrace rank1 = Job.read(traces).rank(1);
    Map<MpiOp, Long> ops = rank1.calls().stream().collect(Collectors.groupingBy(e -> e.call().getOp(),
        Collectors.counting()));
    assertThat(ops).containsEntry(MpiOp.MPI_IRECV, 2L * ITERS).containsEntry(MpiOp.MPI_ISEND, 2L * ITERS)
        .containsEntry(MpiOp.MPI_WAITALL, (long) ITERS).containsEntry(MpiOp.MPI_INIT, 1L)
        .containsEntry(MpiOp.MPI_FINALIZE, 1L);
    MpiEvent allreduce = rank1.calls().stream().filter(e -> e.call().getOp() == MpiOp.MPI_ALLREDUCE).findFirst()
        .orElseThrow();
    assertThat(allreduce.call().getComm()).as("not MPI_COMM_WORLD").isNotZero();
    assertThat(allreduce.call().getCommSize()).isEqualTo(4);

    Cli stats = Cli.run("stats", tmp.toString());
    assertThat(stats.exit()).as(stats.err()).isZero();
    assertThat(stats.out()).contains("job: 4 ranks").containsPattern("\\n\\s+0\\s+3\\s+6\\s+11,040\\s+5\\n")
        .containsPattern("\\n\\s+3\\s+0\\s+6\\s+10,244\\s+5\\n");
    replaysToAFixedPoint(4);
  }

  /**
   * The captured job replays on Summit's nodes (6 ranks to a node: all ranks together on one), the
   * node and network replays agreeing within a few iterations.
   */
  private void replaysToAFixedPoint(int ranks) throws Exception {
    Cli replay = Cli.run("replay", tmp.toString(), "--cluster", "summit-2racks", "--json");
    assertThat(replay.exit()).as(replay.err()).isZero();
    com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(replay.out());
    assertThat(j.get("ranks")).hasSize(ranks);
    assertThat(j.get("converged").asBoolean()).as(replay.out()).isTrue();
    assertThat(j.get("iterations").asInt()).isBetween(1, 4);
    assertThat(j.get("hiddenSeconds").asDouble()).isBetween(0.0, j.get("communicationSeconds").asDouble());
  }

  @ParameterizedTest
  @EnumSource(MpiLaunch.Mpi.class)
  void anAllreduceLoopOnTwoRanksGivesItsCollectivesWithTheirSizesAndDeviceBuffers(MpiLaunch.Mpi mpi) throws Exception {
    List<Path> traces = MpiLaunch.captured(tmp, mpi, "allreduce", 2);
    Job job = Job.read(traces);
    JobTraffic t = JobTraffic.of(job);
    assertThat(t.pairs()).isEmpty();
    // 4 iterations: an allreduce of one double (host) and of 1024 floats in place (device);
    // then a broadcast of 256 ints and a barrier
    assertThat(t.collectives()).containsExactly(
        new CollectiveTraffic(MpiOp.MPI_BARRIER, 1, 2, 0),
        new CollectiveTraffic(MpiOp.MPI_BCAST, 1, 2, 2 * 1024),
        new CollectiveTraffic(MpiOp.MPI_ALLREDUCE, 8, 16, 2 * 4 * (8 + 4096)));
    for (RankTrace r : job.ranks()) {
      List<MpiEvent> reductions = r.calls().stream().filter(e -> e.call().getOp() == MpiOp.MPI_ALLREDUCE).toList();
      assertThat(reductions).extracting(e -> e.call().getBytes()).containsExactly(8L, 4096L, 8L, 4096L, 8L, 4096L,
          8L, 4096L);
      assertThat(reductions).extracting(e -> e.call().getDeviceBuffer()).containsExactly(false, true, false, true,
          false, true, false, true);
      assertThat(reductions).allSatisfy(e -> assertThat(e.call().getComm()).isZero());
    }
    replaysToAFixedPoint(2);
  }

  @Test
  void percentRWithoutALauncherIsAUsageError() {
    Cli c = Cli.run("run", "--sim", "-o", tmp.resolve("t.%r.apptrace").toString(), "--", "true");
    assertThat(c.exit()).isEqualTo(2);
    assertThat(c.err().strip()).startsWith("apptrace run: -o").contains("%r").doesNotContain("Exception");
    assertThat(c.err().strip().lines()).hasSize(1);
  }
}
