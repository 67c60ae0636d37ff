package io.apptrace.trace;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What is wrong with a path given as an input file, in words a user can act on: every command
 * that reads a file says the same thing about a missing file, a directory or a device.
 */
public final class InputFiles {
  private InputFiles() {}

  /**
   * Why {@code file} cannot be read as a file ({@code "no such file"}, {@code "a directory, not a
   * file"}, ...), or empty when it is a readable regular file (a symbolic link to one included).
   */
  public static Optional<String> problem(Path file) {
    if (!Files.exists(file)) {
      return Optional.of(Files.exists(file, LinkOption.NOFOLLOW_LINKS) ? "a symbolic link to nothing"
          : "no such file");
    }
    if (Files.isDirectory(file)) {
      return Optional.of("a directory, not a file");
    }
    if (!Files.isRegularFile(file)) {
      return Optional.of("not a regular file (a device, FIFO or socket)");
    }
    if (!Files.isReadable(file)) {
      return Optional.of("permission denied");
    }
    return Optional.empty();
  }

  /** {@code "FILE: PROBLEM"} for an unreadable file, or empty. */
  public static Optional<String> describe(Path file) {
    return problem(file).map(p -> file + ": " + p);
  }
}
