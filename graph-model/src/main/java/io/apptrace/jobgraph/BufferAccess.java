package io.apptrace.jobgraph;

/**
 * What one MPI or NCCL call of a rank does to one of its buffers for an operation of the job's
 * graph: it reads the bytes a send takes (at the send's post) or writes the bytes a receive got
 * (at the call that completed it). An MPI call's access happens on the host, at the call; an NCCL
 * call's in stream order, on the call's stream.
 *
 * @param operation the operation's index among the job's MPI operations (an NCCL call's: among its
 *     NCCL operations)
 * @param rank the world rank
 * @param call the index of the call at which the access happens, among the rank's MPI calls (an
 *     NCCL call's: among its NCCL calls)
 * @param write a receive buffer written (else a send buffer read)
 * @param address the buffer's address
 * @param bytes the bytes read or written from {@code address}
 * @param device the program passed device memory
 * @param function the MPI or NCCL function the buffer was passed to ({@code MPI_Isend}, {@code ncclAllReduce}...)
 * @param nccl an NCCL call's access
 * @param stream an NCCL call's stream (as the trace names streams)
 */
public record BufferAccess(int operation, int rank, int call, boolean write, long address, long bytes,
    boolean device, String function, boolean nccl, long stream) {
  /** An MPI call's access. */
  public BufferAccess(int operation, int rank, int call, boolean write, long address, long bytes, boolean device,
      String function) {
    this(operation, rank, call, write, address, bytes, device, function, false, 0);
  }
}
