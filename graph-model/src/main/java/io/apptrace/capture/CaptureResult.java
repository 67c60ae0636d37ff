package io.apptrace.capture;

import java.nio.file.Path;
import java.util.List;

/**
 * The outcome of a capture.
 *
 * @param exitCode the program's exit code (128+N when signal N ended it)
 * @param trace the trace file written
 * @param events events received
 * @param traceBytes size of the trace file, bytes
 * @param connections how each traced process's connection ended
 * @param notes remarks for the user (also written into the trace)
 */
public record CaptureResult(
    int exitCode, Path trace, long events, long traceBytes, List<ConnectionEnd> connections,
    List<String> notes) {
  public CaptureResult {
    connections = List.copyOf(connections);
    notes = List.copyOf(notes);
  }
}
