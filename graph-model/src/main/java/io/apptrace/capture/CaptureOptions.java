package io.apptrace.capture;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What to capture and how.
 *
 * @param command the program and its arguments
 * @param output the trace file to write
 * @param simulated run on the simulated CUDA runtime (no GPU needed)
 * @param mallocThresholdBytes host allocations below this size are not recorded
 * @param waitForChildren how long to wait, after the program exits, for descendants that are still
 *     connected
 * @param libraries where libapptrace.so and the simulated runtime are
 * @param programOutput where the program's standard output goes: the terminal (the default) or
 *     a file ({@code Redirect.to}, {@code appendTo}, {@code DISCARD})
 * @param programErrors where the program's standard error goes: the same
 */
public record CaptureOptions(
    List<String> command,
    Path output,
    boolean simulated,
    long mallocThresholdBytes,
    Duration waitForChildren,
    NativeLibraries libraries,
    ProcessBuilder.Redirect programOutput,
    ProcessBuilder.Redirect programErrors) {

  /** Options with the program writing to the terminal. */
  public CaptureOptions(List<String> command, Path output, boolean simulated, long mallocThresholdBytes,
      Duration waitForChildren, NativeLibraries libraries) {
    this(command, output, simulated, mallocThresholdBytes, waitForChildren, libraries,
        ProcessBuilder.Redirect.INHERIT, ProcessBuilder.Redirect.INHERIT);
  }

  public CaptureOptions {
    command = List.copyOf(command);
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(waitForChildren, "waitForChildren");
    Objects.requireNonNull(libraries, "libraries");
    Objects.requireNonNull(programOutput, "programOutput");
    Objects.requireNonNull(programErrors, "programErrors");
    for (ProcessBuilder.Redirect r : List.of(programOutput, programErrors)) {
      if (r.type() != ProcessBuilder.Redirect.Type.INHERIT && r.type() != ProcessBuilder.Redirect.Type.WRITE
          && r.type() != ProcessBuilder.Redirect.Type.APPEND) {
        throw new IllegalArgumentException("the program's output goes to the terminal or a file, not " + r);
      }
    }
    if (command.isEmpty()) {
      throw new IllegalArgumentException("command is empty");
    }
    if (mallocThresholdBytes < 0) {
      throw new IllegalArgumentException("mallocThresholdBytes < 0: " + mallocThresholdBytes);
    }
  }

  /** The default output: {@code <command name>.apptrace} in the current directory. */
  public static Path defaultOutput(List<String> command) {
    String name = Path.of(command.get(0)).getFileName().toString();
    return Path.of(name + io.apptrace.trace.TraceFormat.EXTENSION);
  }
}
