package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.validate.DataException;
import io.apptrace.validate.MeasurementFiles;
import io.apptrace.validate.ReferenceLatency;
import io.apptrace.validate.TransferValidation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code apptrace validate transfers|kernels|timing|calls ...}: the models against measurements. */
@Command(
    name = "validate",
    header = "Compares the models with measurements from real hardware.",
    description = "Compares apptrace's models with measurements taken on real hardware.",
    subcommands = {ValidateCommand.Transfers.class, ValidateKernelsCommand.class, ValidateTimingCommand.class,
        ValidateCallsCommand.class})
final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give what to validate: 'apptrace validate"
        + " transfers --node NODE --data FILE', 'apptrace validate kernels --data FILE --from GPU --to GPU',"
        + " 'apptrace validate timing --data TRACE...' or 'apptrace validate calls --node NODE --data TRACE...'");
  }

  /**
   * {@code apptrace validate transfers --node NODE --data FILE... [--machine NAME] [--setting S]
   * [--reference-node REF --reference-data FILE...] [--json]}.
   */
  @Command(
      name = "transfers",
      header = "Compares the transfer model with measured copy times.",
      description =
          "Compares the transfer model with measured copy times: cudaMemcpy times in the format of Pearson's"
              + " thesis data (Pearson 2018; docs/CLI.md gives the columns), or every copy with a measured GPU"
              + " time in apptrace traces (captured, or imported from nvprof, Nsight Systems or Kineto): WMAPE and"
              + " MAPE per transfer kind and per local or remote route, beside the same figures for the Peak-BW and"
              + " back-of-envelope baselines. With --reference-node, also the projection of Abdelhafez et al. 2019,"
              + " sec. IV-C:"
              + " L+o from the reference node's measured copies, the rest from the node's datasheet.")
  static final class Transfers implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--node", required = true, paramLabel = "NODE", description = "A bundled node or a node file.")
    String node;

    @Option(names = "--data", required = true, arity = "1..*", paramLabel = "FILE", description = "Measured copy"
        + " times: CSV files (docs/CLI.md gives their layouts) or apptrace traces, told apart by their first bytes.")
    List<Path> data;

    @Option(names = "--machine", paramLabel = "NAME", description = "The CSV data's machine to compare (default: the"
        + " node's name or one of its aliases). A trace's copies are all compared.")
    String machine;

    @Option(names = "--setting", paramLabel = "S", description = "Which setting the main table shows: datasheet"
        + " (default without --reference-node: datasheet parameters and the node's measured L+o, the setting of"
        + " Abdelhafez et al. 2019 on its own node), measured (the node's measured curves win) or reference"
        + " (default with --reference-node: L+o from the reference node). Every setting that applies is shown side by side too.")
    String setting;

    @Mixin ReferenceOptions reference;

    @Option(names = "--json", description = "Print JSON (docs/CLI.md).")
    boolean json;

    @Override
    public Integer call() throws Exception {
      String primary = primarySetting();
      Optional<ReferenceOptions.Loaded> ref = reference.load();
      Node n;
      MeasurementFiles.Selection sel;
      try {
        n = NodeLoader.resolve(node);
        sel = select(n);
      } catch (NodeFileException | DataException e) {
        throw new UserException(e.getMessage());
      }
      Set<TransferKind> used = EnumSet.noneOf(TransferKind.class);
      sel.rows().forEach(row -> used.add(row.kind()));
      Optional<ReferenceLatency.Applied> applied = ref.map(x -> ReferenceOptions.apply(x, n, used,
          spec.commandLine().getErr(), "apptrace validate transfers"));
      List<TransferKind> fallback = applied.map(ReferenceLatency.Applied::fallback).orElse(List.of());
      ValidateReport report = new ValidateReport(n, data, sel, primary, settings(n, sel, applied, primary), ref,
          fallback, fittedTo(n));
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectMapper mapper = new ObjectMapper();
        out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(report.json(mapper)));
      } else {
        report.text(out);
      }
      out.flush();
      return ExitCodes.OK;
    }

    /** The main setting's name; exit 2 for a bad one or a reference setting without a reference. */
    private String primarySetting() {
      reference.checkUsage();
      String primary = setting != null ? setting : reference.given() ? "reference" : "measured";
      if (!List.of("datasheet", "measured", "reference").contains(primary)) {
        throw new UserException("--setting '" + setting + "': use datasheet, measured or reference",
            ExitCodes.BAD_USAGE);
      }
      if (primary.equals("reference") && !reference.given()) {
        throw new UserException("--setting reference needs --reference-node and --reference-data",
            ExitCodes.BAD_USAGE);
      }
      return primary;
    }

    /** The data files the node's measured figures were fitted to (its measured.fitted_to). */
    private List<String> fittedTo(Node n) {
      List<String> in = new ArrayList<>();
      if (n.measured().fittedTo().isEmpty()) {
        return in;
      }
      for (Path p : data) {
        try {
          if (n.measured().fittedTo(io.apptrace.node.Sha256.hex(p)).isPresent()) {
            in.add(p.getFileName().toString());
          }
        } catch (java.io.IOException e) {
          throw new UserException(p + ": cannot read it (" + e.getMessage() + ")");
        }
      }
      return in;
    }

    /** The rows to compare: the CSVs' rows of the node (or --machine), every timed copy of the traces. */
    private MeasurementFiles.Selection select(Node n) throws DataException {
      List<String> names = new ArrayList<>();
      if (machine != null) {
        names.add(machine);
      } else {
        names.add(n.name());
        names.addAll(n.aliases());
      }
      String whose = machine != null ? "machine '" + machine + "'" : n.name() + (n.aliases().isEmpty() ? ""
          : " (or " + String.join(", ", n.aliases()) + ")");
      return MeasurementFiles.load(data, names, whose, "choose one with --machine");
    }

    /**
     * The results of every setting that applies, in report order: reference (when given),
     * datasheet, measured (when the node has measured curves or it is the main setting).
     */
    private static Map<String, TransferValidation.Result> settings(Node n, MeasurementFiles.Selection sel,
        Optional<ReferenceLatency.Applied> applied, String primary) {
      Map<String, TransferValidation.Result> out = new LinkedHashMap<>();
      try {
        if (applied.isPresent()) {
          out.put("reference", TransferValidation.run(new TransferModel(applied.get().node()), sel.rows(),
              sel.skipped(), sel.label(), TransferModel.Setting.DATASHEET));
        }
        TransferModel own = new TransferModel(n);
        out.put("datasheet", TransferValidation.run(own, sel.rows(), sel.skipped(), sel.label(),
            TransferModel.Setting.DATASHEET));
        if (!n.measured().curves().isEmpty() || primary.equals("measured")) {
          out.put("measured", TransferValidation.run(own, sel.rows(), sel.skipped(), sel.label(),
              TransferModel.Setting.MEASURED));
        }
      } catch (NodeFileException e) {
        throw new UserException(e.getMessage());
      }
      return out;
    }
  }
}
