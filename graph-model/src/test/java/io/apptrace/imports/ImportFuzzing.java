package io.apptrace.imports;

import io.apptrace.fuzz.FuzzTarget;
import io.apptrace.trace.TraceReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * Runs one fuzzed file through {@code apptrace import}: the import succeeds (perhaps with
 * warnings, or noting that the file ends early) and writes a trace that reads back whole, or it
 * refuses the file with a one-line {@link Importer.ImportException} and leaves no output.
 */
final class ImportFuzzing implements AutoCloseable {
  private final Path dir;
  private final Path out;

  ImportFuzzing(String prefix) throws IOException {
    dir = Files.createTempDirectory(prefix);
    out = dir.resolve("out.apptrace");
  }

  Path dir() {
    return dir;
  }

  /** Imports {@code input} written as {@code name}; returns "imported", "truncated" or "refused". */
  String run(byte[] input, String name) throws Throwable {
    Path in = dir.resolve(name);
    Files.write(in, input);
    Importer.Result r;
    try {
      r = Importer.run(in, out, Importer.Options.defaults().withTmpDir(dir));
    } catch (Importer.ImportException e) {
      FuzzTarget.oneLine(e.getMessage(), e);
      if (Files.exists(out) || Files.exists(dir.resolve("out.apptrace.partial"))) {
        throw new AssertionError("a refused import left output behind", e);
      }
      return "refused";
    }
    for (String w : r.warnings().keySet()) {
      FuzzTarget.oneLine(w, null);
    }
    TraceReader.Trace t = TraceReader.readAll(out);
    if (t.truncation().isPresent()) {
      throw new AssertionError("the imported trace does not read back whole: " + t.truncation().get());
    }
    Files.delete(out);
    return r.truncatedAt() != null ? "truncated" : "imported";
  }

  @Override
  public void close() throws IOException {
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
