package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.graph.Allocation;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OperationTable;
import io.apptrace.job.Job;
import io.apptrace.jobgraph.JobDvdg;
import io.apptrace.jobgraph.JobDvdgBuilder;
import io.apptrace.jobgraph.NcclOperation;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.NcclOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The graph of a real NCCL job: tracer-native/tests/mpi/nccl_allreduce.cu captured under Open MPI's
 * mpirun on the simulated device and the simulated NCCL ({@link MpiLaunch}), on 2 and 4 ranks. Its
 * NCCL calls are operations joining the ranks' device buffers exactly as the program uses them: the
 * in-place ncclAllReduce loop chains every rank's vector from iteration to iteration; the ring of
 * ncclSend/ncclRecv joins each rank's send buffer to its right neighbour's receive buffer; the
 * broadcast from the last rank writes every other rank's buffer (in place at the root); the
 * all-gather and the reduce-scatter read every send buffer and write every receive buffer. Every
 * value NCCL reads is the one the program's host-to-device copy wrote, every value it writes is
 * the one its device-to-host copy reads, and nothing races: NCCL's work is ordered on its stream.
 * Skipped (with a message) where Open MPI is not installed.
 */
class NcclJobGraphCaptureTest {
  @TempDir static Path tmp;
  private static final Map<Integer, Path> CAPTURED = new HashMap<>();

  /** nccl_allreduce.cu: iterations, and its buffers' bytes. */
  private static final int ITERS = 3;
  private static final long X = 100_000 * 4;
  private static final long RING = 20_000 * 4;
  private static final long BROADCAST = 4096 * 8;
  private static final long GATHER = 1000 * 4;
  private static final long SCATTER = 3000 * 4;

  /** The job of {@code n} ranks' traces (captured once per size). */
  private static synchronized Path captured(int n) throws Exception {
    Path dir = CAPTURED.get(n);
    if (dir == null) {
      dir = Files.createDirectories(tmp.resolve("ranks" + n));
      MpiLaunch.captured(dir, MpiLaunch.Mpi.OPEN_MPI, "nccl_allreduce", n);
      CAPTURED.put(n, dir);
    }
    return dir;
  }

  private static JobDvdg graph(int n) throws Exception {
    return JobDvdgBuilder.build(Job.read(Job.files(List.of(captured(n)))));
  }

  /** The allocation a value of the job's graph is a version of. */
  private static Allocation allocation(JobDvdg g, int v) {
    Dvdg d = g.ranks().get(g.rankOfValue(v)).dvdg();
    return d.allocation(d.values().allocation(g.localValue(v)));
  }

  private static int rankOf(JobDvdg g, int v) {
    return g.ranks().get(g.rankOfValue(v)).rank();
  }

  /** The cudaMalloc'd buffers of {@code bytes} of the rank at {@code rankIndex}, in the order the program made them. */
  private static List<Allocation> buffers(JobDvdg g, int rankIndex, long bytes) {
    return g.ranks().get(rankIndex).dvdg().allocations().stream().filter(a -> a.kind() == MemoryKind.DEVICE
        && a.label().equals("cudaMalloc") && a.bytes() == bytes).toList();
  }

  /** The name of the rank's operation that wrote value {@code v} ("" for none: fresh contents). */
  private static String producerName(JobDvdg g, int v) {
    int op = g.producer(v);
    if (op < 0) {
      return "";
    }
    int r = g.rankOfOperation(op);
    if (r < 0) {
      return g.commOperation(op).name();
    }
    return g.ranks().get(r).dvdg().operations().name(g.localOperation(op));
  }

  /** The names of the rank's own operations that read value {@code v}. */
  private static List<String> readers(JobDvdg g, int v) {
    List<String> out = new ArrayList<>();
    JobDvdg.RankGraph r = g.ranks().get(g.rankOfValue(v));
    for (int local : r.local()) {
      int op = r.jobOperation()[local];
      for (int k = 0; k < g.inputCount(op); k++) {
        if (g.input(op, k) == v) {
          out.add(r.dvdg().operations().name(local));
        }
      }
    }
    return out;
  }

  private static List<Integer> inputs(JobDvdg g, int op) {
    return IntStream.range(0, g.inputCount(op)).map(k -> g.input(op, k)).boxed().toList();
  }

  private static List<Integer> outputs(JobDvdg g, int op) {
    return IntStream.range(0, g.outputCount(op)).map(k -> g.output(op, k)).boxed().toList();
  }

