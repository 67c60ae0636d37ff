package io.apptrace.symbols;

import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * GNU {@code addr2line} run once per batch of addresses in one object file: {@code addr2line -a
 * -f -C -e FILE}, addresses in hex on standard input, three lines back per address (the address
 * echoed, the demangled function, {@code file:line}). Standard input and output go through
 * temporary files, so the subprocess can never block on a full pipe, and a run that outlives its
 * time limit is killed.
 *
 * <p>Without {@code -i}, a call made from code inlined into another function is reported as the
 * innermost (inlined) function with its own file and line, which is the line a reader of the
 * source looks for.
 */
final class Addr2Line {
  /** The time one run may take before it is killed. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** What addr2line said about one address; unknown parts ({@code ??}, line 0) are empty. */
  record Answer(Optional<String> function, Optional<String> file, OptionalInt line) {}

  private final Path executable;
  private final Duration timeout;

  /**
   * @throws NullPointerException if an argument is null
   */
  Addr2Line(Path executable, Duration timeout) {
    this.executable = Objects.requireNonNull(executable, "executable");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /** The {@code addr2line} found first on {@code PATH}, if any. */
  static Optional<Addr2Line> onPath() {
    String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
    return Stream.of(path.split(File.pathSeparator)).filter(dir -> !dir.isEmpty())
        .map(dir -> Path.of(dir, "addr2line"))
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
        .findFirst().map(p -> new Addr2Line(p, DEFAULT_TIMEOUT));
  }

  /**
   * Looks up ELF virtual addresses in one object file.
   *
   * @return an answer for each address
   * @throws IOException if addr2line cannot be started, fails, exceeds its time limit or prints
   *     something other than three lines per address
   */
  Map<Long, Answer> lookup(Path object, List<Long> addresses) throws IOException {
    Path dir = Files.createTempDirectory("apptrace-addr2line");
    Path in = dir.resolve("addresses");
    Path out = dir.resolve("out");
    Path err = dir.resolve("err");
    try {
      Files.writeString(in, addresses.stream().map(a -> "0x" + Long.toHexString(a) + "\n")
          .collect(Collectors.joining()));
      ProcessBuilder builder = new ProcessBuilder(executable.toString(), "-a", "-f", "-C", "-e",
          object.toString()).redirectInput(in.toFile()).redirectOutput(out.toFile())
          .redirectError(err.toFile());
      builder.environment().put("LC_ALL", "C");
      builder.environment().remove("DEBUGINFOD_URLS"); // no network look-ups for debug files
      int status = run(builder.start());
      if (status != 0) {
        throw new IOException("addr2line exited with status " + status + ": "
            + read(err).lines().findFirst().orElse("no message"));
      }
      return parse(read(out).lines().toList(), addresses);
    } finally {
      for (Path p : List.of(in, out, err, dir)) {
        Files.deleteIfExists(p);
      }
    }
  }

  private int run(Process process) throws IOException {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException("addr2line took longer than " + timeout.toMillis() + " ms");
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for addr2line");
    } finally {
      process.destroyForcibly();
    }
  }

  private static String read(Path file) throws IOException {
    return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
  }

  /**
   * Pairs addr2line's output with the addresses it was given.
   *
   * @throws IOException if the output is not three lines per address, echoing them in order
   */
  static Map<Long, Answer> parse(List<String> lines, List<Long> addresses) throws IOException {
    if (lines.size() != 3 * addresses.size()) {
      throw new IOException("addr2line printed " + lines.size() + " lines for "
          + addresses.size() + " addresses, expected " + 3 * addresses.size());
    }
    Map<Long, Answer> answers = new HashMap<>();
    for (int i = 0; i < addresses.size(); i++) {
      String echo = lines.get(3 * i).strip();
      long address = addresses.get(i);
      if (!echo.startsWith("0x") || !sameAddress(echo.substring(2), address)) {
        throw new IOException("addr2line output is out of step: line " + (3 * i + 1) + " is '"
            + echo + "', expected 0x" + Long.toHexString(address));
      }
      String function = lines.get(3 * i + 1).strip();
      Answer where = location(lines.get(3 * i + 2));
      answers.put(address, new Answer(known(function), where.file(), where.line()));
    }
    return answers;
  }

  /**
   * Parses addr2line's location line: {@code file:line}, {@code file:line (discriminator N)},
   * {@code file:?} or {@code ??:0}.
   */
  static Answer location(String text) {
    String s = text.strip();
    int discriminator = s.indexOf(" (discriminator ");
    if (discriminator >= 0) {
      s = s.substring(0, discriminator);
    }
    int colon = s.lastIndexOf(':');
    Optional<String> file = known(colon < 0 ? s : s.substring(0, colon));
    OptionalInt line = OptionalInt.empty();
    String digits = colon < 0 ? "" : s.substring(colon + 1);
    if (file.isPresent() && !digits.isEmpty() && digits.length() < 10
        && digits.chars().allMatch(c -> c >= '0' && c <= '9') && Integer.parseInt(digits) > 0) {
      line = OptionalInt.of(Integer.parseInt(digits));
    }
    return new Answer(Optional.empty(), file, line);
  }

  private static boolean sameAddress(String hex, long address) {
    try {
      return Long.parseUnsignedLong(hex, 16) == address;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static Optional<String> known(String text) {
    return text.isEmpty() || text.equals("??") ? Optional.empty() : Optional.of(text);
  }
}
