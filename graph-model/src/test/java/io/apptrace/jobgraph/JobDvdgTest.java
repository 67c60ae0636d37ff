package io.apptrace.jobgraph;

import static io.apptrace.graph.TraceFixture.constPtr;
import static io.apptrace.jobgraph.JobGraphs.value;
import static io.apptrace.jobgraph.JobGraphs.reads;
import static io.apptrace.jobgraph.JobGraphs.writes;
import static io.apptrace.jobgraph.JobGraphs.op;
import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.graph.AttributedGraph;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.GraphMlExport;
import io.apptrace.graph.GraphMlReadBack;
import io.apptrace.graph.TraceFixture;
import io.apptrace.job.Job;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jgrapht.graph.DefaultEdge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The graph of a job drawn rank by rank (docs/JOBS.md, "The DVDG of a job"): a message is one
 * operation from the value the sender's buffer held to a new version of the receiver's, matched as
 * MPI matches (communicator, source, tag, order); the received version is what the receiver's
 * later operations read; a collective reads every member's send buffer and writes every member's
 * receive buffer; what no trace can match is in the graph with its one end, and named.
 */
class JobDvdgTest {
  @TempDir Path tmp;

  private static final int WORLD = 3;

  private static MpiCall.Builder send(MpiOp op, long buffer, long bytes, int dest, int tag, boolean device) {
    return MpiCall.newBuilder().setOp(op).setCommSize(WORLD).setPeer(dest).setTag(tag).setBytes(bytes)
        .setDeviceBuffer(device).setSendBuffer(buffer);
  }

  private static MpiCall.Builder recv(MpiOp op, long buffer, long bytes, int source, int tag, boolean device) {
    return MpiCall.newBuilder().setOp(op).setCommSize(WORLD).setPeer(source).setTag(tag).setBytes(bytes)
        .setDeviceBuffer(device).setRecvBuffer(buffer);
  }

  private static MpiCall.Builder waitFor(long request, boolean receive, int source, int tag, long bytes) {
    return MpiCall.newBuilder().setOp(MpiOp.MPI_WAIT).addCompleted(MpiCompletion.newBuilder().setRequest(request)
        .setReceive(receive).setSource(source).setTag(tag).setBytes(bytes));
  }

  /** Rank 0 of 2: a device buffer at 0x10000, memset and synchronized, then {@code send} of it. */
  private static TraceFixture sender(MpiCall.Builder send) {
    return new TraceFixture().rank(0, 2).cudaMalloc(0x10000, 4096).memsetAsync(0x10000, 4096, 0)
        .streamSynchronize(0).mpi(send);
  }

  /**
   * Rank 1 of 2: a device buffer at 0x70000 nothing writes, {@code recv} into it, then a kernel
   * that reads it ({@code sum(const float *)}).
   */
  private static TraceFixture receiverThenKernel(MpiCall.Builder recv) {
    return new TraceFixture().rank(1, 2).cudaMalloc(0x70000, 4096).kernel(3, "_Z3sumPKf", constPtr()).mpi(recv)
        .launch(3, 0, 0x70000);
  }

  private JobDvdg build(TraceFixture... ranks) throws Exception {
    return JobDvdgBuilder.build(Job.read(write(ranks)));
  }

  private List<Path> write(TraceFixture... ranks) throws Exception {
    List<Path> files = new ArrayList<>();
    for (TraceFixture r : ranks) {
      files.add(r.write(tmp.resolve("trace." + files.size() + ".apptrace"), false));
    }
    return files;
  }

