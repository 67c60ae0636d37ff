package io.apptrace.stats;

import java.util.Map;
import java.util.TreeMap;

/**
 * The ranges and marks one process named (NVTX ranges, its profiler range "cudaProfiler"), paired
 * as {@link io.apptrace.trace.NvtxRanges} pairs them. Names of a named NVTX domain are written
 * {@code domain:name}, as {@code replay --roi} takes them.
 */
public final class NvtxCounts {
  private long ranges;
  private long unclosed;
  private long marks;
  private final Map<String, Long> rangeNames = new TreeMap<>();
  private final Map<String, Long> markNames = new TreeMap<>();

  void range(String name, String domain, boolean closedAtEnd) {
    ranges++;
    if (closedAtEnd) {
      unclosed++;
    }
    rangeNames.merge(qualified(name, domain), 1L, Long::sum);
  }

  void mark(String name, String domain) {
    marks++;
    markNames.merge(qualified(name, domain), 1L, Long::sum);
  }

  private static String qualified(String name, String domain) {
    return domain.isEmpty() ? name : domain + ":" + name;
  }

  /** Ranges, closed or not. */
  public long ranges() {
    return ranges;
  }

  /** Of which never closed: they end at the last event of the thread that opened them. */
  public long unclosed() {
    return unclosed;
  }

  public long marks() {
    return marks;
  }

  /** Ranges by name, sorted by name. */
  public Map<String, Long> rangeNames() {
    return java.util.Collections.unmodifiableMap(rangeNames);
  }

  /** Marks by name, sorted by name. */
  public Map<String, Long> markNames() {
    return java.util.Collections.unmodifiableMap(markNames);
  }
}
