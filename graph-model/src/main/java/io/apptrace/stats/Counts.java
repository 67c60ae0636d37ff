package io.apptrace.stats;

import io.apptrace.trace.Direction;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What happened in one scope (a thread, a process, or the whole trace). Mutable while a trace is
 * read; read-only afterwards by convention (the accessors return the live maps, sorted by key).
 */
public final class Counts {
  private final Map<String, Long> apiCalls = new TreeMap<>();
  private final Map<String, Long> apiTimeNs = new TreeMap<>();
  private final Map<Long, Long> failuresByResult = new TreeMap<>();
  private final Map<String, Long> unsupportedCalls = new TreeMap<>();
  /** GPU work with measured GPU times, by kind: {count, GPU time ns, bytes}. */
  private final Map<String, long[]> gpuWork = new TreeMap<>();
  private final Map<String, Long> kernelLaunches = new TreeMap<>();
  private final Map<Direction, Long> bytesCopied = new EnumMap<>(Direction.class);
  private final Map<Direction, Long> copies = new EnumMap<>(Direction.class);
  private final Map<Direction, Map<String, Long>> bytesByMemory = new EnumMap<>(Direction.class);
  private final Map<String, long[]> allocations = new TreeMap<>();
  /** Launches by kernel id, named once the whole trace (and every KernelInfo) has been read. */
  final Map<Long, Long> launchesById = new TreeMap<>();
  /** CUDA graph nodes described, by kind ("kernel", "memcpy", ...). */
  private final Map<String, Long> graphNodes = new TreeMap<>();
  private long graphs;
  private long graphLaunches;
  private long capturedCalls;
  private long failedCalls;
  private long frees;
  private long memsets;
  private long memsetBytes;
  private long events;
  private long firstNs = Long.MAX_VALUE;
  private long lastNs = Long.MIN_VALUE;

  Counts() {
    for (Direction d : Direction.values()) {
      bytesCopied.put(d, 0L);
      copies.put(d, 0L);
    }
  }

  void event(long startNs, long endNs) {
    events++;
    if (startNs > 0) {
      firstNs = Math.min(firstNs, startNs);
      lastNs = Math.max(lastNs, endNs);
    }
  }

  void call(String function, long result, long durationNs) {
    apiCalls.merge(function, 1L, Long::sum);
    apiTimeNs.merge(function, Math.max(0, durationNs), Long::sum);
    if (result != 0) {
      failedCalls++;
      failuresByResult.merge(result, 1L, Long::sum);
      if (result == NOT_SUPPORTED) {
        unsupportedCalls.merge(function, 1L, Long::sum);
      }
    }
  }

  /** cudaErrorNotSupported: what the simulated device returns for a call it does not implement. */
  static final long NOT_SUPPORTED = 801;

  /** Failed calls by the error code they returned. */
  public Map<Long, Long> failuresByResult() {
    return failuresByResult;
  }

  /** Calls that returned cudaErrorNotSupported, by function name. */
  public Map<String, Long> unsupportedCalls() {
    return unsupportedCalls;
  }

  void launch(long kernelId) {
    launchesById.merge(kernelId, 1L, Long::sum);
  }

  void addLaunches(String kernel, long n) {
    kernelLaunches.merge(kernel, n, Long::sum);
  }

  void nameLaunches(java.util.function.LongFunction<String> names) {
    launchesById.forEach((id, n) -> kernelLaunches.merge(names.apply(id), n, Long::sum));
    launchesById.clear();
  }

  void copy(Direction d, String memory, long bytes) {
    bytesCopied.merge(d, bytes, Long::sum);
    copies.merge(d, 1L, Long::sum);
    bytesByMemory.computeIfAbsent(d, k -> new TreeMap<>()).merge(memory, bytes, Long::sum);
  }

  void allocation(String kind, long bytes) {
    long[] c = allocations.computeIfAbsent(kind, k -> new long[2]);
    c[0]++;
    c[1] += bytes;
  }

  void free() {
    frees++;
  }

  void gpuWork(String kind, long gpuNs, long bytes) {
    long[] w = gpuWork.computeIfAbsent(kind, k -> new long[3]);
    w[0]++;
    w[1] += gpuNs;
    w[2] += bytes;
  }

  void graph() {
    graphs++;
  }

  void graphNode(String kind) {
    graphNodes.merge(kind, 1L, Long::sum);
  }

  void graphLaunch() {
    graphLaunches++;
  }

  void captured() {
    capturedCalls++;
  }

  /**
   * Executable CUDA graphs described (each cudaGraphInstantiate* and cudaGraphExecUpdate that
   * succeeded once).
   */
  public long graphs() {
    return graphs;
  }

  /** Their nodes by kind, child graphs expanded (each executable graph's, counted once). */
  public Map<String, Long> graphNodes() {
    return graphNodes;
  }

  /** Successful cudaGraphLaunch calls, not counting launches captured into another graph. */
  public long graphLaunches() {
    return graphLaunches;
  }

  /**
   * Calls issued to a stream being captured (copies, memsets, kernel launches, stream-ordered
   * allocations and frees, event records and waits, host functions): graph nodes, not work.
   */
  public long capturedCalls() {
    return capturedCalls;
  }

  void memset(long bytes) {
    memsets++;
    memsetBytes += bytes;
  }

  /** Calls by runtime function name. */
  public Map<String, Long> apiCalls() {
    return apiCalls;
  }

  /** Time spent in calls by runtime function name, ns (each call's entry to its exit). */
  public Map<String, Long> apiTimeNs() {
    return apiTimeNs;
  }

  /**
   * Work the GPU did with measured GPU times (CUPTI, imports), by kind ({@code kernel},
   * {@code memset}, {@code memcpy h2d}, {@code memcpy d2h}, {@code memcpy d2d}, {@code memcpy p2p},
   * ...): {count, GPU time ns, bytes}. Empty for a trace without GPU times.
   */
  public Map<String, long[]> gpuWork() {
    return gpuWork;
  }

  /** Launches by kernel display name. */
  public Map<String, Long> kernelLaunches() {
    return kernelLaunches;
  }

  /** Bytes copied by direction (every direction present, 0 when none). */
  public Map<Direction, Long> bytesCopied() {
    return bytesCopied;
  }

  /** Copies by direction. */
  public Map<Direction, Long> copies() {
    return copies;
  }

  /** Bytes copied by direction and by "source kind->destination kind" of memory. */
  public Map<Direction, Map<String, Long>> bytesByMemory() {
    return bytesByMemory;
  }

  /** Allocations by memory kind: {count, bytes}. */
  public Map<String, long[]> allocations() {
    return allocations;
  }

  public long failedCalls() {
    return failedCalls;
  }

  public long frees() {
    return frees;
  }

  public long memsets() {
    return memsets;
  }

  public long memsetBytes() {
    return memsetBytes;
  }

  public long events() {
    return events;
  }

  public long totalCalls() {
    return apiCalls.values().stream().mapToLong(Long::longValue).sum();
  }

  /** First and last time covered, ns (CLOCK_MONOTONIC of the traced machine); 0 when none. */
  public long firstNs() {
    return firstNs == Long.MAX_VALUE ? 0 : firstNs;
  }

  public long lastNs() {
    return lastNs == Long.MIN_VALUE ? 0 : lastNs;
  }

  /** The wall time these events cover, ns. */
  public long wallTimeNs() {
    return firstNs == Long.MAX_VALUE ? 0 : lastNs - firstNs;
  }
}
