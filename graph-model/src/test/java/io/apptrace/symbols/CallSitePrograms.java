package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Module;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The test programs of {@code src/test/resources/symbols}, compiled with {@code -g -O0} and run:
 * each prints the return address of its call to {@code where_called()} (on the line marked
 * {@code CALL SITE}) and how it is loaded, from which {@link Run#module()} is built as the
 * tracer would record it.
 *
 * <pre>
 *   callsites.c    main                            calls where_called()
 *   callsites.cpp  shapes::Circle::area(int) const calls where_called()
 *   loaded_image.h shared: prints "site bias start end build-id"
 * </pre>
 */
final class CallSitePrograms {
  private CallSitePrograms() {}

  /**
   * One run of a test program.
   *
   * @param program the compiled program
   * @param site the return address of the marked call
   * @param module the program's module record (path, range, load bias, build id)
   * @param callLine the 1-based line of the marked call in the source
   */
  record Run(Path program, long site, Module module, int callLine) {
    /** The same module record with another path or build id. */
    Module module(String path, String buildId) {
      return module.toBuilder().setPath(path).setBuildId(buildId).build();
    }
  }

  /** Compiles {@code source} (C with gcc, C++ with g++) into {@code dir} and runs it. */
  static Run compileAndRun(Path dir, String source) throws IOException, InterruptedException {
    Path src = copy(dir, source);
    copy(dir, "loaded_image.h");
    Path program = dir.resolve(source.replace('.', '_'));
    String compiler = source.endsWith(".cpp") ? "g++" : "gcc";
    run(dir, compiler, "-g", "-O0", "-Wall", "-Wl,--build-id", "-o", program.toString(),
        src.toString());
    String[] out = run(dir, program.toString()).strip().split(" ");
    assertThat(out).hasSize(5);
    long bias = Long.parseUnsignedLong(out[1], 16);
    Module module = Module.newBuilder().setPath(program.toString())
        .setStart(Long.parseUnsignedLong(out[2], 16)).setEnd(Long.parseUnsignedLong(out[3], 16))
        .setLoadBias(bias).setBuildId(out[4].equals("-") ? "" : out[4]).build();
    return new Run(program, Long.parseUnsignedLong(out[0], 16), module, callLine(src));
  }

  private static int callLine(Path source) throws IOException {
    List<String> lines = Files.readAllLines(source);
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("CALL SITE")) {
        return i + 1;
      }
    }
    throw new IllegalStateException(source + " has no line marked CALL SITE");
  }

  private static Path copy(Path dir, String resource) throws IOException {
    try (InputStream in = CallSitePrograms.class.getResourceAsStream("/symbols/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("test resource symbols/" + resource + " is missing");
      }
      Path target = dir.resolve(resource);
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      return target;
    }
  }

  private static String run(Path dir, String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .start();
    byte[] out;
    try (InputStream in = p.getInputStream()) {
      out = in.readAllBytes();
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command[0]).isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("%s exit status; output:%n%s", String.join(" ", command), text)
        .isZero();
    return text;
  }
}
