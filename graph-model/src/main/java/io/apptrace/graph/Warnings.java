package io.apptrace.graph;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Things in a trace the graph could not make sense of (a free of an unknown pointer, a copy from
 * an unknown device address), counted by kind: never a failure, always reported.
 */
public final class Warnings {
  private final Map<String, Long> counts = new LinkedHashMap<>();
  private final Map<String, String> examples = new LinkedHashMap<>();

  void add(String kind, String example) {
    counts.merge(kind, 1L, Long::sum);
    examples.putIfAbsent(kind, example);
  }

  /** Counts by kind, in the order kinds first occurred. */
  public Map<String, Long> counts() {
    return Collections.unmodifiableMap(counts);
  }

  /** The first occurrence of each kind, for the user to look up. */
  public Map<String, String> examples() {
    return Collections.unmodifiableMap(examples);
  }

  public long total() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }
}
