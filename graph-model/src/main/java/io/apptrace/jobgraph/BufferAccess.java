package io.apptrace.jobgraph;

/**
 * What one MPI call of a rank does to one of its buffers for an operation of the job's graph: it
 * reads the bytes a send takes (at the send's post) or writes the bytes a receive got (at the
 * call that completed it).
 *
 * @param operation the operation's index among the job's MPI operations
 * @param rank the world rank
 * @param call the index of the call, among the rank's MPI calls, at which the access happens
 * @param write a receive buffer written (else a send buffer read)
 * @param address the buffer's address
 * @param bytes the bytes read or written from {@code address}
 * @param device the program passed device memory
 * @param function the MPI function the buffer was passed to ({@code MPI_Isend}, ...)
 */
public record BufferAccess(int operation, int rank, int call, boolean write, long address, long bytes,
    boolean device, String function) {}
