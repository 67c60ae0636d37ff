package io.apptrace.calibrate;

import io.apptrace.node.TransferKind;
import java.util.List;

/**
 * What a calibration measured on a machine, and what it could not measure and why.
 *
 * @param machine the machine and the runtime it ran on
 * @param sizing what was measured per benchmark
 * @param series the copy benchmarks, one series of sizes per benchmark and target
 * @param gaps the per-stream gap g per direction (pinned memory)
 * @param faults the page-fault latencies
 * @param skipped the benchmarks that did not run, with why
 */
public record CalibrationResult(CalibrationMachine machine, Sizing sizing, List<Series> series, List<Gap> gaps,
    List<PageFault> faults, List<Skipped> skipped) {
  public CalibrationResult {
    series = List.copyOf(series);
    gaps = List.copyOf(gaps);
    faults = List.copyOf(faults);
    skipped = List.copyOf(skipped);
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

  /** A benchmark that did not run, or stopped, and why. */
  public record Skipped(String benchmark, String where, String reason) {}

  /** The series of a benchmark and target, if it ran. */
  public java.util.Optional<Series> series(Benchmark b, Target t) {
    return series.stream().filter(s -> s.benchmark() == b && s.target().equals(t)).findFirst();
  }
}
