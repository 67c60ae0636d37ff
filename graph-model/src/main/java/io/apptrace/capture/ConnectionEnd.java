package io.apptrace.capture;

import io.apptrace.proto.ProcessEnd;
import java.util.Optional;

/**
 * How one traced process's connection ended.
 *
 * @param pid the process (from the socket's peer credentials)
 * @param events events received from it
 * @param recovered events read from its shared buffers after it was gone (it could not send
 *     them: killed by SIGKILL, or stuck in the middle of an event when it died)
 * @param lost events received (or recovered) but not in the trace, because writing the trace
 *     failed (a full disk); they are counted in {@code events}
 * @param processEnd the interposer's ProcessEnd record, when the process ended normally or on a
 *     signal the interposer caught; empty when it died without a chance to say so (SIGKILL)
 * @param problem what went wrong with the connection, if anything (oversized packets, a refused
 *     peer)
 */
public record ConnectionEnd(
    int pid, long events, long recovered, long lost, Optional<ProcessEnd> processEnd,
    Optional<String> problem) {}
