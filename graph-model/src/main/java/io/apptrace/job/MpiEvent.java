package io.apptrace.job;

import io.apptrace.proto.MpiCall;

/**
 * One MPI call of a rank.
 *
 * @param index its place among the rank's MPI calls, in issue order
 * @param pid the process that made it
 * @param tid the thread that made it
 * @param entryNs when it was called (the rank's clock)
 * @param durationNs how long it took
 * @param result the MPI error code it returned
 * @param call what it did
 */
public record MpiEvent(int index, int pid, int tid, long entryNs, long durationNs, int result, MpiCall call) {
  /** When it returned. */
  public long exitNs() {
    return entryNs + durationNs;
  }
}
