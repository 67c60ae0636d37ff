package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.job.Job;
import io.apptrace.job.JobTraffic;
import io.apptrace.job.JobTraffic.NcclTraffic;
import io.apptrace.job.NcclEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.proto.NcclCall;
import io.apptrace.proto.NcclOp;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * NCCL calls captured in a real MPI job: tracer-native/tests/mpi/nccl_allreduce.cu (MPI gives the
 * NCCL unique id to every rank; ncclAllReduce in a loop, a ring of ncclSend/ncclRecv in a group, a
 * broadcast, an all-gather and a reduce-scatter, every result checked by the program) runs on the
 * simulated device and the simulated NCCL, each rank under `apptrace run --sim`. Every call is
 * recorded exactly, with its bytes and stream, and the communicator has one id on all ranks.
 */
class NcclJobCaptureTest {
  @TempDir Path tmp;

  /** nccl_allreduce.cu's sizes in bytes, and its iterations of ncclAllReduce. */
  private static final int ITERS = 3;
  private static final long REDUCED = 100_000 * 4;
  private static final long RING = 20_000 * 4;
  private static final long BROADCAST = 4096 * 8;
  private static final long GATHERED = 1000 * 4;
  private static final long SCATTERED = 3000 * 4;

  @ParameterizedTest
  @CsvSource({"OPEN_MPI, 4", "MPICH, 2", "SRUN, 2"})
  void everyNcclCallOfEveryRankIsRecordedWithItsBytesStreamAndCommunicator(MpiLaunch.Mpi mpi, int n)
      throws Exception {
    Job job = Job.read(MpiLaunch.captured(tmp, mpi, "nccl_allreduce", n));
    Set<Long> ids = new HashSet<>();
    for (RankTrace t : job.ranks()) {
      int r = t.rank();
      List<NcclCall> calls = t.ncclCalls().stream().map(NcclEvent::call).toList();
      assertThat(calls).extracting(NcclCall::getOp).containsExactly(NcclOp.NCCL_COMM_INIT_RANK,
          NcclOp.NCCL_ALL_REDUCE, NcclOp.NCCL_ALL_REDUCE, NcclOp.NCCL_ALL_REDUCE, NcclOp.NCCL_GROUP_START,
          NcclOp.NCCL_SEND, NcclOp.NCCL_RECV, NcclOp.NCCL_GROUP_END, NcclOp.NCCL_BROADCAST, NcclOp.NCCL_ALL_GATHER,
          NcclOp.NCCL_REDUCE_SCATTER, NcclOp.NCCL_COMM_DESTROY);
      assertThat(t.ncclCalls()).allSatisfy(e -> assertThat(e.result()).isZero());
      assertThat(calls).extracting(NcclCall::getBytes).containsExactly(0L, REDUCED, REDUCED, REDUCED, 0L, RING, RING,
          0L, BROADCAST, GATHERED, SCATTERED * n, 0L);
      assertThat(calls).extracting(NcclCall::getTotalBytes).containsExactly(0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L,
          GATHERED * n, SCATTERED, 0L);
      assertThat(calls).extracting(NcclCall::getPeer).containsExactly(0, 0, 0, 0, 0, (r + 1) % n, (r + n - 1) % n, 0,
          n - 1, 0, 0, 0);
      // the calls on the communicator: this rank, its size, one communicator id and one stream
      List<NcclCall> onComm = calls.stream().filter(c -> c.getOp() != NcclOp.NCCL_GROUP_START
          && c.getOp() != NcclOp.NCCL_GROUP_END).toList();
      assertThat(onComm).allSatisfy(c -> {
        assertThat(c.getRank()).isEqualTo(r);
        assertThat(c.getCommSize()).isEqualTo(n);
        assertThat(c.getCommId()).isNotZero().isEqualTo(calls.get(0).getCommId());
        assertThat(c.getComm()).isNotZero().isEqualTo(calls.get(0).getComm());
      });
      List<NcclCall> onStream = onComm.subList(1, onComm.size() - 1);
      assertThat(onStream).allSatisfy(c -> assertThat(c.getStream()).isNotZero()
          .isEqualTo(onStream.get(0).getStream()));
      ids.add(calls.get(0).getCommId());
    }
    assertThat(ids).as("one communicator, the same id on every rank").hasSize(1);

    JobTraffic traffic = JobTraffic.of(job);
    assertThat(traffic.nccl()).contains(new NcclTraffic(NcclOp.NCCL_ALL_REDUCE, ITERS * n, 0, ITERS * n * REDUCED, 1),
        new NcclTraffic(NcclOp.NCCL_SEND, n, 0, n * RING, 1), new NcclTraffic(NcclOp.NCCL_RECV, n, 0, n * RING, 1),
        new NcclTraffic(NcclOp.NCCL_GROUP_END, n, 0, 0, 0));
    Cli stats = Cli.run("stats", tmp.toString());
    assertThat(stats.exit()).as(stats.err()).isZero();
    assertThat(stats.out()).contains("NCCL calls")
        .containsPattern("\\nncclAllReduce\\s+" + ITERS * n + "\\s+0\\s+" + String.format("%,d", ITERS * n * REDUCED)
            + "\\s+1\\n")
        .containsPattern("\\nncclSend\\s+" + n + "\\s+0\\s+" + String.format("%,d", n * RING) + "\\s+1\\n");
    Cli json = Cli.run("stats", "--json", tmp.toString());
    assertThat(json.exit()).as(json.err()).isZero();
    JsonNode nccl = new ObjectMapper().readTree(json.out()).get("nccl");
    assertThat(nccl).isNotNull();
    assertThat(nccl.get(0).get("op").asText()).isEqualTo("NCCL_ALL_REDUCE");
    assertThat(nccl.get(0).get("calls").asLong()).isEqualTo(ITERS * n);
    assertThat(nccl.get(0).get("bytes").asLong()).isEqualTo(ITERS * n * REDUCED);
  }

