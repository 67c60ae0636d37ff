package io.apptrace.job;

/**
 * One point-to-point message: a send and the receive MPI matched it with.
 *
 * @param source the sending world rank
 * @param dest the receiving world rank
 * @param comm the communicator's id (0: MPI_COMM_WORLD)
 * @param tag the tag
 * @param bytes the bytes that arrived
 * @param sendDevice the send buffer was device memory
 * @param recvDevice the receive buffer was device memory
 * @param sendPost the index of the call that started the send (among the source's MPI calls)
 * @param sendDone the index of the call that completed it (the send itself when blocking; -1 when
 *     never seen completed)
 * @param recvPost the index of the call that posted the receive (among the destination's)
 * @param recvDone the index of the call that completed it (-1 when never seen completed)
 */
public record Message(int source, int dest, long comm, int tag, long bytes, boolean sendDevice, boolean recvDevice,
    int sendPost, int sendDone, int recvPost, int recvDone) {}
