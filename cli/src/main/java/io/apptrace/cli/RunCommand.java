package io.apptrace.cli;

import io.apptrace.node.Units;
import io.apptrace.capture.Capture;
import io.apptrace.capture.CaptureException;
import io.apptrace.capture.CaptureOptions;
import io.apptrace.capture.CaptureResult;
import io.apptrace.capture.NativeLibraries;
import io.apptrace.capture.Program;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/** {@code apptrace run [--sim] [-o FILE] [--] CMD [ARGS...]}. */
@Command(
    name = "run",
    header = "Runs a program and records what it does with CUDA.",
    description = {
        "Runs CMD and records what it does with CUDA memory and kernels. Exits with CMD's exit"
            + " code (128+N when signal N ended it; 127 when CMD does not exist; 126 when it cannot be"
            + " executed).",
        "",
        "With --sim, CMD runs on the simulated CUDA runtime (no GPU needed). Its settings"
            + " (docs/SIMULATED-DEVICE.md):",
        "  APPTRACE_SIM_DEVICES=N     number of devices, 1 to 64",
        "  APPTRACE_SIM_CONFIG=FILE   device properties and the timing model (an INI file)",
        "  APPTRACE_SIM_REALTIME=1    synchronization waits for simulated time",
        "  APPTRACE_SIM_QUIET=1       no \"not supported\" messages on stderr"})
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--sim", description = "Run on the simulated CUDA runtime (no GPU needed).")
  boolean simulated;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE",
      description = "The trace to write (default: <command name>.apptrace here); %r in it is the rank an MPI"
          + " job launcher (mpirun, srun) gave the process, so that each rank writes its own.")
  Path output;

  @Option(names = "--malloc-threshold", paramLabel = "SIZE", defaultValue = "4KiB",
      description = "Record host allocations of at least SIZE (default: ${DEFAULT-VALUE}).")
  String mallocThreshold;

  @Option(names = "--wait-children", paramLabel = "SECONDS", defaultValue = "10",
      description = "After CMD exits, wait this long for its traced descendants (default: ${DEFAULT-VALUE}).")
  int waitChildren;

  @Option(names = {"-q", "--quiet"}, description = "No progress line and no summary.")
  boolean quiet;

  @Parameters(arity = "1..*", paramLabel = "CMD", description = "The program and its arguments.")
  List<String> command;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    Path out;
    try {
      out = output != null ? io.apptrace.capture.OutputPattern.expand(output,
          io.apptrace.capture.LauncherEnvironment.rank(System.getenv(), "")) : CaptureOptions.defaultOutput(command);
    } catch (CaptureException e) {
      throw new UserException(e.getMessage(), e.exitCode());
    }
    NativeLibraries libs = NativeLibraries.locate().orElseThrow(() -> new UserException(
        "cannot find libapptrace.so: run apptrace through its launcher, or set APPTRACE_HOME to"
            + " the distribution folder"));
    ExportFile.checkFile(out, "-o", "the trace is binary, and the program may write to standard output");
    CaptureOptions opts = new CaptureOptions(command, out, simulated,
        Sizes.parse(mallocThreshold, "--malloc-threshold"), Duration.ofSeconds(waitChildren), libs);
    boolean live = !quiet && System.console() != null;
    StatusLine progress = new StatusLine(err, live);
    CaptureResult r;
    try {
      r = new Capture(opts).run(RunCommand::forwardSignals, p -> progress.show(String.format(Locale.ROOT,
          "apptrace: recording: %d process%s, %,d events (%,.0f/s) ", p.processes(), p.processes() == 1 ? "" : "es",
          p.events(), p.events() / Math.max(1e-9, progress.seconds()))), 250);
    } catch (CaptureException e) {
      throw new UserException(e.getMessage(), e.exitCode());
    } finally {
      progress.clear();
    }
    if (!quiet) {
      summary(err, r);
      failures(err, r.trace(), simulated);
    }
    return r.exitCode();
  }

  /** Traces larger than this are not read again for the summary of failed calls (it would take seconds). */
  static final long FAILURES_READ_LIMIT = 64L << 20;

  /**
   * The calls that failed, by error, with what to do: without --sim on a machine with no usable GPU,
   * use the simulated device; on it, which calls it does not support.
   */
  static void failures(PrintWriter err, Path trace, boolean simulated) {
    io.apptrace.stats.TraceStats s;
    try {
      if (java.nio.file.Files.size(trace) > FAILURES_READ_LIMIT) {
        return;
      }
      s = StatsCommand.read(trace);
    } catch (IOException | UserException e) {
      return; // the trace's own problems are reported by stats; the capture's summary is done
    }
    io.apptrace.stats.Counts c = s.totals();
    if (c.failedCalls() == 0) {
      return;
    }
    List<String> by = new java.util.ArrayList<>();
    c.failuresByResult().entrySet().stream().sorted(java.util.Map.Entry.<Long, Long>comparingByValue().reversed())
        .limit(3).forEach(e -> by.add(io.apptrace.trace.CudaErrors.name(e.getKey())
            + (c.failuresByResult().size() > 1 ? " " + e.getValue() : "")));
    long noGpu = c.failuresByResult().getOrDefault(100L, 0L) + c.failuresByResult().getOrDefault(35L, 0L);
    String hint = !simulated && noGpu * 2 >= c.failedCalls()
        ? ": no usable GPU here; to capture on the simulated device use `apptrace run --sim`" : "";
    err.printf(Locale.ROOT, "apptrace: %,d of %,d CUDA calls failed (%s)%s%n", c.failedCalls(), c.totalCalls(),
        String.join(", ", by), hint);
    if (simulated && !c.unsupportedCalls().isEmpty()) {
      err.println("apptrace: the simulated device does not support " + String.join(", ",
          c.unsupportedCalls().keySet()) + " (they returned cudaErrorNotSupported; docs/SIMULATED-DEVICE.md)");
    }
    err.flush();
  }

  /**
   * While the program runs, Ctrl-C (which the terminal sends to it as well) must not stop the
   * collector before the program has said its last; a SIGTERM to apptrace is passed on.
   */
  private static void forwardSignals(Program p) {
    try {
      Signal.handle(new Signal("INT"), s -> { });
      Signal.handle(new Signal("TERM"), s -> p.terminate());
      Signal.handle(new Signal("HUP"), s -> p.terminate());
    } catch (IllegalArgumentException e) {
      // a signal the JVM reserves: keep its default
    }
  }

  private static void summary(PrintWriter err, CaptureResult r) {
    int processes = r.connections().size();
    err.printf(Locale.ROOT, "apptrace: recorded %,d events from %d process%s into %s (%s)%n",
        r.events(), processes, processes == 1 ? "" : "es", r.trace(), Units.size(r.traceBytes()));
    for (String n : r.notes()) {
      err.println("apptrace: note: " + n);
    }
    err.flush();
  }
}
