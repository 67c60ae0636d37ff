package io.apptrace.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeOverride;
import io.apptrace.replay.ProgramBuilder;
import io.apptrace.replay.RegionOfInterest;
import io.apptrace.replay.ReplayException;
import io.apptrace.replay.ReplayJson;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayResult;
import io.apptrace.replay.Replayer;
import io.apptrace.report.HtmlReport;
import io.apptrace.report.ReportPage;
import io.apptrace.report.WhatIf;
import io.apptrace.trace.TraceException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace report FILE --node NODE [--node NODE2 ...] -o OUT.html}. */
@Command(
    name = "report",
    header = "Writes a replay on node models as one HTML page to look at.",
    description =
        "Replays a trace on each node as 'apptrace replay' does and writes one self-contained HTML file"
            + " (it opens offline): the makespans and critical-path breakdowns, each node's projected timeline"
            + " beside the measured one (zoom and pan), the copies' bandwidth against the transfer model, the"
            + " what-ifs and the advice. Its numbers are those of 'apptrace replay --json' with the same options."
            + " See docs/REPORT.md.")
final class ReportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "A trace (.apptrace).")
  Path file;

  @Option(names = "--node", required = true, paramLabel = "NODE",
      description = "A bundled node (see 'apptrace nodes') or a node file; repeat to compare nodes.")
  List<String> nodes;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT.html",
      description = "The HTML file to write ('-': standard output).")
  Path output;

  @Option(names = "--keep-measured", description = "Keep what the trace measured on its GPU, as 'apptrace replay"
      + " --keep-measured' does.")
  boolean keepMeasured;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a node-file field for this replay"
      + " (docs/NODE-FORMAT.md); applies to every node.")
  List<String> sets = new ArrayList<>();

  @Mixin RegionOptions regionOptions;

  @Mixin WhatIfOptions whatIf;

  @Override
  public Integer call() throws java.io.IOException {
    Optional<String> unreadable = io.apptrace.trace.InputFiles.problem(file);
    if (unreadable.isPresent()) {
      throw new UserException("cannot read " + file + ": " + unreadable.get());
    }
    List<NodeOverride> overrides = Nodes.overrides(sets);
    ExportFile.check(output);
    List<Node> targets = new ArrayList<>();
    for (String n : nodes) {
      targets.add(Nodes.resolve(n, overrides));
    }
    whatIf.parsed();
    ReplayProgram program;
    io.apptrace.replay.ProgramValues values = null;
    try {
      io.apptrace.graph.Dvdg g = DvdgBuilder.build(file, true);
      program = ProgramBuilder.of(g);
      if (whatIf.any()) {
        values = io.apptrace.replay.ProgramValues.of(g);
      }
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    }
    ReplayProgram whole = program;
    String region = null;
    Optional<RegionOfInterest> roi = regionOptions.region(program);
    if (roi.isPresent()) {
      ReplayProgram cut = roi.get().cut(program);
      region = roi.get().summary(program, cut);
      program = cut;
    }
    Replayer.Options options = Replayer.Options.defaults().withKeepMeasured(keepMeasured);
    List<ReplayResult> results = new ArrayList<>();
    for (Node n : targets) {
      try {
        results.add(Replayer.replay(program, n, options));
      } catch (ReplayException | NodeFileException e) {
        throw new UserException(n.name() + ": " + e.getMessage());
      }
    }
    List<WhatIf> whatIfs = new ArrayList<>();
    if (values != null) {
      List<io.apptrace.replay.WhatIfs.Outcome> outcomes;
      try {
        outcomes = whatIf.run(whole, values, results, p -> roi.isPresent() ? roi.get().cut(p) : p);
      } catch (ReplayException | NodeFileException e) {
        throw new UserException("--what-if: " + e.getMessage());
      }
      whatIfs.add(new WhatIf(String.join(" + ", whatIf.whatIfs), outcomes.stream().map(o -> new WhatIf.NodeResult(
          o.node(), o.beforeNs(), o.afterNs())).toList()));
    }
    PrintWriter out = ExportFile.stdout(output) ? spec.commandLine().getErr() : spec.commandLine().getOut();
    write(output, results, file.toString(), region, whatIfs, spec.commandLine().getOut());
    if (!ExportFile.stdout(output)) {
      out.println("apptrace report: wrote " + output + " (open it in a browser; it needs no network)");
    }
    out.flush();
    return ExitCodes.OK;
  }

  /**
   * Writes the report of {@code results} to OUT as every export is written ({@link ExportFile}):
   * whole or not at all, never through a symbolic link.
   *
   * @param region the region of interest's summary, or null
   * @param stdout where OUT {@code -} goes
   */
  static void write(Path out, List<ReplayResult> results, String trace, String region, List<WhatIf> whatIfs,
      PrintWriter stdout) {
    ObjectNode json = ReplayJson.of(results, trace, 0);
    if (region != null) {
      json.put("region", region);
    }
    ReportPage page;
    try {
      page = ReportPage.of(results, json, whatIfs, region);
    } catch (NodeFileException e) {
      throw new UserException(e.getMessage());
    }
    ExportFile.writeText(out, w -> HtmlReport.write(page, w), stdout);
  }
}
