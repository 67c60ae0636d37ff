package io.apptrace.stats;

import io.apptrace.trace.SourceGpu;
import java.util.List;
import java.util.Optional;

/**
 * One traced process.
 *
 * @param pid process id
 * @param ppid parent process id (0 when unknown)
 * @param argv its command line
 * @param simulatedDevice whether it ran on the simulated CUDA runtime
 * @param exitCode how it exited, when known
 * @param signal the fatal signal that ended it (0 when none or unknown)
 * @param clean whether it ended with a chance to send everything (its ProcessEnd record arrived)
 * @param droppedRecords records the interposer reported lost
 * @param lostBatches batches missing from the trace (gaps in per-thread sequence numbers)
 * @param counts what it did, all threads together
 * @param threads its threads, by first appearance
 * @param gpus the GPUs its trace describes (DeviceInfo records), by device index
 * @param gpuQueryError captures: the cudaError_t with which the runtime could not describe its
 *     devices (no driver, no device), 0 when it could or the trace does not say
 * @param nvtx the ranges and marks it named
 */
public record ProcessStats(
    int pid,
    int ppid,
    List<String> argv,
    boolean simulatedDevice,
    Optional<Integer> exitCode,
    int signal,
    boolean clean,
    long droppedRecords,
    long lostBatches,
    Counts counts,
    List<ThreadStats> threads,
    List<SourceGpu> gpus,
    int gpuQueryError,
    NvtxCounts nvtx) {
  public ProcessStats {
    argv = List.copyOf(argv);
    threads = List.copyOf(threads);
    gpus = List.copyOf(gpus);
  }
}
