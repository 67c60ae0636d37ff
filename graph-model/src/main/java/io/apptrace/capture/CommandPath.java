package io.apptrace.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The executable a command name runs, found as execvp finds it. */
final class CommandPath {
  private CommandPath() {}

  /** A name with a slash is a path; any other is searched in PATH. */
  static Optional<Path> resolve(String cmd) {
    if (cmd.contains("/")) {
      return Optional.of(Path.of(cmd)).filter(Files::isRegularFile);
    }
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String d : path.split(":", -1)) {
      Path p = Path.of(d.isEmpty() ? "." : d, cmd);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