  /** The job's NCCL operations named {@code name}, as operation ids, in order. */
  private static List<Integer> ops(JobDvdg g, String name) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < g.ncclOperations().size(); i++) {
      if (g.ncclOperations().get(i).name().equals(name)) {
        out.add(g.ncclOperationId(i));
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void everyNcclCallIsAnOperationWhoseAccessesAreQueuedOnTheProgramsStreamAndNothingRaces(int n) throws Exception {
    JobDvdg g = graph(n);
    assertThat(g.ncclOperations()).extracting(NcclOperation::name).containsExactlyElementsOf(concat(
        java.util.Collections.nCopies(n, "ncclSend -> ncclRecv"),
        List.of("ncclAllReduce", "ncclAllReduce", "ncclAllReduce", "ncclBroadcast", "ncclAllGather",
            "ncclReduceScatter")));
    List<Integer> everyRank = IntStream.range(0, n).boxed().toList();
    assertThat(g.ncclOperations()).filteredOn(o -> !o.message()).allSatisfy(o -> {
      assertThat(o.members()).isEqualTo(everyRank);
      assertThat(o.incomplete()).isFalse();
    });
    assertThat(g.ncclOperations()).allSatisfy(o -> assertThat(o.matched()).isTrue());
    assertThat(g.ncclAccesses().unrecorded()).as("every buffer's address recorded").isZero();
    assertThat(g.ncclAccesses().mismatchedCollectives()).isZero();
    for (JobDvdg.RankGraph r : g.ranks()) {
      assertThat(r.dvdg().races()).as("rank %d: NCCL's work is ordered on its stream", r.rank()).isEmpty();
      // the program's one stream s, as its NCCL calls name it: every buffer access is queued there
      long s = r.trace().ncclCalls().stream().filter(e -> e.call().getOp() == NcclOp.NCCL_ALL_REDUCE).findFirst()
          .orElseThrow().call().getStream();
      OperationTable ops = r.dvdg().operations();
      List<Integer> accesses = IntStream.range(0, ops.size())
          .filter(op -> r.isAccess(op) && ops.name(op).startsWith("nccl")).boxed().toList();
      assertThat(accesses).as("rank %d: reads and writes of its NCCL buffers", r.rank()).isNotEmpty()
          .allSatisfy(op -> {
            assertThat(ops.stream(op)).isEqualTo(s).isNotZero();
            assertThat(ops.synchronous(op)).isFalse();
          });
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void theAllReduceLoopChainsEveryRanksVectorFromItsUploadThroughEachIterationToItsDownload(int n)
      throws Exception {
    JobDvdg g = graph(n);
    List<Integer> loop = ops(g, "ncclAllReduce");
    assertThat(loop).hasSize(ITERS);
    int previous = -1;
    for (int op : loop) {
      assertThat(inputs(g, op)).extracting(v -> rankOf(g, v)).containsExactlyInAnyOrderElementsOf(range(n));
      assertThat(outputs(g, op)).extracting(v -> rankOf(g, v)).containsExactlyInAnyOrderElementsOf(range(n));
      for (int v : concat(inputs(g, op), outputs(g, op))) {
        assertThat(buffers(g, g.rankOfValue(v), X)).as("each rank's x").containsExactly(allocation(g, v));
      }
      for (int v : inputs(g, op)) {
        if (previous < 0) {
          assertThat(producerName(g, v)).as("the first reads the upload").isEqualTo("cudaMemcpy");
        } else {
          assertThat(g.producer(v)).as("each next reads the previous one's").isEqualTo(previous);
        }
      }
      assertThat(g.view().edgeSet().stream().filter(e -> g.view().operationOf(e) == op)).hasSize(n * n);
      previous = op;
    }
    for (int v : outputs(g, previous)) {
      assertThat(readers(g, v)).as("the download reads the last").containsExactly("cudaMemcpy");
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void theRingJoinsEachRanksSendBufferToItsRightNeighboursReceiveBuffer(int n) throws Exception {
    JobDvdg g = graph(n);
    Map<Integer, Integer> rightOf = new HashMap<>();
    for (int i = 0; i < g.ncclOperations().size(); i++) {
      NcclOperation m = g.ncclOperations().get(i);
      if (!m.message()) {
        continue;
      }
      int op = g.ncclOperationId(i);
      assertThat(m.bytes()).isEqualTo(RING);
      assertThat(inputs(g, op)).hasSize(1);
      assertThat(outputs(g, op)).hasSize(1);
      int in = g.input(op, 0);
      int out = g.output(op, 0);
      assertThat(rankOf(g, in)).isEqualTo(m.source());
      assertThat(rankOf(g, out)).isEqualTo(m.dest());
      rightOf.put(m.source(), m.dest());
      // sendb and recvb: the rank's two buffers of M ints, in that order
      assertThat(allocation(g, in)).isEqualTo(buffers(g, g.rankOfValue(in), RING).get(0));
      assertThat(allocation(g, out)).isEqualTo(buffers(g, g.rankOfValue(out), RING).get(1));
      assertThat(producerName(g, in)).as("the send reads the upload").isEqualTo("cudaMemcpy");
      assertThat(readers(g, out)).as("the download reads what arrived").containsExactly("cudaMemcpy");
    }
    Map<Integer, Integer> ring = new HashMap<>();
    range(n).forEach(r -> ring.put(r, (r + 1) % n));
    assertThat(rightOf).isEqualTo(ring);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void theBroadcastGatherAndScatterReadAndWriteTheBuffersTheProgramPassed(int n) throws Exception {
    JobDvdg g = graph(n);
    int broadcast = ops(g, "ncclBroadcast").get(0);
    assertThat(g.ncclOperation(broadcast).source()).as("the root").isEqualTo(n - 1);
    assertThat(inputs(g, broadcast)).extracting(v -> rankOf(g, v)).containsExactly(n - 1);
    assertThat(outputs(g, broadcast)).extracting(v -> rankOf(g, v)).as("in place: the root's is not written")
        .containsExactlyInAnyOrderElementsOf(range(n - 1));
    for (int v : concat(inputs(g, broadcast), outputs(g, broadcast))) {
      assertThat(buffers(g, g.rankOfValue(v), BROADCAST)).containsExactly(allocation(g, v));
    }
    for (int v : outputs(g, broadcast)) {
      assertThat(readers(g, v)).as("the download on its stream").containsExactly("cudaMemcpyAsync");
    }

    int gather = ops(g, "ncclAllGather").get(0);
    for (int v : inputs(g, gather)) {
      assertThat(buffers(g, g.rankOfValue(v), GATHER)).containsExactly(allocation(g, v));
    }
    for (int v : outputs(g, gather)) {
      assertThat(buffers(g, g.rankOfValue(v), GATHER * n)).containsExactly(allocation(g, v));
      assertThat(g.ranks().get(g.rankOfValue(v)).dvdg().values().bytes(g.localValue(v))).isEqualTo(GATHER * n);
    }
    assertThat(inputs(g, gather)).hasSize(n);
    assertThat(outputs(g, gather)).hasSize(n);

    int scatter = ops(g, "ncclReduceScatter").get(0);
    for (int v : inputs(g, scatter)) {
      assertThat(buffers(g, g.rankOfValue(v), SCATTER * n)).containsExactly(allocation(g, v));
    }
    for (int v : outputs(g, scatter)) {
      assertThat(buffers(g, g.rankOfValue(v), SCATTER)).containsExactly(allocation(g, v));
      assertThat(readers(g, v)).containsExactly("cudaMemcpy");
    }
    assertThat(inputs(g, scatter)).hasSize(n);
    assertThat(outputs(g, scatter)).hasSize(n);
  }

  @ParameterizedTest
  @ValueSource(ints = {4})
  void graphOfTheJobPrintsCountsAndExportsItsNcclOperations(int n) throws Exception {
    Path dir = captured(n);
    Cli text = Cli.run("graph", dir.toString());
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out()).contains(n + " NCCL messages, " + (ITERS + 3) + " NCCL collectives)")
        .contains("NCCL messages: " + n + " matched")
        .contains("NCCL collectives: ncclAllGather 1, ncclAllReduce " + ITERS + ", ncclBroadcast 1,"
            + " ncclReduceScatter 1");

    Cli json = Cli.run("graph", dir.toString(), "--json");
    assertThat(json.exit()).as(json.err()).isZero();
    JsonNode doc = new ObjectMapper().readTree(json.out());
    assertThat(doc.at("/operations/nccl_message").asLong()).isEqualTo(n);
    assertThat(doc.at("/operations/nccl_allreduce").asLong()).isEqualTo(ITERS);
    assertThat(doc.at("/operations/nccl_reduce_scatter").asLong()).isEqualTo(1);
    assertThat(doc.at("/nccl/messages/bytes").asLong()).isEqualTo(n * RING);
    for (int r = 0; r < n; r++) {
      JsonNode rank = doc.at("/ranks/" + r + "/nccl");
      assertThat(rank.path("messages_sent").asLong()).isEqualTo(1);
      assertThat(rank.path("bytes_received").asLong()).isEqualTo(RING);
      assertThat(rank.path("collectives").asLong()).isEqualTo(ITERS + 3);
    }

    Path out = tmp.resolve("nccl" + n + ".json");
    Cli export = Cli.run("graph", dir.toString(), "--json", out.toString(), "--no-symbols");
    assertThat(export.exit()).as(export.err()).isZero();
    List<JsonNode> messages = new ArrayList<>();
    Map<String, Integer> collectiveEdges = new HashMap<>();
    new ObjectMapper().readTree(out.toFile()).path("edges").forEach(e -> {
      String kind = e.path("kind").asText();
      if (kind.equals("nccl_message")) {
        messages.add(e);
      } else if (kind.startsWith("nccl_")) {
        collectiveEdges.merge(kind, 1, Integer::sum);
      }
    });
    assertThat(messages).hasSize(n).allSatisfy(e -> {
      assertThat(e.path("matched").asBoolean()).isTrue();
      assertThat(e.path("dst_rank").asInt()).isEqualTo((e.path("src_rank").asInt() + 1) % n);
    });
    // in-place all-reduces n x n each; the broadcast 1 x (n - 1); all-gather, reduce-scatter n x n
    assertThat(collectiveEdges).containsEntry("nccl_allreduce", ITERS * n * n)
        .containsEntry("nccl_broadcast", n - 1).containsEntry("nccl_allgather", n * n)
        .containsEntry("nccl_reduce_scatter", n * n);
  }

  private static List<Integer> range(int n) {
    return IntStream.range(0, n).boxed().toList();
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
