package io.apptrace.cli;

import io.apptrace.graph.CallSites;
import io.apptrace.graph.DotExport;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.DvdgSummary;
import io.apptrace.graph.GraphMlExport;
import io.apptrace.graph.JsonExport;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace graph FILE [--graphml OUT] [--dot OUT] [--json OUT] [--summary]}. */
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

  @Option(names = "--json", paramLabel = "OUT",
      description = "Write the graph as JSON to OUT (gzipped if OUT ends in .gz).")
  Path json;

  @Option(names = "--summary", description = "Print the summary (also when writing files).")
  boolean summary;

  @Option(names = "--no-symbols", description = "Do not symbolize call sites (faster).")
  boolean noSymbols;

  @Override
  public Integer call() throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new UserException("cannot read " + file + ": no such file");
    }
    for (Path p : new Path[] {graphml, dot, json}) {
      ExportFile.check(p);
    }
    Dvdg g;
    try {
      g = DvdgBuilder.build(file);
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    }
    boolean exporting = graphml != null || dot != null || json != null;
    CallSites sites = exporting && !noSymbols ? CallSites.of(g) : CallSites.none();
    write(graphml, w -> GraphMlExport.write(g, sites, w));
    write(dot, w -> DotExport.write(g, sites, w));
    write(json, w -> JsonExport.write(g, sites, w));
    PrintWriter out = spec.commandLine().getOut();
    if (summary || !exporting) {
      new GraphSummaryText(out).print(g, DvdgSummary.of(g), file.toString());
    }
    for (Path p : new Path[] {graphml, dot, json}) {
      if (p != null) {
        out.println("wrote " + p);
      }
    }
    out.flush();
    return ExitCodes.OK;
  }

  private static void write(Path path, ExportFile.Text export) {
    if (path != null) {
      ExportFile.writeText(path, export);
    }
  }
}
