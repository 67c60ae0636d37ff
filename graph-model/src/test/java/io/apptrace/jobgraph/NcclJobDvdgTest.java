package io.apptrace.jobgraph;

import static io.apptrace.graph.TraceFixture.constPtr;
import static io.apptrace.graph.TraceFixture.ptr;
import static io.apptrace.jobgraph.JobGraphs.value;
import static io.apptrace.jobgraph.JobGraphs.reads;
import static io.apptrace.jobgraph.JobGraphs.writes;
import static io.apptrace.jobgraph.JobGraphs.op;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.apptrace.graph.CallSites;
import io.apptrace.graph.DvdgAttributes;
import io.apptrace.graph.GraphMlExport;
import io.apptrace.graph.GraphMlReadBack;
import io.apptrace.graph.Race;
import io.apptrace.graph.TraceFixture;
import io.apptrace.job.Job;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiOp;
import io.apptrace.proto.NcclCall;
import io.apptrace.proto.NcclOp;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jgrapht.graph.DefaultEdge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NCCL calls as operations of a job's graph, ranks drawn event by event: a collective is matched
 * across ranks by its communicator's id and its order on it, and reads every member's send buffer
 * and writes every member's receive buffer as NCCL defines the operation; an ncclSend is matched to
 * the ncclRecv of its receiver by (communicator, sender -> receiver, order); every access is in
 * stream order on the call's stream, so a kernel queued after the call on that stream reads what it
 * wrote, and a kernel queued before it on that stream wrote what it reads, with no synchronization.
 */
class NcclJobDvdgTest {
  @TempDir Path tmp;

  private static final long COMM = 0xc0ffee0000000011L;
  /** The stream every rank issues its NCCL calls and kernels on (cudaStreamCreate'd). */
  private static final long S = 0x7f0000L;

  private static NcclCall.Builder call(NcclOp op, int rank, int size) {
    return NcclCall.newBuilder().setOp(op).setComm(0x9000 + rank).setCommId(COMM).setRank(rank).setCommSize(size)
        .setStream(S);
  }

  private static NcclCall.Builder allReduce(int rank, int size, long send, long recv, long bytes) {
    return call(NcclOp.NCCL_ALL_REDUCE, rank, size).setBytes(bytes).setSendBuffer(send).setRecvBuffer(recv);
  }

  private static NcclCall.Builder send(int rank, int size, int peer, long buffer, long bytes) {
    return call(NcclOp.NCCL_SEND, rank, size).setPeer(peer).setBytes(bytes).setSendBuffer(buffer);
  }

  private static NcclCall.Builder recv(int rank, int size, int peer, long buffer, long bytes) {
    return call(NcclOp.NCCL_RECV, rank, size).setPeer(peer).setBytes(bytes).setRecvBuffer(buffer);
  }

  /** ncclGroupStart and ncclGroupEnd: on no communicator (rank -1), as the interposer records them. */
  private static NcclCall.Builder group(NcclOp op) {
    return NcclCall.newBuilder().setOp(op).setRank(-1);
  }

  /** Rank {@code r} of a job of {@code size}, its communicator made, its stream S created. */
  private static TraceFixture rank(int r, int size) {
    return new TraceFixture().rank(r, size).nccl(call(NcclOp.NCCL_COMM_INIT_RANK, r, size).setStream(0))
        .streamCreate(S, 0);
  }

  private JobDvdg build(TraceFixture... ranks) throws Exception {
    List<Path> files = new ArrayList<>();
    for (TraceFixture r : ranks) {
      files.add(r.write(tmp.resolve("trace." + files.size() + ".apptrace"), false));
    }
    return JobDvdgBuilder.build(Job.read(files));
  }

