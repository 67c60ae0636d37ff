package io.apptrace.jobgraph;

import io.apptrace.proto.NcclOp;
import io.apptrace.trace.ApiNames;
import java.util.List;

/**
 * One NCCL operation of a job's graph: a message (an ncclSend and the ncclRecv that took it), a
 * send or a receive the traces could not match, or a collective. Its buffers are device memory
 * read and written in stream order, on the stream each rank's call named.
 *
 * @param kind what it is
 * @param op the NCCL function (a message: {@code NCCL_SEND})
 * @param comm the communicator's id, the same on all its ranks (NcclCall.comm_id; 0: not known)
 * @param bytes messages: the bytes that arrived (a send or receive alone: its own); collectives:
 *     a member's send buffer (NcclCall.bytes, the largest)
 * @param source messages: the sending world rank; rooted collectives (ncclBroadcast, ncclReduce):
 *     the root's; -1: none, or no trace holds that rank of the communicator
 * @param dest messages: the receiving world rank; else -1 (-1 also: no trace holds it)
 * @param commSource {@code source} as a rank in the communicator (-1: none)
 * @param commDest {@code dest} as a rank in the communicator (-1: none)
 * @param members the world ranks whose calls are in the traces, in rank order
 * @param commSize collectives: the communicator's size (members missing when it is larger); else 2
 * @param calls collectives: the calls the traces hold (as many as members when each process is one
 *     rank of the communicator); else the ends in the traces
 */
public record NcclOperation(Kind kind, NcclOp op, long comm, long bytes, int source, int dest, int commSource,
    int commDest, List<Integer> members, int commSize, int calls) implements CommOperation {
  public NcclOperation {
    members = List.copyOf(members);
  }

  /** What an NCCL operation is. */
  public enum Kind {
    /** An ncclSend and its ncclRecv: reads the sender's buffer, writes the receiver's. */
    MESSAGE,
    /** An ncclSend whose ncclRecv is not in the traces: reads the sender's buffer. */
    UNMATCHED_SEND,
    /** An ncclRecv whose ncclSend is not in the traces: writes the receiver's buffer. */
    UNMATCHED_RECEIVE,
    /** A collective: reads its members' send buffers, writes their receive buffers ({@link NcclBuffers}). */
    COLLECTIVE
  }

  /** The exports' kinds of NCCL operations, in this order: messages, then each collective. */
  public static final List<String> KINDS = List.of("nccl_message", "nccl_allreduce", "nccl_broadcast", "nccl_reduce",
      "nccl_allgather", "nccl_reduce_scatter");

  /**
   * "ncclSend -> ncclRecv" for a message, "ncclSend" or "ncclRecv" for one end alone,
   * "ncclAllReduce" for a collective.
   */
  @Override
  public String name() {
    return switch (kind) {
      case MESSAGE -> "ncclSend -> ncclRecv";
      case UNMATCHED_SEND -> "ncclSend";
      case UNMATCHED_RECEIVE -> "ncclRecv";
      case COLLECTIVE -> ApiNames.nccl(op);
    };
  }

  @Override
  public boolean message() {
    return kind != Kind.COLLECTIVE;
  }

  @Override
  public boolean matched() {
    return kind == Kind.MESSAGE || kind == Kind.COLLECTIVE;
  }

  /** A collective some of whose members' calls are not in the traces. */
  public boolean incomplete() {
    return kind == Kind.COLLECTIVE && calls < commSize;
  }

  /** {@code nccl_message}, or the collective's: {@code nccl_allreduce}, {@code nccl_reduce_scatter}... */
  @Override
  public String kindKey() {
    if (message()) {
      return KINDS.get(0);
    }
    return switch (op) {
      case NCCL_ALL_REDUCE -> KINDS.get(1);
      case NCCL_BROADCAST -> KINDS.get(2);
      case NCCL_REDUCE -> KINDS.get(3);
      case NCCL_ALL_GATHER -> KINDS.get(4);
      case NCCL_REDUCE_SCATTER -> KINDS.get(5);
      default -> "nccl_" + op.name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
