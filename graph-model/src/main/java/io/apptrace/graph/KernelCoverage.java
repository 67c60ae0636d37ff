package io.apptrace.graph;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the graph knows of each kernel's memory accesses beyond its arguments: the kernels whose
 * launches resolved no access at all (their reads and writes are missing from the graph), and
 * the kernels whose code could not be read for which parameters they load and store through
 * ({@link PtxParamUse}), with why. Filled while the graph is built, read-only after.
 */
public final class KernelCoverage {
  private final Map<String, Integer> withoutAccess = new TreeMap<>();
  private final Map<String, String> notAnalysed = new TreeMap<>();
  private int analysed;

  void launchWithoutAccess(String kernel) {
    withoutAccess.merge(kernel, 1, Integer::sum);
  }

  void notAnalysed(String kernel, String why) {
    notAnalysed.putIfAbsent(kernel, why);
  }

  void analysed() {
    analysed++;
  }

  /** Kernels (by display name) with launches that touched no known memory, to their launches. */
  public Map<String, Integer> withoutAccess() {
    return Collections.unmodifiableMap(withoutAccess);
  }

  /** Kernels (by display name) whose code was not analysed, to the reason. */
  public Map<String, String> notAnalysed() {
    return Collections.unmodifiableMap(notAnalysed);
  }

  /** How many kernels' code was analysed. */
  public int analysedCount() {
    return analysed;
  }
}
