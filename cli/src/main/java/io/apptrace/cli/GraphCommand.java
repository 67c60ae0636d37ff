package io.apptrace.cli;

import io.apptrace.graph.AttributedGraph;
import io.apptrace.graph.CallSites;
import io.apptrace.graph.DotExport;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgAttributes;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.DvdgSummary;
import io.apptrace.graph.DvdgSummaryJson;
import io.apptrace.graph.GraphMlExport;
import io.apptrace.graph.JsonExport;
import io.apptrace.job.Job;
import io.apptrace.jobgraph.JobAttributes;
import io.apptrace.jobgraph.JobDvdg;
import io.apptrace.jobgraph.JobDvdgBuilder;
import io.apptrace.jobgraph.JobDvdgSummary;
import io.apptrace.jobgraph.JobDvdgSummaryJson;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Stack;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace graph FILE... [--graphml OUT] [--dot OUT] [--json [OUT]] [--summary]}. */
@Command(
    name = "graph",
    header = "Builds a trace's dynamic value dependence graph: summary, races, exports.",
    description =
        "Builds the dynamic value dependence graph of a trace: values (memory regions in"
            + " versions) joined by the copies, memsets and kernels that read and write them. Writes"
            + " it as GraphML, DOT or JSON, and prints a summary (the default when no output is asked"
            + " for). Given the traces of an MPI job's ranks (several files, or a folder), builds the"
            + " job's graph: every rank's, joined by the job's MPI and NCCL messages and collectives (docs/JOBS.md).")
final class GraphCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "FILE",
      description = "A trace (.apptrace); or the traces of a job's ranks, or a folder holding them.")
  List<Path> files;

  @Option(names = "--graphml", paramLabel = "OUT", description = "Write GraphML to OUT (gzipped if OUT ends in .gz).")
  Path graphml;

  @Option(names = "--dot", paramLabel = "OUT", description = "Write Graphviz DOT to OUT (gzipped if OUT ends in .gz).")
  Path dot;

  @Option(names = "--json", paramLabel = "OUT", arity = "0..1", parameterConsumer = JsonOut.class,
      description = "Write the graph as JSON to OUT (gzipped if OUT ends in .gz). Without OUT: print the"
          + " summary as JSON (docs/CLI.md).")
  String json;

  @Option(names = "--summary", description = "Print the summary (also when writing files).")
  boolean summary;

  @Option(names = "--no-symbols", description = "Do not symbolize call sites (faster).")
  boolean noSymbols;

  @Override
  public Integer call() throws IOException {
    boolean job = JobInput.isJob(files);
    Job ranks = job ? JobInput.read(files) : null;
    Path file = files.get(0);
    if (!job) {
      java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.problem(file);
      if (unreadable.isPresent()) {
        throw new UserException("cannot read " + file + ": " + unreadable.get());
      }
    }
    Path jsonOut = json != null && !json.isEmpty() ? Path.of(json) : null;
    boolean summaryJson = json != null && json.isEmpty();
    for (Path p : new Path[] {graphml, dot, jsonOut}) {
      ExportFile.check(p);
    }
    // an export to - takes standard output: the summary and what was written go to stderr
    boolean exportToStdout = ExportFile.oneToStdout(summaryJson ? "--json without OUT (the summary)" : null, graphml,
        dot, jsonOut);
    boolean exporting = graphml != null || dot != null || jsonOut != null;
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter report = exportToStdout ? spec.commandLine().getErr() : out;
    if (job) {
      JobDvdg g = build(ranks);
      export(exporting ? new JobAttributes(g, r -> noSymbols ? CallSites.none() : CallSites.of(r.dvdg())) : null,
          jsonOut);
      if (summaryJson) {
        out.println(JobDvdgSummaryJson.of(JobDvdgSummary.of(g)).toPrettyString());
      } else if (summary || !exporting) {
        new JobGraphSummaryText(report).print(JobDvdgSummary.of(g));
      }
    } else {
      Dvdg g = build(file);
      export(exporting ? new DvdgAttributes(g, noSymbols ? CallSites.none() : CallSites.of(g)) : null, jsonOut);
      if (summaryJson) {
        out.println(DvdgSummaryJson.of(g, DvdgSummary.of(g), file.toString()).toPrettyString());
      } else if (summary || !exporting) {
        new GraphSummaryText(report).print(g, DvdgSummary.of(g), file.toString());
      }
    }
    // with a document on stdout, what was written goes to stderr: stdout stays that one document
    PrintWriter said = summaryJson || exportToStdout ? spec.commandLine().getErr() : out;
    for (Path p : new Path[] {graphml, dot, jsonOut}) {
      if (p != null && !ExportFile.stdout(p)) {
        said.println("wrote " + p);
      }
    }
    report.flush();
    out.flush();
    said.flush();
    return ExitCodes.OK;
  }

  private static Dvdg build(Path file) throws IOException {
    try {
      return DvdgBuilder.build(file);
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    }
  }

  private static JobDvdg build(Job job) throws IOException {
    try {
      return JobDvdgBuilder.build(job);
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    }
  }

  /** Writes the exports asked for ({@code g} null: none is). */
  private void export(AttributedGraph g, Path jsonOut) {
    PrintWriter out = spec.commandLine().getOut();
    ExportFile.writeText(graphml, w -> GraphMlExport.write(g, w), out);
    ExportFile.writeText(dot, w -> DotExport.write(g, w), out);
    ExportFile.writeText(jsonOut, w -> JsonExport.write(g, w), out);
  }

  /**
   * {@code --json}'s optional OUT: the next argument, unless it is an option or the trace itself
   * ({@code graph --json run.apptrace} asks for the summary of run.apptrace, and must not
   * overwrite the trace with JSON).
   */
  static final class JsonOut implements IParameterConsumer {
    @Override
    public void consumeParameters(Stack<String> args, ArgSpec option, CommandSpec command) {
      boolean out = !args.isEmpty() && !args.peek().startsWith("-") && !args.peek().endsWith(".apptrace");
      option.setValue(out ? args.pop() : "");
    }
  }
}
