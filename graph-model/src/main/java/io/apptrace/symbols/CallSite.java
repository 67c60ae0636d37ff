package io.apptrace.symbols;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where a call was made: the calling function and, when the object has DWARF line information,
 * the source file and line of the call.
 *
 * @param function the function name, demangled when it came from {@code addr2line}; the raw
 *     symbol name when it came from an ELF symbol table
 * @param file the source file as the debug information names it (usually an absolute path)
 * @param line the 1-based source line; present only together with {@code file}
 */
public record CallSite(String function, Optional<String> file, OptionalInt line) {
  /**
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code function} is blank, {@code line} is not positive,
   *     or {@code line} is present without {@code file}
   */
  public CallSite {
    Objects.requireNonNull(function, "function");
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(line, "line");
    if (function.isBlank()) {
      throw new IllegalArgumentException("function name is blank");
    }
    if (line.isPresent() && (line.getAsInt() <= 0 || file.isEmpty())) {
      throw new IllegalArgumentException(
          "line " + line.getAsInt() + " needs a file and must be > 0");
    }
  }

  /** A call site known only by its function name. */
  public static CallSite ofFunction(String function) {
    return new CallSite(function, Optional.empty(), OptionalInt.empty());
  }

  /**
   * The function, then the file's last name component and the line in parentheses when known:
   * {@code main (vecadd.cu:31)}, {@code main (vecadd.cu)} or {@code main}.
   */
  @Override
  public String toString() {
    if (file.isEmpty()) {
      return function;
    }
    String where = file.get().substring(file.get().lastIndexOf('/') + 1);
    return function + " (" + where + (line.isPresent() ? ":" + line.getAsInt() : "") + ")";
  }
}