  /**
   * The captured job's NCCL work replayed on a cluster of two Summit nodes, two ranks each: every
   * collective once for its four members, every send with its receive, all priced (none left out),
   * each rank's streams busy with them; a faster network makes the collectives that span the nodes
   * faster. One rank's trace replayed alone says its NCCL calls are not priced.
   */
  @org.junit.jupiter.api.Test
  void aJobsNcclWorkIsPricedOnTheClusterAndOneRankAloneSaysItIsNot() throws Exception {
    int n = 4;
    List<Path> traces = MpiLaunch.captured(tmp, MpiLaunch.Mpi.OPEN_MPI, "nccl_allreduce", n);
    Path cluster = tmp.resolve("two-summits.yaml");
    java.nio.file.Files.writeString(cluster, """
        name: two-summits
        node: summit
        nodes: 2
        ranks_per_node: 2
        gpus: [gpu0, gpu1]
        network:
          nic: {bandwidth: "25 GB/s", latency: "1 us"}
          topology: {class: fat-tree, oversubscription: 1, nodes_per_switch: 2}
        """);
    Cli replay = Cli.run("replay", "--json", "--cluster", cluster.toString(), tmp.toString());
    assertThat(replay.exit()).as(replay.err()).isZero();
    JsonNode doc = new ObjectMapper().readTree(replay.out());
    assertThat(doc.get("converged").asBoolean()).as(replay.out()).isTrue();
    java.util.Map<String, JsonNode> byOp = new java.util.HashMap<>();
    doc.get("nccl").forEach(x -> byOp.put(x.get("op").asText(), x));
    assertThat(byOp.keySet()).containsExactlyInAnyOrder("NCCL_ALL_REDUCE", "NCCL_BROADCAST", "NCCL_ALL_GATHER",
        "NCCL_REDUCE_SCATTER", "NCCL_SEND");
    assertThat(byOp.get("NCCL_ALL_REDUCE").get("operations").asLong()).isEqualTo(ITERS);
    assertThat(byOp.get("NCCL_ALL_REDUCE").get("bytes").asLong()).isEqualTo(ITERS * REDUCED);
    assertThat(byOp.get("NCCL_ALL_REDUCE").get("interNode").asLong()).isEqualTo(ITERS);
    assertThat(byOp.get("NCCL_SEND").get("operations").asLong()).as("the ring: one message per rank").isEqualTo(n);
    assertThat(byOp.get("NCCL_SEND").get("algorithm").asText()).isEqualTo("point to point");
    assertThat(byOp.get("NCCL_ALL_GATHER").get("bytes").asLong()).isEqualTo(GATHERED * n);
    byOp.values().forEach(x -> {
      assertThat(x.get("notPriced").asLong()).as(x.toString()).isZero();
      assertThat(x.get("seconds").asDouble()).as(x.toString()).isPositive();
    });
    doc.get("ranks").forEach(r -> assertThat(r.get("nccl").asDouble()).as(r.toString()).isPositive());

    Cli faster = Cli.run("replay", "--json", "--cluster", cluster.toString(), "--nic-bandwidth", "400 GB/s",
        tmp.toString());
    assertThat(faster.exit()).as(faster.err()).isZero();
    JsonNode fast = new ObjectMapper().readTree(faster.out());
    double before = byOp.get("NCCL_ALL_REDUCE").get("seconds").asDouble();
    fast.get("nccl").forEach(x -> {
      if (x.get("op").asText().equals("NCCL_ALL_REDUCE")) {
        assertThat(x.get("seconds").asDouble()).as("16x the NIC bandwidth").isLessThan(before);
      }
    });

    Cli text = Cli.run("replay", "--cluster", cluster.toString(), tmp.toString());
    assertThat(text.out()).contains("NCCL").containsPattern("\\nncclAllReduce\\s+\\S+.*\\s+3\\s+");
    Cli alone = Cli.run("replay", "--node", "summit", traces.get(0).toString());
    assertThat(alone.exit()).as(alone.err()).isZero();
    assertThat(alone.out()).contains("NCCL call(s) keep their traced host time and their communication is NOT priced");
  }

  /** The program checks every result itself: on the simulated NCCL without apptrace too. */
  @ParameterizedTest
  @CsvSource({"OPEN_MPI, 3"})
  void theProgramsResultsAreRightWithoutTheInterposer(MpiLaunch.Mpi mpi, int n) throws Exception {
    assertThat(MpiLaunch.alone(tmp, mpi, "nccl_allreduce", n)).contains("nccl_allreduce: 3 ranks, every result checked");
  }
}
