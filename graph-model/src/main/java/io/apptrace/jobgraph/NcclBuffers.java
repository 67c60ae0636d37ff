package io.apptrace.jobgraph;

import io.apptrace.jobgraph.CollectiveBuffers.Buffer;
import io.apptrace.proto.NcclCall;
import java.util.ArrayList;
import java.util.List;

/**
 * Which device buffers an NCCL call reads and writes, as NCCL's documentation defines each
 * operation (NVIDIA's "NCCL API", Collective Operations and Point-to-point): ncclAllReduce reads
 * the send buffer and writes the receive buffer; ncclBroadcast reads the root's send buffer and
 * writes every receive buffer (the root's too, unless it is the send buffer: in place);
 * ncclReduce reads every send buffer and writes the root's receive buffer; ncclAllGather reads
 * {@code bytes} of the send buffer and writes comm_size times that of the receive buffer;
 * ncclReduceScatter reads the whole send buffer and writes one block of the receive buffer;
 * ncclSend reads its buffer, ncclRecv writes its. In place (the send buffer is, or lies in, the
 * receive buffer) the call reads before it writes.
 */
final class NcclBuffers {
  private NcclBuffers() {}

  /** The buffers call {@code c} reads and writes; {@code root}: its rank is the root of a rooted collective. */
  static List<Buffer> of(NcclCall c, boolean root) {
    long n = c.getBytes();
    long total = c.getTotalBytes();
    long send = c.getSendBuffer();
    long recv = c.getRecvBuffer();
    List<Buffer> out = new ArrayList<>(2);
    switch (c.getOp()) {
      case NCCL_ALL_REDUCE -> {
        out.add(new Buffer(false, send, n));
        out.add(new Buffer(true, recv, n));
      }
      case NCCL_BROADCAST -> {
        if (root) {
          out.add(new Buffer(false, send, n));
        }
        if (!root || recv != send) {
          out.add(new Buffer(true, recv, n));
        }
      }
      case NCCL_REDUCE -> {
        out.add(new Buffer(false, send, n));
        if (root) {
          out.add(new Buffer(true, recv, n));
        }
      }
      case NCCL_ALL_GATHER, NCCL_REDUCE_SCATTER -> { // total: the receive buffer's bytes
        out.add(new Buffer(false, send, n));
        out.add(new Buffer(true, recv, total));
      }
      case NCCL_SEND -> out.add(new Buffer(false, send, n));
      case NCCL_RECV -> out.add(new Buffer(true, recv, n));
      default -> { } // groups, communicators: no data
    }
    out.removeIf(b -> b.bytes() <= 0);
    return out;
  }
}
