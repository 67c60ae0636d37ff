package io.apptrace.replay;

import io.apptrace.job.Job;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.NcclEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.node.TransferKind;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiOp;
import io.apptrace.proto.NcclCall;
import io.apptrace.proto.NcclOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A rank of a job for tests: its program (one thread, one legacy stream on device 0; {@link
 * ProgramFixture}) and its trace's MPI calls, each MPI call also a call of the program at the same
 * time, as a capture records them.
 */
final class RankFixture {
  final ProgramFixture f = new ProgramFixture();
  final List<MpiEvent> calls = new ArrayList<>();
  final List<NcclEvent> nccl = new ArrayList<>();
  final int stream = f.legacy();
  final int rank;
  final int size;
  long clockNs;

  RankFixture(int rank, int size) {
    this.rank = rank;
    this.size = size;
  }

  /** An MPI call of {@code bytes} with {@code peer} (-1: none) that took {@code tracedNs} in the trace. */
  RankFixture mpi(MpiOp op, int peer, long bytes, long tracedNs) {
    return mpi(op, peer, bytes, tracedNs, false);
  }

  /** The same, its buffer device memory when {@code device} (CUDA-aware MPI). */
  RankFixture mpi(MpiOp op, int peer, long bytes, long tracedNs, boolean device) {
    MpiCall call = MpiCall.newBuilder().setOp(op).setRank(rank).setCommSize(size).setPeer(peer).setBytes(bytes)
        .setDeviceBuffer(device).build();
    calls.add(new MpiEvent(calls.size(), 1, 100, clockNs, tracedNs, 0, call));
    f.api(0, io.apptrace.trace.ApiNames.mpi(op), tracedNs, 0);
    clockNs += tracedNs;
    return this;
  }

  /** The communicator id of every NCCL call of the fixtures: one communicator of all the job's ranks. */
  static final long COMM_ID = 0x5eed;

  /**
   * An NCCL call on the rank's stream of {@code bytes} with {@code peer} (a send's destination, a
   * receive's source, a root; -1: none) that took {@code tracedNs} on the host, on the communicator
   * of all the job's ranks (its rank in it the world rank).
   */
  RankFixture nccl(NcclOp op, int peer, long bytes, long tracedNs) {
    NcclCall call = NcclCall.newBuilder().setOp(op).setRank(rank).setCommSize(size).setPeer(Math.max(peer, 0))
        .setBytes(bytes).setTotalBytes(op == NcclOp.NCCL_ALL_GATHER ? bytes * size : 0).setCommId(COMM_ID)
        .setComm(0x1000).setStream(0).build();
    nccl.add(new NcclEvent(1, 100, clockNs, tracedNs, 0, call));
    f.api(0, io.apptrace.trace.ApiNames.nccl(op), tracedNs, 0);
    clockNs += tracedNs;
    return this;
  }

  /** Launches a kernel with no measured time over {@code bytes} (priced at its lower bound). */
  RankFixture kernel(double bytes) {
    f.unmeasuredKernel(0, stream, "k", bytes);
    return this;
  }

  /** An asynchronous copy on the rank's stream. */
  RankFixture copy(TransferKind kind, long bytes) {
    f.copy(0, stream, kind, bytes);
    return this;
  }

  RankFixture sync() {
    f.syncStream(0, stream);
    return this;
  }

  RankFixture host(long ns) {
    f.host(0, ns);
    clockNs += ns;
    return this;
  }

  RankTrace trace() {
    return new RankTrace(Path.of("trace." + rank + ".apptrace"), rank, size, "h" + rank, 0, calls, nccl);
  }

  /**
   * A cluster of DGX A100 nodes for the drawn jobs: NICs of 10 GB/s and 2 us, o = 0.5 us, g = 0, a
   * non-blocking fat tree.
   */
  static io.apptrace.node.Cluster cluster(int nodes, int ranksPerNode, String gpus) throws Exception {
    return io.apptrace.node.ClusterLoader.parse("test.yaml", """
        name: test
        node: dgx-a100
        nodes: %d
        ranks_per_node: %d
        gpus: %s
        network:
          nic: {bandwidth: "10 GB/s", latency: "2 us"}
          loggp: {o: "0.5 us", g: "0 us"}
          topology: {class: fat-tree, oversubscription: 1, nodes_per_switch: 2}
        """.formatted(nodes, ranksPerNode, gpus));
  }

  /** A kernel's lower bound on the node's GPU 0: its bytes over the memory bandwidth, plus the launch overhead. */
  static double kernel(io.apptrace.node.Cluster c, double bytes) {
    io.apptrace.node.Node.Gpu g = c.node().gpus().get(0);
    return bytes / g.memoryBandwidth() + g.launchOverheadSeconds();
  }

  static Job job(RankFixture... ranks) {
    return new Job(Arrays.stream(ranks).map(RankFixture::trace).toList(), ranks.length);
  }

  static List<ReplayProgram> programs(RankFixture... ranks) {
    return Arrays.stream(ranks).map(r -> r.f.build()).toList();
  }
}
