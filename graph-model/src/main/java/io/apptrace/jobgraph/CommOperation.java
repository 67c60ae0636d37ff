package io.apptrace.jobgraph;

import java.util.List;

/**
 * An operation of a job's graph that joins its ranks: an MPI message or collective
 * ({@link MpiOperation}) or an NCCL one ({@link NcclOperation}). It reads the values its send
 * buffers held and writes new versions of the values in its receive buffers.
 */
public sealed interface CommOperation permits MpiOperation, NcclOperation {
  /** The functions: "MPI_Isend -> MPI_Irecv", "MPI_Allreduce", "ncclSend -> ncclRecv", "ncclAllReduce". */
  String name();

  /** The communicator's id (MPI: 0 for MPI_COMM_WORLD; NCCL: NcclCall.comm_id). */
  long comm();

  /** Messages: the bytes that arrived; collectives: a member's contribution. */
  long bytes();

  /** Messages: the sending world rank; rooted collectives: the root's; else -1 (-1 also: not known). */
  int source();

  /** Messages: the receiving world rank; else -1 (-1 also: not known). */
  int dest();

  /** The world ranks whose calls are in the traces, in rank order. */
  List<Integer> members();

  /** Collectives: the communicator's size; messages: 2. */
  int commSize();

  /** A point-to-point transfer, matched or not (else a collective). */
  boolean message();

  /** Both ends of a message are in the traces (a collective: true). */
  boolean matched();

  /** The exports' kind: {@code mpi_message}, {@code mpi_collective}, {@code nccl_message}, {@code nccl_allreduce}... */
  String kindKey();
}
