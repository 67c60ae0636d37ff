package io.apptrace.calibrate;

import io.apptrace.node.ApiClass;
import io.apptrace.node.TransferKind;
import java.util.List;
import java.util.Optional;

/**
 * What a calibration measured on a machine, and what it could not measure and why.
 *
 * @param machine the machine and the runtime it ran on
 * @param sizing what was measured per benchmark
 * @param series the copy benchmarks, one series of sizes per benchmark and target
 * @param gaps the per-stream gap g per direction (pinned memory)
 * @param faults the page-fault latencies
 * @param memsets the memset benchmark, one series of sizes per GPU
 * @param jnaCall the trivial native call whose median the CUDA calls' times are net of ({@link
 *     HostOverheadBenchmarks#JNA_CALL}), if it ran
 * @param calls the host-overhead benchmarks: CUDA calls by class, timed by the host clock
 * @param skipped the benchmarks that did not run, with why
 */
public record CalibrationResult(CalibrationMachine machine, Sizing sizing, List<Series> series, List<Gap> gaps,
    List<PageFault> faults, List<MemsetSeries> memsets, Optional<SizeStats> jnaCall, List<CallSeries> calls,
    List<Skipped> skipped) {
  /**
   * The classes of the host-overhead model no benchmark can time in a running process: the context and the modules
   * exist before the first benchmark (a process creates its context once, and the runtime registers its modules
   * when it is loaded). A calibrated node file leaves them to the defaults.
   */
  public static final List<ApiClass> CALLS_NOT_MEASURABLE = List.of(ApiClass.CONTEXT_CREATE, ApiClass.MODULE);

  public CalibrationResult {
    series = List.copyOf(series);
    gaps = List.copyOf(gaps);
    faults = List.copyOf(faults);
    memsets = List.copyOf(memsets);
    java.util.Objects.requireNonNull(jnaCall, "jnaCall");
    calls = List.copyOf(calls);
    skipped = List.copyOf(skipped);
  }

  /** A result of copies, gaps and page faults only. */
  public CalibrationResult(CalibrationMachine machine, Sizing sizing, List<Series> series, List<Gap> gaps,
      List<PageFault> faults, List<Skipped> skipped) {
    this(machine, sizing, series, gaps, faults, List.of(), Optional.empty(), List.of(), skipped);
  }

  /**
   * One size of a benchmark.
   *
   * @param reps repetitions
   * @param iterations copies per repetition (a repetition's time is their mean)
   * @param seconds over the repetitions
   */
  public record SizeStats(long bytes, int reps, int iterations, Stats seconds) {}

  /** A copy benchmark at every size, for one target. */
  public record Series(Benchmark benchmark, Target target, List<SizeStats> sizes) {
    public Series {
      sizes = List.copyOf(sizes);
    }

    /**
     * L + o and G of its medians (docs/COST-MODEL.md, {@link LogGpFit}); a size whose median is 0 (below
     * the events' resolution) is left out.
     */
    public LogGpFit.Fit fit() {
      return LogGpFit.fit(sizes.stream().filter(s -> s.seconds().median() > 0)
          .map(s -> new LogGpFit.Point(s.bytes(), s.seconds().median())).toList());
    }

    /** The largest relative spread (standard deviation / median) over its sizes. */
    public double spread() {
      return sizes.stream().mapToDouble(s -> s.seconds().relativeSpread()).max().orElse(0);
    }
  }

  /**
   * The per-stream gap g of back-to-back pinned copies in one direction (van Werkhoven et al. 2014, sec. V).
   *
   * @param chunks the chunk counts m; {@code seconds[i]} the time of m[i] chunks
   */
  public record Gap(TransferKind.Way way, Target target, long chunkBytes, List<Integer> chunks,
      List<Stats> seconds, double gapSeconds) {
    public Gap {
      chunks = List.copyOf(chunks);
      seconds = List.copyOf(seconds);
    }
  }

  /**
   * A page-fault latency (Pearson 2018, sec. 5.2, Table 5.5): the slope of a linked-list traversal's time over
   * its length.
   *
   * @param key {@code cpu_to_gpu}, {@code gpu_to_cpu}, {@code gpu_gpu_local} or {@code gpu_gpu_remote}
   */
  public record PageFault(String key, String where, List<Integer> steps, List<Stats> seconds,
      double latencySeconds) {
    public PageFault {
      steps = List.copyOf(steps);
      seconds = List.copyOf(seconds);
    }
  }

  /**
   * The memsets of one GPU ({@code cudaMemset} of device memory, timed with CUDA events as the copies are).
   */
  public record MemsetSeries(int gpu, List<SizeStats> sizes) {
    public MemsetSeries {
      sizes = List.copyOf(sizes);
    }

    /** The fixed cost of one memset on the GPU: the median time of the smallest memset (1 byte). */
    public double fixedSeconds() {
      return sizes.get(0).seconds().median();
    }
  }

  /**
   * The calls of one class of the host-overhead model, timed by the host clock around the JNA call: each size's
   * times include the JNA call's own overhead (the median of {@link #jnaCall}), which {@link #cost} takes off.
   *
   * @param call the CUDA function timed
   * @param sizes one per size (bytes 0 for a call of no size)
   */
  public record CallSeries(ApiClass apiClass, String call, List<SizeStats> sizes) {
    public CallSeries {
      sizes = List.copyOf(sizes);
    }

    /** Its fixed cost and cost per MiB ({@link CallCostFit}), net of a JNA call of {@code jnaSeconds}. */
    public CallCostFit.Cost cost(double jnaSeconds) {
      return CallCostFit.fit(sizes.stream().map(z -> new CallCostFit.Point(z.bytes(), z.seconds().median()
          - jnaSeconds)).toList());
    }
  }

  /** The JNA call overhead the CUDA calls' times are net of: the trivial call's median, 0 if it did not run. */
  public double jnaSeconds() {
    return jnaCall.map(z -> z.seconds().median()).orElse(0.0);
  }

  /** A benchmark that did not run, or stopped, and why. */
  public record Skipped(String benchmark, String where, String reason) {}

  /** The series of a benchmark and target, if it ran. */
  public java.util.Optional<Series> series(Benchmark b, Target t) {
    return series.stream().filter(s -> s.benchmark() == b && s.target().equals(t)).findFirst();
  }
}
