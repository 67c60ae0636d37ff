package io.apptrace.cli;

import io.apptrace.capture.Capture;
import io.apptrace.capture.CaptureException;
import io.apptrace.capture.CaptureOptions;
import io.apptrace.capture.CaptureResult;
import io.apptrace.capture.NativeLibraries;
import io.apptrace.graph.CallSites;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.DvdgSummary;
import io.apptrace.graph.GraphMlExport;
import io.apptrace.stats.TraceStats;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code apptrace demo}: the main job on built-in defaults. Builds the bundled example CUDA
 * program with nvcc, captures it on the simulated device, prints its statistics, builds and
 * summarizes its dependence graph (written as GraphML beside the trace), and replays it on two
 * bundled nodes (a Perfetto timeline and an HTML report beside the trace).
 */
@Command(
    name = "demo",
    header = "Builds, captures, graphs and replays the bundled example on the simulated device.",
    description =
        "Builds the bundled example CUDA program (a multi-stream copy/compute pipeline),"
            + " captures it on the simulated device, prints what it recorded, builds its"
            + " dependence graph, and replays it on two bundled nodes (ac922 and dgx1),"
            + " printing each projected timeline.")
final class DemoCommand implements Callable<Integer> {
  static final String EXAMPLE = "pipeline";
  /** The nodes the demo replays on: NVLink 2.0 and PCIe 3.0 (Pearson 2018, sec. 2.9). */
  static final List<String> DEMO_NODES = List.of("ac922", "dgx1");
  /** The region the demo projects: the program's pipeline, between the events it times it with. */
  static final String ROI_FROM = "cudaEventRecord#1";
  static final String ROI_TO = "cudaEventSynchronize";

  @Spec CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = "apptrace-demo",
      description = "Where the demo writes its program and trace (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    NativeLibraries libs = NativeLibraries.locate().orElseThrow(() -> new UserException(
        "cannot find libapptrace.so: run apptrace through its launcher, or set APPTRACE_HOME"));
    Path source = examples().resolve(EXAMPLE + ".cu");
    if (!Files.isRegularFile(source)) {
      throw new UserException("cannot find the bundled example " + source);
    }
    Files.createDirectories(dir);
    Path program = dir.resolve(EXAMPLE);
    out.println("apptrace demo: building " + source + " with nvcc -cudart shared");
    out.flush();
    compile(source, program);
    Path trace = dir.resolve(EXAMPLE + ".apptrace");
    out.println("apptrace demo: capturing " + program + " on the simulated CUDA device");
    out.flush();
    CaptureResult r;
    try {
      r = new Capture(new CaptureOptions(List.of(program.toString()), trace, true, 4096,
          Duration.ofSeconds(10), libs)).run(p -> { }, p -> { }, 250);
    } catch (CaptureException e) {
      throw new UserException(e.getMessage(), e.exitCode());
    }
    if (r.exitCode() != 0) {
      throw new UserException("the example exited with code " + r.exitCode());
    }
    out.println();
    try (TraceReader reader = TraceReader.open(trace)) {
      new StatsText(out).print(TraceStats.compute(reader), trace.toString());
    } catch (TraceException e) {
      throw new IllegalStateException("the demo's own trace is unreadable", e);
    }
    out.println();
    Path graphml = dir.resolve(EXAMPLE + ".graphml");
    out.println("apptrace demo: building its dynamic value dependence graph");
    try {
      Dvdg g = DvdgBuilder.build(trace);
      ExportFile.writeText(graphml, w -> GraphMlExport.write(g, CallSites.of(g), w), spec.commandLine().getOut());
      new GraphSummaryText(out).print(g, DvdgSummary.of(g), trace.toString());
    } catch (TraceException e) {
      throw new IllegalStateException("the demo's own trace is unreadable", e);
    }
    out.println();
    out.println("apptrace demo: replaying its pipeline, between its two events (" + ROI_FROM + " to " + ROI_TO
        + "), on two bundled nodes, " + String.join(" and ", DEMO_NODES)
        + " (kernels without measured times are priced at their lower bound)");
    try {
      io.apptrace.replay.ReplayProgram whole = io.apptrace.replay.ProgramBuilder.of(DvdgBuilder.build(trace, true));
      io.apptrace.replay.RegionOfInterest roi = io.apptrace.replay.RegionOfInterest.between(whole, ROI_FROM, ROI_TO);
      io.apptrace.replay.ReplayProgram prog = roi.cut(whole);
      out.println(roi.summary(whole, prog));
      List<io.apptrace.replay.ReplayResult> results = new ArrayList<>();
      for (String n : DEMO_NODES) {
        results.add(io.apptrace.replay.Replayer.replay(prog, io.apptrace.node.NodeLoader.resolve(n),
            io.apptrace.replay.Replayer.Options.defaults()));
      }
      Path timeline = dir.resolve(EXAMPLE + "-replay.json");
      ExportFile.write(timeline, o -> io.apptrace.replay.ChromeTrace.write(results, o), spec.commandLine().getOut());
      ReplayText text = new ReplayText(out);
      text.comparison(results);
      for (String a : io.apptrace.replay.ReplayReport.advice(results.get(0))) {
        out.println("advice on " + DEMO_NODES.get(0) + ": " + a);
      }
      out.println("apptrace demo: the projected timelines are in " + timeline + " (open it at ui.perfetto.dev)");
      Path report = dir.resolve(EXAMPLE + "-report.html");
      ReportCommand.write(report, results, trace.toString(), roi.summary(whole, prog), List.of(),
          spec.commandLine().getOut());
      out.println("apptrace demo: the report is " + report + " (open it in a browser)");
    } catch (TraceException | io.apptrace.node.NodeFileException | io.apptrace.replay.ReplayException
        | io.apptrace.replay.RegionOfInterest.NotFound e) {
      throw new IllegalStateException("the demo's replay failed", e);
    }
    out.println();
    out.println("apptrace demo: the trace is " + trace + "; its graph is " + graphml
        + "; the program is " + program);
    out.println("apptrace demo: next, try 'apptrace replay " + trace + " --roi-from " + ROI_FROM + " --roi-to "
        + ROI_TO + " --node dgx-h100 --node gh200' (without --roi-*: the whole program, set-up included) or"
        + " 'apptrace graph " + trace + " --dot " + dir.resolve(EXAMPLE + ".dot") + "'");
    out.flush();
    return ExitCodes.OK;
  }

  private static Path examples() {
    String dir = System.getProperty("apptrace.examples.dir");
    if (dir != null) {
      return Path.of(dir);
    }
    String home = System.getProperty("apptrace.home", System.getenv("APPTRACE_HOME"));
    return Path.of(home == null ? "." : home, "examples");
  }

  private static void compile(Path source, Path program) throws IOException, InterruptedException {
    String nvcc = nvcc();
    List<String> cmd = new ArrayList<>(List.of(nvcc, "-cudart", "shared", "-O2", "-o",
        program.toString(), source.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new UserException("nvcc could not build " + source + ":\n" + log.strip());
    }
  }

  private static String nvcc() {
    String cuda = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(d, "nvcc"))) {
        return Path.of(d, "nvcc").toString();
      }
    }
    Path p = Path.of(cuda, "bin", "nvcc");
    if (Files.isExecutable(p)) {
      return p.toString();
    }
    throw new UserException("nvcc not found on PATH or in " + cuda + "/bin: install the CUDA 13"
        + " toolkit (no GPU is needed) or set CUDA_HOME");
  }
}
