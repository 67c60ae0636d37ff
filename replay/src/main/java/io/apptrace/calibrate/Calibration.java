package io.apptrace.calibrate;

import io.apptrace.calibrate.CalibrationResult.Skipped;
import io.apptrace.node.TransferKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Runs a calibration (docs/CALIBRATE.md): loads the CUDA runtime, plans the benchmarks for every
 * NUMA node and GPU, runs them one after the other on a thread of their own (NUMA binding is per
 * thread, and ends with it), and collects what they measured. A benchmark that fails is reported
 * through the {@link Listener} and left out; the others still run.
 */
public final class Calibration {
  /** What a calibration says while it runs (from its own thread). */
  public interface Listener {
    /** {@code fraction} of the plan is done; {@code what} runs now. */
    void progress(double fraction, String what);

    /** A benchmark did not run, or stopped. */
    void skipped(Skipped s);

    /** Something the user must know, such as that there is no GPU and the numbers will not be real. */
    void warn(String message);
  }

  /**
   * @param simulated calibrate the simulated runtime ({@code --sim})
   * @param quick fewer sizes and repetitions ({@code --quick})
   * @param simulator the simulated runtime's library, where apptrace's native files are (used with
   *     {@code --sim}, or when there is no GPU)
   */
  public record Options(boolean simulated, boolean quick, Optional<Path> simulator) {
    public Options {
      Objects.requireNonNull(simulator, "simulator");
    }
  }

  private final Options options;
  private final Listener listener;

  private Calibration(Options options, Listener listener) {
    this.options = options;
    this.listener = listener;
  }

  /**
   * Calibrates.
   *
   * @throws CalibrationException if no runtime can be loaded or it cannot describe its GPUs
   */
  public static CalibrationResult run(Options options, Listener listener) throws CalibrationException {
    Calibration c = new Calibration(Objects.requireNonNull(options, "options"), Objects.requireNonNull(listener,
        "listener"));
    FutureTask<CalibrationResult> task = new FutureTask<>(c::calibrate);
    Thread worker = new Thread(task, "apptrace-calibrate");
    worker.start();
    try {
      return task.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CalibrationException("interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CalibrationException ce) {
        throw ce;
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private CalibrationResult calibrate() throws CalibrationException {
    Runtimes.Loaded rt = options.simulated() ? Runtimes.simulated(options.simulator(), "--sim")
        : Runtimes.systemOrSimulated(options.simulator(), listener::warn);
    Numa numa = Numa.detect();
    CalibrationMachine machine = Runtimes.describe(rt, numa);
    Sizing sizing = options.quick() ? Sizing.quick() : Sizing.full();
    Plan plan = new Plan(machine, sizing, new CopyBenchmarks(rt.cuda(), numa, sizing),
        new LatencyBenchmarks(rt.cuda(), numa, sizing), new HostOverheadBenchmarks(rt.cuda(), numa, sizing));
    List<Plan.Step> steps = plan.steps();
    int total = steps.stream().mapToInt(Plan.Step::units).sum();
    int done = 0;
    List<Skipped> skipped = new ArrayList<>(plan.skippedUpFront());
    skipped.forEach(listener::skipped);
    for (Plan.Step s : steps) {
      int before = done;
      listener.progress((double) before / total, s.label());
      try {
        s.action().run((k, of) -> listener.progress((before + (double) k * s.units() / of) / total, s.label()));
      } catch (CudaException e) {
        skip(skipped, s, e.getMessage());
      } catch (OutOfMemoryError e) {
        skip(skipped, s, "not enough host memory (" + e.getMessage() + ")");
      } catch (Plan.NotRun e) {
        skip(skipped, s, e.getMessage());
      }
      done += s.units();
    }
    listener.progress(1.0, "done");
    return new CalibrationResult(machine, sizing, plan.series(), plan.gaps(), plan.faults(), plan.memsets(),
        plan.jnaCall(), plan.calls(), skipped);
  }

  private void skip(List<Skipped> skipped, Plan.Step s, String reason) {
    Skipped k = new Skipped(s.benchmark(), s.where(), reason);
    skipped.add(k);
    listener.skipped(k);
  }

  /** For {@link Plan}: the kind a gap is measured on. */
  static Benchmark pinned(TransferKind.Way way) {
    return way == TransferKind.Way.H2D ? Benchmark.PINNED_TO_GPU : Benchmark.GPU_TO_PINNED;
  }
}