  /** Every NCCL operation as "name: inputs -> outputs". */
  private static List<String> nccl(JobDvdg g) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < g.ncclOperations().size(); i++) {
      int op = g.ncclOperationId(i);
      out.add(g.ncclOperations().get(i).name() + ": " + String.join(" ", reads(g, op)) + " -> "
          + String.join(" ", writes(g, op)));
    }
    return out;
  }



  /** The races of a rank's graph as "writer -> reader", in the job's operation ids. */
  private static List<String> races(JobDvdg g, int rank) {
    JobDvdg.RankGraph r = g.ranks().get(rank);
    List<String> out = new ArrayList<>();
    for (Race race : r.dvdg().races()) {
      out.add(r.jobOperation()[race.writer()] + " -> " + r.jobOperation()[race.reader()]);
    }
    return out;
  }

  /**
   * Three ranks reduce a device vector in place on stream S, between a memset and a kernel queued
   * on S with no synchronization: one operation reads the three memset versions and writes a new
   * version of each vector, which each rank's kernel reads; nothing races.
   */
  @Test
  void anAllReduceReadsEveryRanksVectorAndWritesTheVersionItsStreamsNextKernelReads() throws Exception {
    List<TraceFixture> ranks = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      ranks.add(rank(r, 3).cudaMalloc(0x10000, 4096).memsetAsync(0x10000, 4096, S)
          .kernel(3, "_Z3sumPKf", constPtr())
          .nccl(allReduce(r, 3, 0x10000, 0x10000, 4096))
          .launch(3, S, 0x10000)
          .nccl(call(NcclOp.NCCL_COMM_DESTROY, r, 3).setStream(0)));
    }
    JobDvdg g = build(ranks.toArray(TraceFixture[]::new));
    assertThat(nccl(g)).containsExactly(
        "ncclAllReduce: r0:alloc0:v1 r1:alloc0:v1 r2:alloc0:v1 -> r0:alloc0:v2 r1:alloc0:v2 r2:alloc0:v2");
    NcclOperation all = g.ncclOperations().get(0);
    assertThat(all.kindKey()).isEqualTo("nccl_allreduce");
    assertThat(all.members()).containsExactly(0, 1, 2);
    assertThat(all.comm()).isEqualTo(COMM);
    assertThat(all.bytes()).isEqualTo(4096);
    int id = g.ncclOperationId(0);
    assertThat(g.view().edgeSet().stream().filter(e -> g.view().operationOf(e) == id))
        .as("every member's vector to every member's new version").hasSize(9);
    for (int r = 0; r < 3; r++) {
      int sum = op(g, r, "sum", 0);
      assertThat(reads(g, sum)).as("rank %d", r).containsExactly("r" + r + ":alloc0:v2");
      assertThat(g.producer(g.input(sum, 0))).isEqualTo(id);
      assertThat(races(g, r)).as("rank %d: all on one stream", r).isEmpty();
    }
    JobDvdgSummary s = JobDvdgSummary.of(g);
    assertThat(s.operations()).containsEntry("nccl_allreduce", 1L).containsEntry("nccl_message", 0L)
        .containsEntry("mpi_collective", 0L).containsEntry("kernel", 3L);
    assertThat(s.nccl().collectives()).containsExactly(Map.entry("ncclAllReduce", 1L));
    assertThat(s.ranks()).allSatisfy(r -> assertThat(r.nccl().collectives()).isEqualTo(1));
    assertThat(s.nccl().incompleteCollectives()).isZero();
  }

  /**
   * Rank 0 sends A (1 KiB) then B (512 B) to rank 1, which receives into X then Y; rank 1 sends D
   * to rank 2, rank 2 sends E to rank 0: a ring inside groups. The k-th send from a rank to a peer
   * is the k-th receive the peer posted from it; group starts and ends, communicator inits and
   * destroys are no operations.
   *
   * <pre>
   *   r0: A --> r1: X      r0: B --> r1: Y      r1: D --> r2: F      r2: E --> r0: C
   * </pre>
   */
  @Test
  void sendsMatchReceivesByCommunicatorSenderReceiverAndOrder() throws Exception {
    TraceFixture r0 = rank(0, 3).cudaMalloc(0x10000, 1024).cudaMalloc(0x20000, 512).cudaMalloc(0x30000, 256)
        .memsetAsync(0x10000, 1024, S).memsetAsync(0x20000, 512, S)
        .nccl(group(NcclOp.NCCL_GROUP_START))
        .nccl(send(0, 3, 1, 0x10000, 1024)).nccl(send(0, 3, 1, 0x20000, 512)).nccl(recv(0, 3, 2, 0x30000, 256))
        .nccl(group(NcclOp.NCCL_GROUP_END));
    TraceFixture r1 = rank(1, 3).cudaMalloc(0x10000, 1024).cudaMalloc(0x20000, 512).cudaMalloc(0x30000, 256)
        .memsetAsync(0x30000, 256, S)
        .nccl(group(NcclOp.NCCL_GROUP_START))
        .nccl(recv(1, 3, 0, 0x10000, 1024)).nccl(recv(1, 3, 0, 0x20000, 512)).nccl(send(1, 3, 2, 0x30000, 256))
        .nccl(group(NcclOp.NCCL_GROUP_END));
    TraceFixture r2 = rank(2, 3).cudaMalloc(0x10000, 256).cudaMalloc(0x20000, 256).memsetAsync(0x20000, 256, S)
        .nccl(group(NcclOp.NCCL_GROUP_START))
        .nccl(recv(2, 3, 1, 0x10000, 256)).nccl(send(2, 3, 0, 0x20000, 256))
        .nccl(group(NcclOp.NCCL_GROUP_END));
    JobDvdg g = build(r0, r1, r2);
    assertThat(nccl(g)).containsExactly(
        "ncclSend -> ncclRecv: r0:alloc0:v1 -> r1:alloc0:v1",
        "ncclSend -> ncclRecv: r0:alloc1:v1 -> r1:alloc1:v1",
        "ncclSend -> ncclRecv: r1:alloc2:v1 -> r2:alloc0:v1",
        "ncclSend -> ncclRecv: r2:alloc1:v1 -> r0:alloc2:v1");
    assertThat(g.ncclOperations()).extracting(NcclOperation::bytes).containsExactly(1024L, 512L, 256L, 256L);
    assertThat(g.ncclOperations()).extracting(NcclOperation::source).containsExactly(0, 0, 1, 2);
    assertThat(g.ncclOperations()).extracting(NcclOperation::dest).containsExactly(1, 1, 2, 0);
    assertThat(g.ncclOperations()).allSatisfy(o -> {
      assertThat(o.kindKey()).isEqualTo("nccl_message");
      assertThat(o.matched()).isTrue();
    });
    JobDvdgSummary s = JobDvdgSummary.of(g);
    assertThat(s.nccl().messages()).isEqualTo(4);
    assertThat(s.nccl().messageBytes()).isEqualTo(1024 + 512 + 256 + 256);
    assertThat(s.nccl().unmatched()).isEmpty();
    assertThat(s.ranks().get(0).nccl()).isEqualTo(new NcclSummary.RankTraffic(2, 1536, 1, 256, 0));
    assertThat(s.operations()).containsEntry("nccl_message", 4L).containsEntry("mpi_message", 0L);
  }

  /**
   * A kernel queued on S writes the buffer that an ncclSend queued after it on S sends, with no
   * synchronization between: NCCL's read is ordered after the kernel by the stream, so it reads
   * the kernel's version and nothing races. An MPI_Send of the same buffer reads it on the host
   * during the call, while the kernel may still be running: a race.
   */
  @Test
  void anNcclSendReadsWhatAKernelQueuedBeforeItOnItsStreamWroteWithoutARace() throws Exception {
    TraceFixture r0 = rank(0, 2).cudaMalloc(0x10000, 4096).memsetAsync(0x10000, 4096, S)
        .kernel(4, "_Z4fillPf", ptr()).launch(4, S, 0x10000)
        .nccl(send(0, 2, 1, 0x10000, 4096));
    TraceFixture r1 = rank(1, 2).cudaMalloc(0x70000, 4096).kernel(3, "_Z3sumPKf", constPtr())
        .nccl(recv(1, 2, 0, 0x70000, 4096)).launch(3, S, 0x70000);
    JobDvdg g = build(r0, r1);
    int message = g.ncclOperationId(0);
    assertThat(g.inputCount(message)).isEqualTo(1);
    assertThat(g.producer(g.input(message, 0))).as("the fill kernel's version").isEqualTo(op(g, 0, "fill", 0));
    assertThat(races(g, 0)).isEmpty();
    int sum = op(g, 1, "sum", 0);
    assertThat(reads(g, sum)).containsExactly("r1:alloc0:v1");
    assertThat(g.producer(g.input(sum, 0))).isEqualTo(message);
    assertThat(races(g, 1)).isEmpty();

    TraceFixture m0 = new TraceFixture().rank(0, 2).streamCreate(S, 0).cudaMalloc(0x10000, 4096)
        .memsetAsync(0x10000, 4096, S).kernel(4, "_Z4fillPf", ptr()).launch(4, S, 0x10000)
        .mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_SEND).setCommSize(2).setPeer(1).setBytes(4096)
            .setDeviceBuffer(true).setSendBuffer(0x10000));
    TraceFixture m1 = new TraceFixture().rank(1, 2).cudaMalloc(0x70000, 4096)
        .mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_RECV).setCommSize(2).setPeer(0).setBytes(4096)
            .setDeviceBuffer(true).setRecvBuffer(0x70000));
    JobDvdg mpi = build(m0, m1);
    assertThat(races(mpi, 0)).as("the MPI_Send, host-ordered, races with the kernel")
        .containsExactly(op(mpi, 0, "fill", 0) + " -> " + mpi.mpiOperationId(0));
  }

  /**
   * An ncclRecv on S writes its buffer in S's order: a kernel on a non-blocking stream that does
   * not wait for S races with it; the same kernel launched after cudaStreamSynchronize(S) does not.
   */
  @Test
  void aKernelOnAnotherStreamRacesWithAReceiveUntilTheReceivesStreamIsSynchronized() throws Exception {
    long other = 0x7e0000L;
    TraceFixture r0 = rank(0, 2).cudaMalloc(0x10000, 4096).memsetAsync(0x10000, 4096, S).streamSynchronize(S)
        .nccl(send(0, 2, 1, 0x10000, 4096));
    TraceFixture r1 = rank(1, 2).streamCreate(other, 1).cudaMalloc(0x70000, 4096)
        .kernel(3, "_Z3sumPKf", constPtr())
        .nccl(recv(1, 2, 0, 0x70000, 4096))
        .launch(3, other, 0x70000)
        .streamSynchronize(S)
        .launch(3, other, 0x70000);
    JobDvdg g = build(r0, r1);
    int message = g.ncclOperationId(0);
    assertThat(reads(g, op(g, 1, "sum", 0))).containsExactly("r1:alloc0:v1");
    assertThat(reads(g, op(g, 1, "sum", 1))).containsExactly("r1:alloc0:v1");
    assertThat(races(g, 1)).containsExactly(message + " -> " + op(g, 1, "sum", 0));
  }

  /**
   * Two ranks: ncclBroadcast from rank 1 (not in place), ncclReduce to rank 0, ncclAllGather and
   * ncclReduceScatter. Each reads and writes the buffers NCCL's documentation gives it: the
   * broadcast reads the root's send buffer and writes both receive buffers; the reduce reads both
   * send buffers and writes the root's receive buffer; the all-gather writes comm_size x its bytes
   * of each receive buffer; the reduce-scatter reads each whole send buffer and writes one block.
   */
  @Test
  void rootedCollectivesAndGathersReadAndWriteTheBuffersNcclDefines() throws Exception {
    List<TraceFixture> ranks = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      ranks.add(rank(r, 2).cudaMalloc(0x10000, 1024).cudaMalloc(0x20000, 1024).cudaMalloc(0x30000, 2048)
          .cudaMalloc(0x40000, 2048).cudaMalloc(0x50000, 1024)
          .memsetAsync(0x10000, 1024, S).memsetAsync(0x40000, 2048, S)
          .nccl(call(NcclOp.NCCL_BROADCAST, r, 2).setPeer(1).setBytes(1024).setSendBuffer(0x10000)
              .setRecvBuffer(0x20000))
          .nccl(call(NcclOp.NCCL_REDUCE, r, 2).setPeer(0).setBytes(1024).setSendBuffer(0x10000)
              .setRecvBuffer(0x20000))
          .nccl(call(NcclOp.NCCL_ALL_GATHER, r, 2).setBytes(1024).setTotalBytes(2048).setSendBuffer(0x10000)
              .setRecvBuffer(0x30000))
          .nccl(call(NcclOp.NCCL_REDUCE_SCATTER, r, 2).setBytes(2048).setTotalBytes(1024)
              .setSendBuffer(0x40000).setRecvBuffer(0x50000)));
    }
    JobDvdg g = build(ranks.toArray(TraceFixture[]::new));
    // each rank's allocations: 0 send, 1 receive, 2 gathered, 3 scattered from, 4 scattered to
    assertThat(nccl(g)).containsExactly(
        "ncclBroadcast: r1:alloc0:v1 -> r0:alloc1:v1 r1:alloc1:v1",
        "ncclReduce: r0:alloc0:v1 r1:alloc0:v1 -> r0:alloc1:v2",
        "ncclAllGather: r0:alloc0:v1 r1:alloc0:v1 -> r0:alloc2:v1 r1:alloc2:v1",
        "ncclReduceScatter: r0:alloc3:v1 r1:alloc3:v1 -> r0:alloc4:v1 r1:alloc4:v1");
    assertThat(g.ncclOperations()).extracting(NcclOperation::kindKey).containsExactly("nccl_broadcast",
        "nccl_reduce", "nccl_allgather", "nccl_reduce_scatter");
    assertThat(g.ncclOperations()).extracting(NcclOperation::source).as("the roots").containsExactly(1, 0, -1, -1);
    int gather = g.ncclOperationId(2);
    int scatter = g.ncclOperationId(3);
    for (int k = 0; k < 2; k++) {
      assertThat(g.commOutput(gather, k).bytes()).isEqualTo(2048);
      assertThat(g.commInput(scatter, k).bytes()).isEqualTo(2048);
      assertThat(g.commOutput(scatter, k).bytes()).isEqualTo(1024);
    }
  }

  /**
   * Rank 2's trace is missing from a job of 3: rank 0's ncclSend to it and rank 1's ncclRecv from
   * it stay in the graph with their one end (the receive still writes the version its kernel
   * reads); the all-reduce joins the two members present and is counted incomplete; a collective
   * whose members called different operations is left out and counted.
   */
  @Test
  void ncclCallsOfAMissingRankAreCountedAndNamedNeverDropped() throws Exception {
    TraceFixture r0 = rank(0, 3).cudaMalloc(0x10000, 1024).memsetAsync(0x10000, 1024, S)
        .nccl(send(0, 3, 2, 0x10000, 1024))
        .nccl(allReduce(0, 3, 0x10000, 0x10000, 1024))
        .nccl(call(NcclOp.NCCL_BROADCAST, 0, 3).setPeer(0).setBytes(1024).setSendBuffer(0x10000)
            .setRecvBuffer(0x10000));
    TraceFixture r1 = rank(1, 3).cudaMalloc(0x10000, 1024).cudaMalloc(0x20000, 512)
        .memsetAsync(0x10000, 1024, S).kernel(3, "_Z3sumPKf", constPtr())
        .nccl(recv(1, 3, 2, 0x20000, 512)).launch(3, S, 0x20000)
        .nccl(allReduce(1, 3, 0x10000, 0x10000, 1024))
        .nccl(call(NcclOp.NCCL_REDUCE, 1, 3).setPeer(0).setBytes(1024).setSendBuffer(0x10000));
    JobDvdg g = build(r0, r1);
    assertThat(nccl(g)).containsExactly(
        "ncclAllReduce: r0:alloc0:v1 r1:alloc0:v1 -> r0:alloc0:v2 r1:alloc0:v2",
        "ncclSend: r0:alloc0:v1 -> ",
        "ncclRecv:  -> r1:alloc1:v1");
    assertThat(g.ncclOperations()).extracting(NcclOperation::kind).containsExactly(NcclOperation.Kind.COLLECTIVE,
        NcclOperation.Kind.UNMATCHED_SEND, NcclOperation.Kind.UNMATCHED_RECEIVE);
    int sum = op(g, 1, "sum", 0);
    assertThat(g.producer(g.input(sum, 0))).as("the unmatched receive's version").isEqualTo(g.ncclOperationId(2));
    NcclSummary s = JobDvdgSummary.of(g).nccl();
    assertThat(s.unmatched()).containsExactly(
        new JobDvdgSummary.Unmatched(true, 0, -1, 1, 1024, "no trace holds rank 2 of its communicator"),
        new JobDvdgSummary.Unmatched(false, 1, -1, 1, 512, "no trace holds rank 2 of its communicator"));
    assertThat(s.incompleteCollectives()).isEqualTo(1);
    assertThat(s.mismatchedCollectives()).isEqualTo(1);
    assertThat(s.messages()).isZero();
  }

  /**
   * The job's GraphML reads back with the NCCL operations typed: a message's edge its kind, ranks,
   * communicator id, bytes and matched; an all-reduce's edges their kind. The summary document
   * counts them per rank and for the job.
   */
  @Test
  void theJobsGraphMlAndSummaryCarryTheNcclOperations() throws Exception {
    List<TraceFixture> ranks = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      ranks.add(rank(r, 2).cudaMalloc(0x10000, 4096).memsetAsync(0x10000, 4096, S)
          .nccl(r == 0 ? send(0, 2, 1, 0x10000, 4096) : recv(1, 2, 0, 0x10000, 4096))
          .nccl(allReduce(r, 2, 0x10000, 0x10000, 4096)));
    }
    JobDvdg g = build(ranks.toArray(TraceFixture[]::new));
    StringWriter w = new StringWriter();
    GraphMlExport.write(new JobAttributes(g, r -> CallSites.none()), w);
    Map<DefaultEdge, Map<String, String>> edges = GraphMlReadBack.of(w.toString()).edges();
    List<Map<String, String>> messages = edges.values().stream()
        .filter(m -> m.get("kind").equals("nccl_message")).toList();
    assertThat(messages).hasSize(1);
    assertThat(messages.get(0)).containsEntry("name", "ncclSend -> ncclRecv").containsEntry("src_rank", "0")
        .containsEntry("dst_rank", "1").containsEntry("bytes", "4096").containsEntry("matched", "true")
        .containsEntry("comm", DvdgAttributes.hex(COMM)).doesNotContainKey("tag");
    assertThat(edges.values().stream().filter(m -> m.get("kind").equals("nccl_allreduce")))
        .hasSize(4).allSatisfy(m -> assertThat(m).containsEntry("name", "ncclAllReduce"));

    JsonNode doc = JobDvdgSummaryJson.of(JobDvdgSummary.of(g));
    assertThat(doc.at("/operations/nccl_message").asLong()).isEqualTo(1);
    assertThat(doc.at("/operations/nccl_allreduce").asLong()).isEqualTo(1);
    assertThat(doc.at("/nccl/messages/matched").asLong()).isEqualTo(1);
    assertThat(doc.at("/nccl/messages/bytes").asLong()).isEqualTo(4096);
    assertThat(doc.at("/nccl/collectives/by_function/ncclAllReduce").asLong()).isEqualTo(1);
    assertThat(doc.at("/ranks/0/nccl/messages_sent").asLong()).isEqualTo(1);
    assertThat(doc.at("/ranks/1/nccl/bytes_received").asLong()).isEqualTo(4096);
    assertThat(doc.at("/ranks/1/nccl/collectives").asLong()).isEqualTo(1);
  }
}
