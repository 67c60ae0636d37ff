package io.apptrace.capture;

import io.apptrace.proto.ProcessEnd;
import java.util.Optional;

/**
 * How one traced process's connection ended.
 *
 * @param pid the process (from the socket's peer credentials)
 * @param events events received from it
 * @param processEnd the interposer's ProcessEnd record, when the process ended normally or on a
 *     signal the interposer caught; empty when it died without a chance to say so (SIGKILL)
 * @param problem what went wrong with the connection, if anything (oversized packets, a refused
 *     peer)
 */
public record ConnectionEnd(int pid, long events, Optional<ProcessEnd> processEnd, Optional<String> problem) {}