  /** Every MPI operation as "name: inputs -> outputs". */
  private static List<String> mpi(JobDvdg g) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < g.mpiOperations().size(); i++) {
      int op = g.mpiOperationId(i);
      out.add(g.mpiOperations().get(i).name() + ": " + String.join(" ", reads(g, op)) + " -> "
          + String.join(" ", writes(g, op)));
    }
    return out;
  }

  /**
   * Rank 0 sends a device buffer (tag 5), then a host one (tag 6), to rank 1, which posts its
   * receives for tag 6 first; rank 2's message is received with MPI_ANY_SOURCE (MPI_Irecv, the
   * source its Wait reported):
   *
   * <pre>
   *   r0: A (device, memset) --tag 5--> r1: X        r0: B (host) --tag 6--> r1: Y
   *   r2: C (host) --any source, tag 7--> r1: Z
   * </pre>
   */
  @Test
  void sendsMatchTheirReceivesByTagAndByTheSourceAWildcardMatched() throws Exception {
    TraceFixture r0 = new TraceFixture().rank(0, WORLD).cudaMalloc(0x10000, 1024).malloc(0x20000, 512)
        .memsetAsync(0x10000, 1024, 0).streamSynchronize(0)
        .mpi(send(MpiOp.MPI_SEND, 0x10000, 1024, 1, 5, true))
        .mpi(send(MpiOp.MPI_SEND, 0x20000, 512, 1, 6, false));
    TraceFixture r1 = new TraceFixture().rank(1, WORLD).cudaMalloc(0x10000, 1024).malloc(0x30000, 512)
        .malloc(0x40000, 256)
        .mpi(recv(MpiOp.MPI_RECV, 0x30000, 512, 0, 6, false))
        .mpi(recv(MpiOp.MPI_RECV, 0x10000, 1024, 0, 5, true))
        .mpi(recv(MpiOp.MPI_IRECV, 0x40000, 256, -1, 7, false).setRequest(1))
        .mpi(waitFor(1, true, 2, 7, 256));
    TraceFixture r2 = new TraceFixture().rank(2, WORLD).malloc(0x50000, 256)
        .mpi(send(MpiOp.MPI_SEND, 0x50000, 256, 1, 7, false));
    JobDvdg g = build(r0, r1, r2);
    // rank 1's allocations: 0 X (device), 1 Y, 2 Z; rank 0's: 0 A, 1 B; rank 2's: 0 C
    assertThat(mpi(g)).containsExactly(
        "MPI_Send -> MPI_Recv: r0:alloc1:v0 -> r1:alloc1:v1",
        "MPI_Send -> MPI_Recv: r0:alloc0:v1 -> r1:alloc0:v1",
        "MPI_Send -> MPI_Irecv: r2:alloc0:v0 -> r1:alloc2:v1");
    assertThat(g.mpiOperations()).extracting(MpiOperation::tag).containsExactly(6, 5, 7);
    assertThat(g.mpiOperations()).extracting(MpiOperation::source).containsExactly(0, 0, 2);
    assertThat(g.mpiOperations()).extracting(MpiOperation::bytes).containsExactly(512L, 1024L, 256L);
    JobDvdgSummary s = JobDvdgSummary.of(g);
    assertThat(s.messages()).isEqualTo(3);
    assertThat(s.messageBytes()).isEqualTo(512 + 1024 + 256);
    assertThat(s.unmatched()).isEmpty();
    assertThat(s.operations()).containsEntry("mpi_message", 3L).containsEntry("memset", 1L);
  }

  /**
   * MPI_Isend and MPI_Irecv, each completed by its MPI_Wait: the received version is written at the
   * Wait, so a kernel launched between the Irecv and the Wait reads what the buffer held before,
   * and one launched after the Wait reads what arrived.
   */
  @Test
  void anIrecvWritesItsBufferAtTheWaitThatCompletedIt() throws Exception {
    TraceFixture r0 = sender(send(MpiOp.MPI_ISEND, 0x10000, 4096, 1, 0, true).setRequest(1))
        .mpi(waitFor(1, false, 0, 0, 0));
    TraceFixture r1 = new TraceFixture().rank(1, 2).cudaMalloc(0x10000, 4096).memsetAsync(0x10000, 4096, 0)
        .streamSynchronize(0)
        .kernel(3, "_Z3sumPKf", constPtr())
        .mpi(recv(MpiOp.MPI_IRECV, 0x10000, 4096, 0, 0, true).setRequest(1))
        .launch(3, 0, 0x10000)
        .mpi(waitFor(1, true, 0, 0, 4096))
        .launch(3, 0, 0x10000);
    JobDvdg g = build(r0, r1);
    assertThat(mpi(g)).containsExactly("MPI_Isend -> MPI_Irecv: r0:alloc0:v1 -> r1:alloc0:v2");
    assertThat(reads(g, op(g, 1, "sum", 0))).as("before the Wait: the memset's").containsExactly("r1:alloc0:v1");
    assertThat(reads(g, op(g, 1, "sum", 1))).as("after the Wait: what arrived").containsExactly("r1:alloc0:v2");
  }

  /**
   * A receive into device memory nothing wrote before, then a kernel reading it: in the rank's own
   * graph the kernel reads nothing (fresh memory orders nothing); in the job's, it reads the
   * received version, so the sender's value is upstream of the kernel.
   */
  @Test
  void aKernelReadsTheVersionAReceiveWrote() throws Exception {
    TraceFixture r0 = sender(send(MpiOp.MPI_SEND, 0x10000, 4096, 1, 0, true));
    TraceFixture r1 = receiverThenKernel(recv(MpiOp.MPI_RECV, 0x70000, 4096, 0, 0, true));
    List<Path> files = write(r0, r1);
    Dvdg alone = DvdgBuilder.build(files.get(1));
    assertThat(alone.operations().inputCount(0)).as("the rank alone: fresh memory, no input").isZero();
    JobDvdg g = JobDvdgBuilder.build(Job.read(files));
    assertThat(mpi(g)).containsExactly("MPI_Send -> MPI_Recv: r0:alloc0:v1 -> r1:alloc0:v1");
    int sum = op(g, 1, "sum", 0);
    assertThat(reads(g, sum)).containsExactly("r1:alloc0:v1");
    assertThat(g.producer(g.input(sum, 0))).as("written by the message").isEqualTo(g.mpiOperationId(0));
    assertThat(g.ranks().get(1).operations()).as("the rank's own operations: the kernel only").isEqualTo(1);
  }

  /**
   * A halo received at the start of a buffer is no kernel's chunk (docs/GRAPH.md, footprint rule
   * 1): the kernel given the buffer still reads all of it, the halo and the rest, and writes all of
   * its output, as in the rank's own graph.
   */
  @Test
  void aReceivedHaloIsNoChunkOfTheKernelThatReadsTheBuffer() throws Exception {
    TraceFixture r0 = sender(send(MpiOp.MPI_SEND, 0x10000, 256, 1, 0, true));
    TraceFixture r1 = new TraceFixture().rank(1, 2).cudaMalloc(0x10000, 4096).cudaMalloc(0x20000, 4096)
        .memsetAsync(0x10000, 4096, 0).streamSynchronize(0)
        .kernel(3, "_Z5relaxPKdPd", constPtr(), io.apptrace.graph.TraceFixture.ptr())
        .mpi(recv(MpiOp.MPI_RECV, 0x10000, 256, 0, 0, true))
        .launch(3, 0, 0x10000, 0x20000);
    JobDvdg g = build(r0, r1);
    int relax = op(g, 1, "relax", 0);
    assertThat(reads(g, relax)).containsExactlyInAnyOrder("r1:alloc0:v1", "r1:alloc0:v2");
    Dvdg d = g.ranks().get(1).dvdg();
    int written = g.localValue(g.output(relax, 0));
    assertThat(d.values().bytes(written)).as("the whole output, not the halo's 256 bytes").isEqualTo(4096);
  }

  /**
   * Rank 2's trace is missing from a job of 3: rank 0's send to it and rank 1's receive from it
   * cannot be matched. Each is in the graph with its one end (the send reads its buffer, the
   * receive still writes a version its rank reads on), and the summary counts and names them.
   */
  @Test
  void messagesOfAMissingRankAreCountedAndNamedNeverDropped() throws Exception {
    TraceFixture r0 = new TraceFixture().rank(0, WORLD).malloc(0x20000, 512)
        .mpi(send(MpiOp.MPI_SEND, 0x20000, 512, 1, 0, false))
        .mpi(send(MpiOp.MPI_SEND, 0x20000, 512, 2, 0, false))
        .mpi(send(MpiOp.MPI_SEND, 0x20000, 100, 2, 1, false));
    TraceFixture r1 = new TraceFixture().rank(1, WORLD).cudaMalloc(0x10000, 512).malloc(0x30000, 512)
        .mpi(recv(MpiOp.MPI_RECV, 0x30000, 512, 0, 0, false))
        .mpi(recv(MpiOp.MPI_RECV, 0x30000, 256, 2, 0, false))
        .memcpy(0x10000, 0x30000, 512, io.apptrace.proto.CopyKind.HOST_TO_DEVICE);
    JobDvdg g = build(r0, r1);
    JobDvdgSummary s = JobDvdgSummary.of(g);
    assertThat(s.missingRanks()).containsExactly(2);
    assertThat(s.messages()).isEqualTo(1);
    assertThat(s.unmatched()).containsExactly(
        new JobDvdgSummary.Unmatched(true, 0, 2, 2, 612, "no trace of rank 2"),
        new JobDvdgSummary.Unmatched(false, 1, 2, 1, 256, "no trace of rank 2"));
    assertThat(mpi(g)).containsExactly(
        "MPI_Send -> MPI_Recv: r0:alloc0:v0 -> r1:alloc1:v1",
        "MPI_Send: r0:alloc0:v0 -> ",
        "MPI_Send: r0:alloc0:v0 -> ",
        "MPI_Recv:  -> r1:alloc1:v2");
    assertThat(reads(g, op(g, 1, "cudaMemcpy", 0))).as("the copy reads both receives' bytes")
        .containsExactlyInAnyOrder("r1:alloc1:v1", "r1:alloc1:v2");
    assertThat(g.mpiOperations()).extracting(MpiOperation::kind).containsExactly(MpiOperation.Kind.MESSAGE,
        MpiOperation.Kind.UNMATCHED_SEND, MpiOperation.Kind.UNMATCHED_SEND, MpiOperation.Kind.UNMATCHED_RECEIVE);
  }

  /**
   * MPI_Allreduce in place over two ranks' device buffers, then MPI_Bcast from rank 0's host
   * buffer: the allreduce reads both ranks' buffers and writes a new version of each; the
   * broadcast reads the root's and writes the other's (the root's buffer is not written).
   */
  @Test
  void aCollectiveReadsEveryMembersSendBufferAndWritesEveryMembersReceiveBuffer() throws Exception {
    List<TraceFixture> ranks = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      ranks.add(new TraceFixture().rank(r, 2).cudaMalloc(0x10000, 4096).malloc(0x20000, 1024)
          .memsetAsync(0x10000, 4096, 0).streamSynchronize(0)
          .mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_ALLREDUCE).setCommSize(2).setBytes(4096).setDeviceBuffer(true)
              .setInPlace(true).setRecvBuffer(0x10000))
          .mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_BCAST).setCommSize(2).setPeer(0).setBytes(1024)
              .setSendBuffer(0x20000).setRecvBuffer(0x20000)));
    }
    JobDvdg g = build(ranks.toArray(TraceFixture[]::new));
    assertThat(mpi(g)).containsExactly(
        "MPI_Allreduce: r0:alloc0:v1 r1:alloc0:v1 -> r0:alloc0:v2 r1:alloc0:v2",
        "MPI_Bcast: r0:alloc1:v0 -> r1:alloc1:v1");
    assertThat(g.mpiOperations().get(0).members()).containsExactly(0, 1);
    int allreduce = g.mpiOperationId(0);
    assertThat(g.view().edgeSet().stream().filter(e -> g.view().operationOf(e) == allreduce))
        .as("an edge from each member's value to each member's new version").hasSize(4);
    assertThat(g.view().getAllEdges(g.input(allreduce, 0), g.output(allreduce, 1))).as("rank 0's to rank 1's")
        .hasSize(1);
  }

  /** The job's GraphML reads back: every vertex has its rank, MPI edges their kind and ranks. */
  @Test
  void theJobsGraphMlReadsBackWithRanksAndTypedMpiOperations() throws Exception {
    TraceFixture r0 = sender(send(MpiOp.MPI_SEND, 0x10000, 4096, 1, 3, true));
    TraceFixture r1 = receiverThenKernel(recv(MpiOp.MPI_RECV, 0x70000, 4096, 0, 3, true));
    JobDvdg g = build(r0, r1);
    AttributedGraph a = new JobAttributes(g, r -> io.apptrace.graph.CallSites.none());
    StringWriter w = new StringWriter();
    GraphMlExport.write(a, w);

    GraphMlReadBack back = GraphMlReadBack.of(w.toString());
    Map<String, Map<String, String>> nodes = back.nodes();
    Map<DefaultEdge, Map<String, String>> edges = back.edges();

    // values: r0 A v1 (memset), r1 R v1 (received); a synthetic source for the memset, a sink for the kernel
    assertThat(back.graph().vertexSet()).hasSize(4);
    assertThat(nodes.values()).allSatisfy(n -> assertThat(n).containsKey("rank"));
    assertThat(edges.values()).extracting(m -> m.get("kind")).containsExactlyInAnyOrder("memset", "mpi_message",
        "kernel");
    Map<String, String> message = edges.values().stream().filter(m -> m.get("kind").equals("mpi_message"))
        .findFirst().orElseThrow();
    assertThat(message).containsEntry("name", "MPI_Send -> MPI_Recv").containsEntry("src_rank", "0")
        .containsEntry("dst_rank", "1").containsEntry("tag", "3").containsEntry("bytes", "4096")
        .containsEntry("matched", "true").containsEntry("read_bytes", "4096");
    Map<String, String> kernel = edges.values().stream().filter(m -> m.get("kind").equals("kernel")).findFirst()
        .orElseThrow();
    assertThat(kernel).containsEntry("rank", "1").containsEntry("name", "sum");
  }
}
