package io.apptrace.jobgraph;

import java.util.List;

/**
 * One MPI operation of a job's graph: a message (a send and the receive MPI matched it with), a
 * send or a receive the traces could not match, or a collective.
 *
 * @param kind what it is
 * @param name the MPI functions: "MPI_Isend -> MPI_Irecv" for a message, "MPI_Send" for a send
 *     without its receive, "MPI_Allreduce" for a collective
 * @param comm the communicator's id (0: MPI_COMM_WORLD)
 * @param tag messages: the tag; collectives: -1
 * @param bytes messages: the bytes that arrived; collectives: a member's contribution (the largest)
 * @param source messages: the sending world rank; rooted collectives: the root; else -1
 * @param dest messages: the receiving world rank; else -1
 * @param members the world ranks whose calls are in the traces, in rank order
 * @param commSize collectives: the communicator's size (members missing when it is larger); else 2
 */
public record MpiOperation(Kind kind, String name, long comm, int tag, long bytes, int source, int dest,
    List<Integer> members, int commSize) implements CommOperation {
  public MpiOperation {
    members = List.copyOf(members);
  }

  /** What an MPI operation is. */
  public enum Kind {
    /** A send and its receive: reads the sender's buffer, writes the receiver's. */
    MESSAGE,
    /** A send whose receive is not in the traces: reads the sender's buffer. */
    UNMATCHED_SEND,
    /** A receive whose send is not in the traces: writes the receiver's buffer. */
    UNMATCHED_RECEIVE,
    /** A collective: reads every member's send buffer, writes every member's receive buffer. */
    COLLECTIVE
  }

  /** A message, matched or not (the exports' kind {@code mpi_message}). */
  @Override
  public boolean message() {
    return kind != Kind.COLLECTIVE;
  }

  @Override
  public boolean matched() {
    return kind == Kind.MESSAGE || kind == Kind.COLLECTIVE;
  }

  /** The exports' kind: {@code mpi_message} or {@code mpi_collective}. */
  @Override
  public String kindKey() {
    return message() ? "mpi_message" : "mpi_collective";
  }
}
