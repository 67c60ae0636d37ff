package io.apptrace.job;

import io.apptrace.proto.NcclCall;

/**
 * One NCCL call of a rank.
 *
 * @param pid the process that made it
 * @param tid the thread that made it
 * @param entryNs when it was called (the rank's clock)
 * @param durationNs how long the call took on the host (a collective's work runs later, on its stream)
 * @param result the ncclResult_t it returned
 * @param call what it did
 */
public record NcclEvent(int pid, int tid, long entryNs, long durationNs, int result, NcclCall call) {}
