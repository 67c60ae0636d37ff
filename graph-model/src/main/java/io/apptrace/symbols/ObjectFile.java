package io.apptrace.symbols;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One object file a trace names, checked once against what the trace recorded (the file exists,
 * its build id matches), then symbolized in batches: by addr2line when it is available and works
 * on this file, from the ELF symbol table for the addresses addr2line cannot name.
 */
final class ObjectFile {
  private final String path;
  private final String expectedBuildId;
  private final Optional<Addr2Line> addr2line;
  private Optional<String> problem;
  private boolean addr2lineFailed;
  private FunctionTable functions;

  /**
   * @param path the module's path as the trace recorded it
   * @param expectedBuildId the build id the trace recorded, in hex; empty when unknown
   * @param addr2line the addr2line to run, or empty to use only ELF symbol tables
   */
  ObjectFile(String path, String expectedBuildId, Optional<Addr2Line> addr2line) {
    this.path = path;
    this.expectedBuildId = expectedBuildId;
    this.addr2line = addr2line;
  }

  /** Why none of this object's addresses can be symbolized, or empty when they can. */
  Optional<String> problem() {
    if (problem == null) {
      problem = check().map(why -> path + ": " + why + "; its call sites are left unsymbolized");
    }
    return problem;
  }

  /**
   * Call sites for ELF virtual addresses in this object; addresses it cannot name are absent.
   * Never throws: what goes wrong is told to {@code problems}.
   */
  Map<Long, CallSite> symbolize(List<Long> addresses, Consumer<String> problems) {
    Optional<String> why = problem();
    if (why.isPresent()) {
      problems.accept(why.get());
      return Map.of();
    }
    Map<Long, Addr2Line.Answer> answers = runAddr2line(addresses, problems);
    Map<Long, CallSite> found = new HashMap<>();
    for (long a : addresses) {
      Addr2Line.Answer answer = answers.get(a);
      Optional<String> function = answer == null ? Optional.empty() : answer.function();
      if (function.isEmpty()) {
        function = functions(problems).functionAt(a);
      }
      function.ifPresent(f -> found.put(a, answer == null ? CallSite.ofFunction(f)
          : new CallSite(f, answer.file(), answer.line())));
    }
    return found;
  }

  private Optional<String> check() {
    String name = path.substring(path.lastIndexOf('/') + 1);
    if (name.startsWith("linux-vdso") || name.startsWith("linux-gate") || name.equals("[vdso]")) {
      return Optional.of("the kernel's vDSO has no file to read");
    }
    Path file;
    try {
      file = Path.of(path);
    } catch (InvalidPathException e) {
      return Optional.of("not a valid path");
    }
    if (path.isEmpty() || !Files.isRegularFile(file)) {
      return Optional.of("file not found");
    }
    if (expectedBuildId.isEmpty()) {
      return Optional.empty();
    }
    try (ElfReader elf = ElfReader.open(file)) {
      Optional<String> actual = elf.buildId();
      if (actual.isEmpty()) {
        return Optional.of("the file has no build id but the trace recorded " + expectedBuildId
            + ": it is not the file that ran");
      }
      if (!actual.get().equalsIgnoreCase(expectedBuildId)) {
        return Optional.of("build id " + actual.get() + " differs from " + expectedBuildId
            + " recorded in the trace: the file was replaced after the trace was taken");
      }
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of("cannot check its build id (" + e.getMessage() + ")");
    }
  }

  private Map<Long, Addr2Line.Answer> runAddr2line(List<Long> addresses,
      Consumer<String> problems) {
    if (addr2line.isEmpty()) {
      problems.accept("addr2line is not available: function names come from ELF symbol tables,"
          + " without file:line; install GNU binutils for source lines and demangled names");
      return Map.of();
    }
    if (addr2lineFailed) {
      return Map.of();
    }
    try {
      return addr2line.get().lookup(Path.of(path), addresses);
    } catch (IOException | RuntimeException e) {
      addr2lineFailed = true;
      problems.accept(path + ": addr2line failed (" + e.getMessage() + "); function names come"
          + " from its ELF symbol table, without file:line");
      return Map.of();
    }
  }

  private FunctionTable functions(Consumer<String> problems) {
    if (functions == null) {
      functions = FunctionTable.EMPTY;
      try (ElfReader elf = ElfReader.open(Path.of(path))) {
        functions = FunctionTable.read(elf);
      } catch (IOException | RuntimeException e) {
        problems.accept(path + ": cannot read its ELF symbol table (" + e.getMessage() + ")");
      }
    }
    return functions;
  }
}
