package io.apptrace.capture;

import java.nio.file.Path;
import java.util.List;

/**
 * The outcome of a capture.
 *
 * @param status how the program ended: its exit status, or the signal that ended it
 * @param trace the trace file written
 * @param events events received
 * @param traceBytes size of the trace file, bytes
 * @param connections how each traced process's connection ended
 * @param notes remarks for the user (also written into the trace)
 */
public record CaptureResult(
    ExitStatus status, Path trace, long events, long traceBytes, List<ConnectionEnd> connections,
    List<String> notes) {
  public CaptureResult {
    connections = List.copyOf(connections);
    notes = List.copyOf(notes);
  }

  /** The exit code a shell would give: the program's exit status, or 128+N for signal N. */
  public int exitCode() {
    return status.shellCode();
  }
}
