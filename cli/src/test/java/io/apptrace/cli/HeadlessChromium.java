package io.apptrace.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium, headless, for tests of what a browser makes of a page: the DOM after its
 * scripts ran, what it wrote to its console, and a screenshot. Each run has a fresh profile and no
 * network services (no sync, updates, QUIC or background requests).
 */
final class HeadlessChromium {
  /** Where Debian installs it ({@code apt-get install chromium}); {@code -Dapptrace.chromium=PATH} elsewhere. */
  static final Path BINARY = Path.of(System.getProperty("apptrace.chromium", "/usr/bin/chromium"));

  /** What Chromium printed of a page: the DOM on stdout, its log (console messages too) on stderr. */
  record Output(String dom, String log) {
    /**
     * The page's console messages, errors and uncaught exceptions included: with
     * {@code --enable-logging=stderr} Chromium logs each as a {@code CONSOLE} line.
     */
    List<String> console() {
      return log.lines().filter(l -> l.contains(":CONSOLE")).toList();
    }
  }

  private HeadlessChromium() {}

  /** Chromium, when this machine has it. */
  static Optional<Path> find() {
    return Files.isExecutable(BINARY) ? Optional.of(BINARY) : Optional.empty();
  }

  /** The page's DOM once its scripts ran, and the log of the run. */
  static Output dumpDom(Path page, Path scratch) throws IOException, InterruptedException {
    return run(scratch, "--dump-dom", page.toUri().toString());
  }

  /** A screenshot of the page, {@code width} by {@code height} CSS pixels, as PNG. */
  static Output screenshot(Path page, Path png, int width, int height, Path scratch)
      throws IOException, InterruptedException {
    return run(scratch, "--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height,
        "--hide-scrollbars", page.toUri().toString());
  }

  private static Output run(Path scratch, String... args) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory(scratch, "chromium-profile");
    List<String> cmd = new ArrayList<>(List.of(BINARY.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"));
    cmd.addAll(List.of(args));
    Path out = scratch.resolve("chromium.out");
    Path err = scratch.resolve("chromium.err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    // a guard against a browser that hangs, not a measure of anything
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("Chromium did not finish: " + cmd);
    }
    String log = Files.readString(err, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IllegalStateException("Chromium exited with " + p.exitValue() + ": " + cmd + "\n" + log);
    }
    return new Output(Files.readString(out, StandardCharsets.UTF_8), log);
  }
}
