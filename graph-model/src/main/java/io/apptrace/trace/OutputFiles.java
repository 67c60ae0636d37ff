package io.apptrace.trace;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What is wrong with a path given as a file to write, in words a user can act on. apptrace writes
 * only a regular file or a new path: never through a symbolic link, and never over a device, FIFO
 * or socket, which a write-then-rename would replace with a regular file.
 */
public final class OutputFiles {
  private OutputFiles() {}

  /**
   * Why {@code file} cannot be written ({@code "it is a symbolic link, which apptrace never writes
   * through"}, ...), or empty when it is a regular file or does not exist in an existing folder.
   */
  public static Optional<String> problem(Path file) {
    if (Files.isSymbolicLink(file)) {
      return Optional.of("it is a symbolic link, which apptrace never writes through");
    }
    if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of("it is a folder");
    }
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of("it is a device, FIFO or socket, not a regular file");
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null && !Files.isDirectory(dir)) {
      return Optional.of("its folder does not exist");
    }
    return Optional.empty();
  }
}
