package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.cost.KernelModel;
import io.apptrace.cost.TransferModel;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeOverride;
import io.apptrace.replay.ChromeTrace;
import io.apptrace.replay.OpsCsv;
import io.apptrace.replay.ProgramBuilder;
import io.apptrace.replay.ProgramValues;
import io.apptrace.replay.RegionOfInterest;
import io.apptrace.replay.ReplayException;
import io.apptrace.replay.ReplayJson;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayResult;
import io.apptrace.replay.Replayer;
import io.apptrace.replay.WhatIfs;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace replay FILE --node NODE [--node NODE2 ...] ...}. */
@Command(
    name = "replay",
    header = "Projects a captured application's timeline onto node models.",
    description =
        "Re-times every operation of a trace on a node model and rebuilds the timeline with CUDA's"
            + " stream, event, synchronization and copy-engine rules: the projected makespan, where it"
            + " goes (along the critical path), and how it compares with the measured one and with the"
            + " other nodes given. See docs/REPLAY.md.")
final class ReplayCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "FILE",
      description = "A trace (.apptrace); with --cluster, the traces of a job's ranks or a folder holding them.")
  List<Path> files;

  private Path file;

  @Mixin ClusterOptions clusterOptions;

  @Option(names = "--node", paramLabel = "NODE",
      description = "A bundled node (see 'apptrace nodes') or a node file; repeat to compare nodes.")
  List<String> nodes;

  @Option(names = "--timeline", paramLabel = "OUT.json",
      description = "Write the timelines as Chrome trace / Perfetto JSON (ui.perfetto.dev); gzipped if OUT ends in .gz.")
  Path timeline;

  @Option(names = "--ops-csv", paramLabel = "OUT",
      description = "Write one row per operation and node (gzipped if OUT ends in .gz).")
  Path opsCsv;

  @Option(names = "--json", description = "Print the JSON summary (docs/CLI.md) instead of text.")
  boolean json;

  @Option(names = "--keep-measured", description = "Keep what the trace measured on its GPU: operation durations and"
      + " each operation's dispatch delay (how long after it could have started it did). On the node the trace was"
      + " taken on, the replay then reproduces its timeline: the self-check.")
  boolean keepMeasured;

  @Option(names = "--keep-measured-durations", description = "Keep the trace's measured GPU durations only, not"
      + " its dispatch delays.")
  boolean keepDurations;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a node-file field for this replay:"
      + " --set gpus.gpu0.copy_engines=2, --set links.cpu0-gpu0.lanes=8 (docs/NODE-FORMAT.md); applies to every"
      + " node.")
  List<String> sets = new ArrayList<>();

  @Option(names = "--scale-kernels", paramLabel = "F", description = "Multiply every kernel's time by F.")
  double scaleKernels = 1.0;

  @Option(names = "--map", paramLabel = "gpuN=gpuM", description = "Run the trace's device N on the node's GPU M.")
  List<String> maps = new ArrayList<>();

  @Option(names = "--kernel-policy", paramLabel = "P", description = "How measured kernel times carry over to a"
      + " node whose GPU is not the trace's: model (default: the cross-GPU kernel model, docs/COST-MODEL.md), keep"
      + " (the measured times), scale-bandwidth or scale-flops (by the ratio of the GPUs' memory bandwidth or peak"
      + " FLOP/s; need --source-node).")
  String kernelPolicy = "model";

  @Option(names = "--call-costs", paramLabel = "C", description = "The CUDA calls' own durations: auto (default:"
      + " the node's host-overhead model for a trace from the simulated device, the measured durations otherwise),"
      + " model or measured (docs/REPLAY.md, \"CUDA calls\").")
  String callCosts = "auto";

  @Option(names = "--diff", paramLabel = "N", arity = "0..1", fallbackValue = "10", description = "After the"
      + " comparison of the nodes, list the N operations (default 10) whose projected durations differ most between"
      + " the first node and each other one.")
  Integer diff;

  @Option(names = "--managed-host-reads", paramLabel = "R", description = "What the host reads of managed memory,"
      + " which no trace sees: sync (default: after each synchronization, what the GPU wrote, migrating back by page"
      + " faults) or none (docs/REPLAY.md, \"Managed memory\").")
  String managedHostReads = "sync";

  @Mixin RegionOptions regionOptions;

  @Mixin WhatIfOptions whatIf;

  @Option(names = "--source-node", paramLabel = "NODE", description = "The node the trace was taken on.")
  String sourceNode;

  @Option(names = "--source-gpu", paramLabel = "NAME", description = "The GPU the trace's kernels were measured on,"
      + " as the GPU catalogue names it ('apptrace gpus'), for a trace that does not say.")
  String sourceGpu;

  @Option(names = "--setting", paramLabel = "S", description = "measured (default: measured curves win where the"
      + " node has them) or datasheet (the default with --reference-node: the projection of Abdelhafez et al. 2019).")
  String setting;

  @Mixin ReferenceOptions reference;

  @Override
  public Integer call() throws IOException {
    if (!(scaleKernels > 0)) {
      throw new UserException("--scale-kernels " + scaleKernels + ": give a factor above 0", ExitCodes.BAD_USAGE);
    }
    if (clusterOptions.given()) {
      return new JobReplayText(spec.commandLine().getOut()).replay(JobInput.read(files), clusterOptions,
          options(false), json);
    }
    if (files.size() > 1) {
      throw new UserException("the traces of a job's ranks replay on a cluster: give --cluster (docs/JOBS.md)",
          ExitCodes.BAD_USAGE);
    }
    if (nodes == null || nodes.isEmpty()) {
      throw new UserException("Missing required option: '--node=NODE'", ExitCodes.BAD_USAGE);
    }
    file = files.get(0);
    reference.checkUsage();
    Optional<String> unreadable = io.apptrace.trace.InputFiles.problem(file);
    if (unreadable.isPresent()) {
      throw new UserException("cannot read " + file + ": " + unreadable.get());
    }
    List<NodeOverride> overrides = Nodes.overrides(sets);
    ExportFile.check(timeline);
    ExportFile.check(opsCsv);
    // an export to - takes standard output: the report then goes to stderr
    boolean exportToStdout = ExportFile.oneToStdout(json ? "--json" : null, timeline, opsCsv);
    ReplayReference ref = new ReplayReference(reference.load());
    List<Node> targets = new ArrayList<>();
    for (String n : nodes) {
      targets.add(node(n, overrides));
    }
    Replayer.Options options = options(ref.given());
    whatIf.parsed();
    ReplayProgram program;
    ProgramValues values = null;
    try {
      Dvdg g = DvdgBuilder.build(file, true);
      program = ProgramBuilder.of(g);
      if (whatIf.any()) {
        values = ProgramValues.of(g);
      }
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    }
    ReplayProgram whole = program;
    Optional<String> region = Optional.empty();
    Optional<RegionOfInterest> roiCut = regionOptions.region(program);
    if (roiCut.isPresent()) {
      ReplayProgram cut = roiCut.get().cut(program);
      region = Optional.of(roiCut.get().summary(program, cut));
      program = cut;
    }
    ref.apply(targets, program, spec.commandLine().getErr());
    List<ReplayResult> results = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    List<Node> replayed = new ArrayList<>();
    List<String> replayedSpecs = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Node n = targets.get(i);
      try {
        results.add(Replayer.replay(program, n, options.withSamples(timeline != null)));
        replayed.add(n);
        replayedSpecs.add(nodes.get(i));
      } catch (ReplayException | NodeFileException e) {
        // one node that cannot run the program does not stop the others: its error stands in its place
        failed.add(n.name() + ": " + e.getMessage());
        ref.notReplayed(replayed.size());
      }
    }
    if (results.isEmpty()) {
      throw new UserException(failed.size() == 1 ? failed.get(0).substring(failed.get(0).indexOf(": ") + 2)
          : "no node could replay the trace: " + String.join("; ", failed));
    }
    targets = replayed;
    List<WhatIfs.Outcome> whatIfs = List.of();
    if (values != null) {
      try {
        whatIfs = whatIf.run(whole, values, results, p -> roiCut.isPresent() ? roiCut.get().cut(p) : p);
      } catch (ReplayException | NodeFileException e) {
        throw new UserException("--what-if: " + e.getMessage());
      }
    }
    List<String> warnings = warnings(program, options, overrides, targets, replayedSpecs, results, ref.given());
    PrintWriter stdout = spec.commandLine().getOut();
    ExportFile.writeText(opsCsv, w -> OpsCsv.write(results, w), stdout);
    ExportFile.write(timeline, o -> ChromeTrace.write(results, o), stdout);
    PrintWriter out = exportToStdout ? spec.commandLine().getErr() : stdout;
    if (json) {
      ObjectNode root = ReplayJson.of(results, file.toString(), diff == null ? 0 : diff);
      region.ifPresent(r -> root.put("region", r));
      warnings.forEach(root.withArray("warnings")::add);
      ref.json(root);
      WhatIfOptions.json(root, whatIfs);
      failed.forEach(root.putArray("not_replayed")::add);
      out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(root));
    } else {
      region.ifPresent(out::println);
      new ReplayText(out, diff == null ? 0 : diff).report(results, file.toString(), ref.lines(targets));
      WhatIfOptions.text(out, whatIfs, roiCut.isPresent());
      for (String f : failed) {
        out.println();
        out.println("not replayed on " + f);
      }
      for (Path p : new Path[] {opsCsv, timeline}) {
        if (p != null && !ExportFile.stdout(p)) {
          out.println("wrote " + p);
        }
      }
    }
    out.flush();
    if (!warnings.isEmpty()) {
      PrintWriter err = spec.commandLine().getErr();
      warnings.forEach(w -> err.println("apptrace replay: warning: " + w));
      err.flush();
    }
    if (!failed.isEmpty()) {
      PrintWriter err = spec.commandLine().getErr();
      failed.forEach(f -> err.println("apptrace replay: " + f));
      err.flush();
      return ExitCodes.BAD_INPUT;
    }
    return ExitCodes.OK;
  }

  /** What in this replay's options changes nothing, said so (docs/REPLAY.md, "What-if"). */
  private List<String> warnings(ReplayProgram program, Replayer.Options options, List<NodeOverride> overrides,
      List<Node> targets, List<String> specs, List<ReplayResult> results, boolean reference) {
    boolean readsGiven = spec.commandLine().getParseResult().hasMatchedOption("--managed-host-reads");
    NoOpWarnings.Asked asked = new NoOpWarnings.Asked(keepMeasured || keepDurations, !"model".equals(kernelPolicy),
        kernelPolicy, overrides, options.deviceMap(), readsGiven ? managedHostReads : null, diff != null);
    List<String> out = new ArrayList<>(NoOpWarnings.before(program, asked, targets));
    if (!overrides.isEmpty() && !reference) {
      List<ReplayResult> without = new ArrayList<>();
      for (String spec : specs) {
        try {
          without.add(Replayer.replay(program, node(spec, List.of()), options.withSamples(false)));
        } catch (ReplayException | NodeFileException | UserException e) {
          return out; // a node that is only replayable with the --sets: they changed something
        }
      }
      out.addAll(NoOpWarnings.after(asked, results, without));
    }
    return out;
  }

  private static Node node(String n, List<NodeOverride> overrides) {
    return Nodes.resolve(n, overrides);
  }

  private Replayer.Options options(boolean withReference) {
    String named = setting != null ? setting : withReference ? "datasheet" : "measured";
    TransferModel.Setting s = switch (named) {
      case "measured" -> TransferModel.Setting.MEASURED;
      case "datasheet" -> TransferModel.Setting.DATASHEET;
      default -> throw new UserException("--setting '" + setting + "': use measured or datasheet", ExitCodes.BAD_USAGE);
    };
    KernelModel.Policy policy = KernelModel.Policy.of(kernelPolicy).filter(p -> p != KernelModel.Policy.ROOFLINE)
        .orElseThrow(() -> new UserException("--kernel-policy '" + kernelPolicy + "': use model, keep,"
            + " scale-bandwidth or scale-flops", ExitCodes.BAD_USAGE));
    Optional<Node> source = Optional.empty();
    if (sourceNode != null) {
      source = Optional.of(node(sourceNode, List.of()));
    } else if (policy == KernelModel.Policy.SCALE_BANDWIDTH || policy == KernelModel.Policy.SCALE_FLOPS) {
      throw new UserException("--kernel-policy " + kernelPolicy + " scales from the node the trace was taken on: give"
          + " it with --source-node", ExitCodes.BAD_USAGE);
    }
    Map<Integer, Integer> map = new LinkedHashMap<>();
    for (String m : maps) {
      java.util.regex.Matcher x = java.util.regex.Pattern.compile("gpu(\\d+)=gpu(\\d+)").matcher(m.strip());
      if (!x.matches()) {
        throw new UserException("--map '" + m + "': write it like gpu1=gpu0", ExitCodes.BAD_USAGE);
      }
      map.put(Integer.parseInt(x.group(1)), Integer.parseInt(x.group(2)));
    }
    if (keepMeasured && keepDurations) {
      throw new UserException("--keep-measured and --keep-measured-durations: give one", ExitCodes.BAD_USAGE);
    }
    Optional<io.apptrace.node.GpuSpec> gpu = Optional.empty();
    if (sourceGpu != null) {
      try {
        gpu = Optional.of(io.apptrace.node.GpuCatalogue.bundled().resolve(sourceGpu));
      } catch (io.apptrace.node.NodeFileException e) {
        throw new UserException("--source-gpu: " + e.getMessage());
      }
    }
    io.apptrace.replay.CallCosts.Policy costs = io.apptrace.replay.CallCosts.Policy.of(callCosts).orElseThrow(
        () -> new UserException("--call-costs: '" + callCosts + "' is not auto, model or measured", ExitCodes.BAD_USAGE));
    if (diff != null && diff < 0) {
      throw new UserException("--diff " + diff + ": give how many operations to list, 1 or more", ExitCodes.BAD_USAGE);
    }
    io.apptrace.replay.ManagedHostReads reads = io.apptrace.replay.ManagedHostReads.of(managedHostReads);
    if (reads == null) {
      throw new UserException("--managed-host-reads: '" + managedHostReads + "' is not sync or none",
          ExitCodes.BAD_USAGE);
    }
    return new Replayer.Options(keepMeasured || keepDurations, policy, source, scaleKernels, map, s, true,
        !keepDurations, gpu, costs, reads, opsCsv != null);
  }


}
