package io.apptrace.cli;

import io.apptrace.graph.CallSites;
import io.apptrace.graph.DotExport;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.DvdgSummary;
import io.apptrace.graph.DvdgSummaryJson;
import io.apptrace.graph.GraphMlExport;
import io.apptrace.graph.JsonExport;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Stack;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace graph FILE [--graphml OUT] [--dot OUT] [--json [OUT]] [--summary]}. */
@Command(
    name = "graph",
    header = "Builds a trace's dynamic value dependence graph: summary, races, exports.",
    description =
        "Builds the dynamic value dependence graph of a trace: values (memory regions in"
            + " versions) joined by the copies, memsets and kernels that read and write them. Writes"
            + " it as GraphML, DOT or JSON, and prints a summary (the default when no output is asked"
            + " for).")
final class GraphCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "A trace (.apptrace).")
  Path file;

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
    java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.problem(file);
    if (unreadable.isPresent()) {
      throw new UserException("cannot read " + file + ": " + unreadable.get());
    }
    Path jsonOut = json != null && !json.isEmpty() ? Path.of(json) : null;
    boolean summaryJson = json != null && json.isEmpty();
    for (Path p : new Path[] {graphml, dot, jsonOut}) {
      ExportFile.check(p);
    }
    // an export to - takes standard output: the summary and what was written go to stderr
    boolean exportToStdout = ExportFile.oneToStdout(summaryJson ? "--json without OUT (the summary)" : null, graphml,
        dot, jsonOut);
    Dvdg g;
    try {
      g = DvdgBuilder.build(file);
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    }
    boolean exporting = graphml != null || dot != null || jsonOut != null;
    CallSites sites = exporting && !noSymbols ? CallSites.of(g) : CallSites.none();
    PrintWriter out = spec.commandLine().getOut();
    ExportFile.writeText(graphml, w -> GraphMlExport.write(g, sites, w), out);
    ExportFile.writeText(dot, w -> DotExport.write(g, sites, w), out);
    ExportFile.writeText(jsonOut, w -> JsonExport.write(g, sites, w), out);
    PrintWriter report = exportToStdout ? spec.commandLine().getErr() : out;
    if (summaryJson) {
      out.println(DvdgSummaryJson.of(g, DvdgSummary.of(g), file.toString()).toPrettyString());
    } else if (summary || !exporting) {
      new GraphSummaryText(report).print(g, DvdgSummary.of(g), file.toString());
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
