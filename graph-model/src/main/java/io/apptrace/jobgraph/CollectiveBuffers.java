package io.apptrace.jobgraph;

import io.apptrace.proto.MpiCall;
import java.util.ArrayList;
import java.util.List;

/**
 * Which buffers a member's call of a collective reads and writes, as the MPI standard defines each
 * operation (MPI Forum 2021, ch. 6): the root of MPI_Bcast reads its buffer and the others write theirs;
 * MPI_Reduce reads every member's send buffer and writes the root's receive buffer; MPI_Allreduce,
 * MPI_Allgather, MPI_Alltoall and MPI_Reduce_scatter_block read every send buffer and write every
 * receive buffer; MPI_Gather writes only the root's receive buffer; MPI_Scatter reads only the
 * root's send buffer. With MPI_IN_PLACE the caller's contribution is read from its receive buffer
 * (for MPI_Allgather, the whole of it: where its own block lies is not recorded); at the root of
 * MPI_Scatter, its piece stays where it is, and nothing is written. MPI_Barrier moves nothing.
 */
final class CollectiveBuffers {
  private CollectiveBuffers() {}

  /**
   * One buffer of a call: read or written, from {@code address} (0: the trace does not say, a
   * capture by an apptrace that did not record buffers), {@code bytes} long.
   */
  record Buffer(boolean write, long address, long bytes) {}

  /** The buffers member {@code c} reads and writes; {@code root}: the member is the root. */
  static List<Buffer> of(MpiCall c, boolean root) {
    long n = c.getBytes();
    long size = Math.max(1, c.getCommSize());
    long total = c.getTotalBytes();
    long send = c.getSendBuffer();
    long recv = c.getRecvBuffer();
    boolean inPlace = c.getInPlace();
    List<Buffer> out = new ArrayList<>(2);
    switch (io.apptrace.job.CollectiveMatching.blocking(c.getOp())) { // MPI_Iallreduce: MPI_Allreduce's buffers
      case MPI_BCAST -> out.add(root ? new Buffer(false, send, n) : new Buffer(true, recv, n));
      case MPI_REDUCE -> {
        out.add(contribution(inPlace, send, recv, n));
        if (root) {
          out.add(new Buffer(true, recv, n));
        }
      }
      case MPI_ALLREDUCE -> {
        out.add(contribution(inPlace, send, recv, n));
        out.add(new Buffer(true, recv, n));
      }
      case MPI_REDUCE_SCATTER_BLOCK -> { // bytes: the whole send buffer; total: the block received
        out.add(contribution(inPlace, send, recv, n));
        out.add(new Buffer(true, recv, total));
      }
      case MPI_ALLGATHER -> {
        out.add(inPlace ? new Buffer(false, recv, total) : new Buffer(false, send, n));
        out.add(new Buffer(true, recv, total));
      }
      case MPI_ALLTOALL -> { // bytes: per destination
        out.add(inPlace ? new Buffer(false, recv, total) : new Buffer(false, send, n * size));
        out.add(new Buffer(true, recv, total));
      }
      case MPI_GATHER -> {
        out.add(contribution(inPlace, send, recv, n));
        if (root) {
          out.add(new Buffer(true, recv, total > 0 ? total : n * size));
        }
      }
      case MPI_SCATTER -> { // bytes: the piece each member receives
        if (root) {
          out.add(new Buffer(false, send, n * size));
        }
        if (!(root && inPlace)) {
          out.add(new Buffer(true, recv, n));
        }
      }
      default -> { } // MPI_Barrier, and operations this build does not know
    }
    out.removeIf(b -> b.bytes() <= 0);
    return out;
  }

  /** The caller's contribution: its send buffer, or its receive buffer when MPI_IN_PLACE. */
  private static Buffer contribution(boolean inPlace, long send, long recv, long n) {
    return new Buffer(false, inPlace ? recv : send, n);
  }
}
