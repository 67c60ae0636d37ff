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
    description =
        "Runs CMD and records what it does with CUDA memory and kernels. Exits with CMD's exit"
            + " code (128+N when signal N ended it; 127 when CMD does not exist).")
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--sim", description = "Run on the simulated CUDA runtime (no GPU needed).")
  boolean simulated;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE",
      description = "The trace to write (default: <command name>.apptrace here).")
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
    NativeLibraries libs = NativeLibraries.locate().orElseThrow(() -> new UserException(
        "cannot find libapptrace.so: run apptrace through its launcher, or set APPTRACE_HOME to"
            + " the distribution folder"));
    Path out = output != null ? output : CaptureOptions.defaultOutput(command);
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
    }
    return r.exitCode();
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
