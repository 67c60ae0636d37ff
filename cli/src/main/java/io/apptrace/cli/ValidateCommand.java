package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.validate.DataException;
import io.apptrace.validate.ErrorStats;
import io.apptrace.validate.MemcpyData;
import io.apptrace.validate.TransferValidation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code apptrace validate transfers ...}: the models against measurements. */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    header = "Compares the models with measurements from real hardware.",
    description = "Compares apptrace's models with measurements taken on real hardware.",
    subcommands = {ValidateCommand.Transfers.class})
final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give what to validate: 'apptrace validate"
        + " transfers --node NODE --data FILE.csv'");
  }

  /** {@code apptrace validate transfers --node NODE --data FILE.csv [--machine NAME] [--setting S] [--json]}. */
  @Command(
      name = "transfers",
      mixinStandardHelpOptions = true,
      header = "Compares the transfer model with measured copy times.",
      description =
          "Compares the transfer model with measured cudaMemcpy times (the format of Pearson's"
              + " thesis data, realdata/pearson-ms-thesis/memcpy_summary.csv): WMAPE and MAPE per"
              + " transfer kind and per local or remote route, beside the same figures for the Peak-BW"
              + " and back-of-envelope baselines.")
  static final class Transfers implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--node", required = true, paramLabel = "NODE", description = "A bundled node or a node file.")
    String node;

    @Option(names = "--data", required = true, paramLabel = "FILE.csv", description = "Measured copy times.")
    Path data;

    @Option(names = "--machine", paramLabel = "NAME", description = "The data's machine to compare (default: the"
        + " node's name or one of its aliases).")
    String machine;

    @Option(names = "--setting", paramLabel = "S", description = "datasheet (default: datasheet parameters and the"
        + " measured L+o only, the setting of seeds 000) or measured (the node's measured curves win).")
    String setting = "datasheet";

    @Option(names = "--json", description = "Print JSON (docs/CLI.md).")
    boolean json;

    @Override
    public Integer call() throws Exception {
      TransferModel.Setting s = switch (setting) {
        case "datasheet" -> TransferModel.Setting.DATASHEET;
        case "measured" -> TransferModel.Setting.MEASURED;
        default -> throw new UserException("--setting '" + setting + "': use datasheet or measured",
            ExitCodes.BAD_USAGE);
      };
      Node n;
      MemcpyData.Data d;
      try {
        n = NodeLoader.resolve(node);
        d = MemcpyData.read(data);
      } catch (NodeFileException | DataException e) {
        throw new UserException(e.getMessage());
      }
      List<String> names = new ArrayList<>();
      if (machine != null) {
        names.add(machine);
      } else {
        names.add(n.name());
        names.addAll(n.aliases());
      }
      Optional<String> m = MemcpyData.pick(d, names);
      if (m.isEmpty()) {
        throw new UserException(data + " holds no rows of " + (machine != null ? "machine '" + machine + "'"
            : n.name() + (n.aliases().isEmpty() ? "" : " (or " + String.join(", ", n.aliases()) + ")"))
            + "; its machines: " + String.join(", ", MemcpyData.machines(d).keySet()) + " (choose one with --machine)");
      }
      TransferValidation.Result r;
      try {
        r = TransferValidation.run(new TransferModel(n), d, m.get(), s);
      } catch (NodeFileException e) {
        throw new UserException(e.getMessage());
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectMapper mapper = new ObjectMapper();
        out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(json(mapper, n, r)));
      } else {
        text(n, r, out);
      }
      out.flush();
      return ExitCodes.OK;
    }

    private ObjectNode json(ObjectMapper mapper, Node n, TransferValidation.Result r) {
      ObjectNode o = mapper.createObjectNode();
      o.put("node", n.name());
      o.put("data", data.toString());
      o.put("machine", r.machine());
      o.put("setting", setting);
      o.put("rows", r.rows());
      o.set("wmape_pct", figures(mapper, r, x -> x.model, true));
      o.set("mape_pct", figures(mapper, r, x -> x.model, false));
      ObjectNode base = o.putObject("baselines");
      base.set("peak_bw", figures(mapper, r, x -> x.peakBw, true));
      base.set("back_of_envelope", figures(mapper, r, x -> x.backOfEnvelope, true));
      ObjectNode baseMape = o.putObject("baselines_mape_pct");
      baseMape.set("peak_bw", figures(mapper, r, x -> x.peakBw, false));
      baseMape.set("back_of_envelope", figures(mapper, r, x -> x.backOfEnvelope, false));
      ObjectNode routes = o.putObject("by_route");
      r.byRoute().forEach((route, f) -> routes.set(route, stats(mapper, f)));
      ObjectNode groups = o.putObject("by_group");
      r.byGroup().forEach((g, f) -> groups.set(g, stats(mapper, f)));
      ObjectNode sizes = o.putObject("by_size");
      r.bySize().forEach((b, f) -> sizes.set(b, stats(mapper, f)));
      ObjectNode kinds = o.putObject("by_kind_and_route");
      r.byKindAndRoute().forEach((k, m) -> {
        ObjectNode kn = kinds.putObject(k.key());
        m.forEach((route, f) -> kn.set(route, stats(mapper, f)));
      });
      ObjectNode skipped = o.putObject("skipped");
      r.skipped().forEach(skipped::put);
      return o;
    }

    private static ObjectNode figures(ObjectMapper mapper, TransferValidation.Result r,
        java.util.function.Function<TransferValidation.Figures, ErrorStats> which, boolean wmape) {
      ObjectNode o = mapper.createObjectNode();
      for (Map.Entry<TransferKind, TransferValidation.Figures> e : r.byKind().entrySet()) {
        ErrorStats s = which.apply(e.getValue());
        o.put(e.getKey().key(), round(wmape ? s.wmapePct() : s.mapePct()));
      }
      ErrorStats all = which.apply(r.overall());
      o.put("overall", round(wmape ? all.wmapePct() : all.mapePct()));
      return o;
    }

    private static ObjectNode stats(ObjectMapper mapper, TransferValidation.Figures f) {
      ObjectNode o = mapper.createObjectNode();
      o.put("rows", f.model.count());
      o.put("wmape_pct", round(f.model.wmapePct()));
      o.put("mape_pct", round(f.model.mapePct()));
      o.put("peak_bw_wmape_pct", round(f.peakBw.wmapePct()));
      o.put("back_of_envelope_wmape_pct", round(f.backOfEnvelope.wmapePct()));
      return o;
    }

    private static double round(double v) {
      return Math.round(v * 100) / 100.0;
    }

    private void text(Node n, TransferValidation.Result r, PrintWriter out) {
      out.printf(Locale.ROOT, "%s against %s (machine %s), %s setting: %,d measurements%n", n.name(), data,
          r.machine(), setting, r.rows());
      out.printf(Locale.ROOT, "%-20s %-7s %6s  %8s %8s  %13s %13s%n", "kind", "route", "rows", "WMAPE %", "MAPE %",
          "Peak BW WMAPE", "BoE WMAPE");
      r.byKindAndRoute().forEach((k, m) -> {
        m.forEach((route, f) -> row(out, k.key(), route, f));
        if (m.size() > 1) {
          row(out, k.key(), "all", r.byKind().get(k));
        }
      });
      r.byRoute().forEach((route, f) -> row(out, "all kinds", route, f));
      r.byGroup().forEach((g, f) -> row(out, g.equals("dma") ? "DMA kinds" : "pageable kinds", "all", f));
      r.bySize().forEach((b, f) -> row(out, b, "all", f));
      row(out, "overall", "all", r.overall());
      r.skipped().forEach((why, count) -> out.printf(Locale.ROOT, "left out: %,d %s%n", count, why));
    }

    private static void row(PrintWriter out, String kind, String route, TransferValidation.Figures f) {
      out.printf(Locale.ROOT, "%-20s %-7s %6d  %8.1f %8.1f  %13.1f %13.1f%n", kind, route, f.model.count(),
          f.model.wmapePct(), f.model.mapePct(), f.peakBw.wmapePct(), f.backOfEnvelope.wmapePct());
    }
  }
}
