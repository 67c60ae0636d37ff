package io.apptrace.imports;

import java.util.LinkedHashMap;
import java.util.Map;

/** The problems an import met, each kind counted, in the order each kind was first met. */
final class ImportWarnings {
  private final Map<String, Long> counts = new LinkedHashMap<>();

  /** Counts a problem of kind {@code what}. */
  void warn(String what) {
    counts.merge(what, 1L, Long::sum);
  }

  /** Counts {@code n} problems of kind {@code what}; nothing when {@code n} is 0. */
  void warn(String what, long n) {
    if (n > 0) {
      counts.merge(what, n, Long::sum);
    }
  }

  /** Each kind with its count (a live view). */
  Map<String, Long> counts() {
    return counts;
  }
}
