package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.job.Job;
import io.apptrace.job.JobTraffic;
import io.apptrace.job.JobTraffic.CollectiveTraffic;
import io.apptrace.job.JobTraffic.PairTraffic;
import io.apptrace.job.Message;
import io.apptrace.job.MessageMatching;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.jobgraph.BufferAccess;
import io.apptrace.jobgraph.MpiAccesses;
import io.apptrace.jobgraph.MpiOperation;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * tracer-native/tests/mpi/nonblocking.cu on 4 ranks under Open MPI's mpirun, MPICH's mpiexec and
 * Slurm's srun, each rank under `apptrace run --sim`: its nonblocking collectives, the completions
 * that poll (Waitsome, Testall, Testany, Testsome) and its probes recorded call by call, every
 * request completed once, every message and collective matched, the MPI_Scan apptrace does not
 * record named, and the job replayed on a cluster (the program's 3 iterations: see its header).
 */
class MpiOpsCaptureTest {
  @TempDir Path tmp;

  private static final int RANKS = 4;
  private static final int ITERS = 3;

  @ParameterizedTest
  @EnumSource(MpiLaunch.Mpi.class)
  void nonblockingCollectivesPollingCompletionsAndProbesAreRecordedMatchedAndReplayed(MpiLaunch.Mpi mpi)
      throws Exception {
    List<Path> traces = MpiLaunch.captured(tmp, mpi, "nonblocking", RANKS);
    Job job = Job.read(traces);

    for (RankTrace t : job.ranks()) {
      int r = t.rank();
      int left = (r + RANKS - 1) % RANKS;
      Map<MpiOp, Long> ops = t.calls().stream().collect(Collectors.groupingBy(e -> e.call().getOp(),
          Collectors.counting()));
      String as = "rank " + r + " under " + mpi + ": " + ops;
      // the calls each iteration makes once, exactly
      assertThat(ops).as(as).containsEntry(MpiOp.MPI_INIT, 1L).containsEntry(MpiOp.MPI_FINALIZE, 1L)
          .containsEntry(MpiOp.MPI_IALLREDUCE, (long) ITERS).containsEntry(MpiOp.MPI_IBCAST, (long) ITERS)
          .containsEntry(MpiOp.MPI_IBARRIER, (long) ITERS).containsEntry(MpiOp.MPI_IREDUCE, (long) ITERS)
          .containsEntry(MpiOp.MPI_IALLGATHER, (long) ITERS).containsEntry(MpiOp.MPI_IALLTOALL, (long) ITERS)
          .containsEntry(MpiOp.MPI_ISEND, 4L * ITERS).containsEntry(MpiOp.MPI_IRECV, 2L * ITERS)
          .containsEntry(MpiOp.MPI_RECV, 2L * ITERS).containsEntry(MpiOp.MPI_PROBE, (long) ITERS)
          .containsEntry(MpiOp.MPI_WAIT, 3L * ITERS).doesNotContainKeys(MpiOp.MPI_SEND, MpiOp.MPI_ALLREDUCE);
      assertThat(t.calls()).allSatisfy(e -> assertThat(e.result()).isZero());
      // the polls: as many calls as the run took, the requests they completed exact
      assertThat(completed(t, MpiOp.MPI_WAITSOME)).as(as).isEqualTo(2 * ITERS);
      assertThat(completed(t, MpiOp.MPI_TESTALL)).as(as).isEqualTo(2 * ITERS);
      assertThat(calls(t, MpiOp.MPI_TESTALL).filter(c -> c.getCompletedCount() > 0)).as("Testall: all or none")
          .hasSize(ITERS).allSatisfy(c -> assertThat(c.getCompletedCount()).isEqualTo(2));
      assertThat(calls(t, MpiOp.MPI_TESTANY).filter(c -> c.getCompletedCount() > 0)).hasSize(3 * ITERS)
          .allSatisfy(c -> assertThat(c.getCompletedCount()).isEqualTo(1));
      assertThat(completed(t, MpiOp.MPI_TESTSOME)).as(as).isEqualTo(2 * ITERS);
      // every request started (Isend, Irecv, nonblocking collective) is completed once, by a later call
      List<Long> started = t.calls().stream().map(e -> e.call().getRequest()).filter(q -> q != 0).toList();
      assertThat(started).as(as).hasSize(12 * ITERS).doesNotHaveDuplicates();
      List<Long> done = t.calls().stream().flatMap(e -> e.call().getCompletedList().stream())
          .map(MpiCompletion::getRequest).toList();
      assertThat(done).as(as).containsExactlyInAnyOrderElementsOf(started);
      // the probes: the message from the left neighbour, of the length only it knew
      List<MpiCall> probes = calls(t, MpiOp.MPI_PROBE).toList();
      for (int it = 0; it < ITERS; it++) {
        MpiCall p = probes.get(it);
        assertThat(List.of(p.getPeer(), p.getTag(), (int) p.getBytes(), p.getFound() ? 1 : 0))
            .containsExactly(left, 5, 4 * (it + 1) * (left + 1), 1);
      }
      List<MpiCall> found = calls(t, MpiOp.MPI_IPROBE).filter(MpiCall::getFound).toList();
      assertThat(found).as("one Iprobe per iteration finds the message, from MPI_ANY_SOURCE").hasSize(ITERS)
          .allSatisfy(c -> assertThat(List.of(c.getPeer(), c.getTag(), (int) c.getBytes()))
              .containsExactly(left, 6, 4));
      assertThat(t.unrecorded()).as("MPI_Scan is passed through, counted").containsExactly(Map.entry("MPI_Scan", 1L));
    }

    JobTraffic traffic = JobTraffic.of(job);
    assertThat(List.of(traffic.unmatchedSends(), traffic.unmatchedReceives(), traffic.mismatchedCollectives()))
        .containsExactly(0, 0, 0);
    // to the right each iteration: 512 device doubles (C), (it+1)(r+1) ints (E), one int (F), one double (G)
    List<PairTraffic> pairs = new ArrayList<>();
    for (int r = 0; r < RANKS; r++) {
      pairs.add(new PairTraffic(r, (r + 1) % RANKS, 4L * ITERS, ITERS * 4096L + 4L * 6 * (r + 1) + ITERS * (4 + 8),
          ITERS));
    }
    assertThat(traffic.pairs()).containsExactlyInAnyOrderElementsOf(pairs);
    long calls = (long) RANKS * ITERS;
    assertThat(traffic.collectives()).containsExactly(
        new CollectiveTraffic(MpiOp.MPI_IBARRIER, ITERS, calls, 0),
        new CollectiveTraffic(MpiOp.MPI_IBCAST, ITERS, calls, calls * 64 * 4),
        new CollectiveTraffic(MpiOp.MPI_IREDUCE, ITERS, calls, calls * 8),
        new CollectiveTraffic(MpiOp.MPI_IALLREDUCE, ITERS, calls, calls * 4096 * 4),
        new CollectiveTraffic(MpiOp.MPI_IALLGATHER, ITERS, calls, calls * 4),
        new CollectiveTraffic(MpiOp.MPI_IALLTOALL, ITERS, calls, calls * 4));
    assertThat(traffic.ranks()).allSatisfy(r -> {
      assertThat(r.sent()).isEqualTo(4L * ITERS);
      assertThat(r.received()).isEqualTo(4L * ITERS);
      assertThat(r.collectives()).isEqualTo(6L * ITERS);
    });

    // each Probe found the message the Recv right after it took
    MessageMatching m = MessageMatching.of(job);
    assertThat(m.probes()).hasSize(RANKS * ITERS).allSatisfy(p -> {
      assertThat(p.message()).isNotNegative();
      Message msg = m.messages().get(p.message());
      assertThat(List.of(msg.dest(), msg.recvPost(), msg.tag())).containsExactly(p.rank(), p.call() + 1, 5);
    });

    // in the job's graph an Iallreduce reads each send buffer at its call and writes each receive
    // buffer at the Wait that completed it
    MpiAccesses acc = MpiAccesses.of(job);
    Set<Integer> iallreduces = new HashSet<>();
    for (int i = 0; i < acc.operations().size(); i++) {
      MpiOperation o = acc.operations().get(i);
      if (o.kind() == MpiOperation.Kind.COLLECTIVE && o.name().equals("MPI_Iallreduce")) {
        iallreduces.add(i);
      }
    }
    assertThat(iallreduces).hasSize(ITERS);
    List<BufferAccess> accesses = acc.accesses().stream().filter(a -> iallreduces.contains(a.operation())).toList();
    assertThat(accesses).hasSize(2 * RANKS * ITERS).allSatisfy(a -> {
      MpiOp at = job.rank(a.rank()).calls().get(a.call()).call().getOp();
      assertThat(at).isEqualTo(a.write() ? MpiOp.MPI_WAIT : MpiOp.MPI_IALLREDUCE);
      assertThat(a.bytes()).isEqualTo(4096 * 4);
      assertThat(a.device()).isTrue();
    });

    Cli stats = Cli.run("stats", tmp.toString());
    assertThat(stats.exit()).as(stats.err()).isZero();
    assertThat(stats.out()).contains("MPI functions apptrace passed through unrecorded")
        .containsPattern("\\n\\s+3\\s+MPI_Scan 1\\n").containsPattern("MPI_IALLREDUCE\\s+3\\s+12\\s+196,608");

    Cli replay = Cli.run("replay", tmp.toString(), "--cluster", "summit-2racks", "--json");
    assertThat(replay.exit()).as(replay.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(replay.out());
    assertThat(j.get("converged").asBoolean()).as(replay.out()).isTrue();
    List<String> replayed = new ArrayList<>();
    j.get("collectives").forEach(c -> replayed.add(c.get("op").asText() + " " + c.get("operations").asInt()));
    assertThat(replayed).containsExactlyInAnyOrder("MPI_IBARRIER 3", "MPI_IBCAST 3", "MPI_IREDUCE 3",
        "MPI_IALLREDUCE 3", "MPI_IALLGATHER 3", "MPI_IALLTOALL 3");
    assertThat(j.get("intraNode").get("messages").asInt()).isEqualTo(RANKS * 4 * ITERS);
    List<String> notes = new ArrayList<>();
    j.get("notes").forEach(n -> notes.add(n.asText()));
    assertThat(notes).contains("ranks 0, 1, 2, 3: MPI calls apptrace does not record (MPI_Scan x1) are NOT replayed"
        + " as MPI: their time is counted as the rank's own work and what they send is not priced");
  }

  private static java.util.stream.Stream<MpiCall> calls(RankTrace t, MpiOp op) {
    return t.calls().stream().map(MpiEvent::call).filter(c -> c.getOp() == op);
  }

  private static long completed(RankTrace t, MpiOp op) {
    return calls(t, op).mapToLong(MpiCall::getCompletedCount).sum();
  }
}
