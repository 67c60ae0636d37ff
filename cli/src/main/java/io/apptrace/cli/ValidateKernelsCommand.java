package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.kernel.CoefficientsException;
import io.apptrace.kernel.KernelCoefficients;
import io.apptrace.kernel.KernelTimeModel;
import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Sha256;
import io.apptrace.validate.DataException;
import io.apptrace.validate.KernelFit;
import io.apptrace.validate.KernelTimesCsv;
import io.apptrace.validate.KernelValidation;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code apptrace validate kernels --data FILE (--from GPU --to GPU | --all-pairs [--leave-one-out]
 * | --fit -o OUT)}: the kernel model against kernel times measured on several GPUs.
 */
@Command(
    name = "kernels",
    header = "Compares the kernel model with kernel times measured on other GPUs.",
    description =
        "Predicts every kernel the data measured on the --from GPU on the --to GPU with the kernel model, and"
            + " compares the predictions with the --to GPU's times of the same operation and shape: WMAPE and"
            + " median APE, overall and per kernel class, beside the memory-bandwidth-ratio and FP32-ratio"
            + " baselines. The data is a CSV (gzip allowed) with the columns op, shape, gpu, time_us and"
            + " optionally flops, bytes_min, kernel_name, grid, block (the layout of NeuSight's kernel data, docs/REFERENCES.md)."
            + " --all-pairs does every ordered pair of the data's GPUs; --leave-one-out refits the coefficients"
            + " for each target without its rows; --fit writes coefficients fitted to the data.")
final class ValidateKernelsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--data", required = true, paramLabel = "FILE", description = "Measured kernel times (CSV).")
  Path data;

  @Option(names = "--from", paramLabel = "GPU", description = "The GPU the times are carried from (a catalogue"
      + " name or alias, 'apptrace gpus').")
  String from;

  @Option(names = "--to", paramLabel = "GPU", description = "The GPU to predict them on; it needs no rows in the"
      + " data (then the output only predicts).")
  String to;

  @Option(names = "--predictions", paramLabel = "OUT.csv", description = "Write one row per source row:"
      + " op,shape,kernel_name,class,from_us,measured_us,predicted_us.")
  Path predictions;

  @Option(names = "--all-pairs", description = "Every ordered pair of the data's catalogued GPUs, and the mean.")
  boolean allPairs;

  @Option(names = "--leave-one-out", description = "With --all-pairs: for each target GPU, coefficients fitted"
      + " to the data without that GPU's rows (the figures that matter for a GPU never measured).")
  boolean leaveOneOut;

  @Option(names = "--coefficients", paramLabel = "FILE", description = "Coefficients to use instead of the"
      + " bundled ones (written by --fit).")
  Path coefficients;

  @Option(names = "--fit", description = "Fit coefficients to the data (all its catalogued GPUs but --exclude)"
      + " and write them to -o.")
  boolean fit;

  @Option(names = "--exclude", paramLabel = "GPU", description = "With --fit: leave this GPU's rows out.")
  List<String> exclude = new ArrayList<>();

  @Option(names = {"-o", "--output"}, paramLabel = "OUT.yaml", description = "With --fit: where to write.")
  Path output;

  @Option(names = "--json", description = "Print JSON (docs/CLI.md).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    checkUsage();
    GpuCatalogue catalogue = GpuCatalogue.bundled();
    List<KernelTimesCsv.Row> rows;
    KernelTimeModel model;
    try {
      rows = KernelTimesCsv.read(data);
      model = new KernelTimeModel(coefficients != null ? KernelCoefficients.load(coefficients)
          : KernelCoefficients.bundled());
      if (fit) {
        return fit(rows, catalogue);
      }
      if (allPairs) {
        return allPairs(rows, catalogue, model);
      }
      return pair(rows, catalogue, catalogue.resolve(from), catalogue.resolve(to), model);
    } catch (DataException | NodeFileException | CoefficientsException e) {
      throw new UserException(e.getMessage());
    }
  }

  /** Bad usage: exit 2 with the message and the usage. */
  private void checkUsage() {
    String bad = null;
    if (fit && output == null) {
      bad = "--fit writes coefficients: give -o OUT.yaml";
    } else if (!fit && (output != null || !exclude.isEmpty())) {
      bad = (output != null ? "-o" : "--exclude") + " goes with --fit";
    } else if (leaveOneOut && !allPairs) {
      bad = "--leave-one-out goes with --all-pairs";
    } else if (allPairs && predictions != null) {
      bad = "--predictions writes one pair's predictions: give --from and --to instead of --all-pairs";
    } else if (!fit && !allPairs && (from == null || to == null)) {
      bad = "give --from GPU and --to GPU (or --all-pairs, or --fit)";
    }
    if (bad != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), bad);
    }
  }

  private int pair(List<KernelTimesCsv.Row> rows, GpuCatalogue catalogue, GpuSpec a, GpuSpec b, KernelTimeModel model)
      throws DataException, com.fasterxml.jackson.core.JsonProcessingException {
    List<GpuSpec> present = KernelValidation.catalogued(rows, catalogue);
    if (present.stream().noneMatch(g -> g.name().equals(a.name()))) {
      throw new DataException(data + ": no rows of " + a.name() + " (its catalogued GPUs: "
          + String.join(", ", present.stream().map(GpuSpec::name).toList()) + ")");
    }
    KernelValidation.Result r = KernelValidation.run(rows, catalogue, a, b, model, predictions != null);
    if (predictions != null) {
      KernelsReport.writePredictions(predictions, r);
    }
    KernelsReport report = new KernelsReport(data, model.coefficients(), inSample(model.coefficients()));
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(report.json(mapper, r)));
    } else {
      report.text(out, r);
    }
    out.flush();
    return ExitCodes.OK;
  }

  private int allPairs(List<KernelTimesCsv.Row> rows, GpuCatalogue catalogue, KernelTimeModel model)
      throws DataException, com.fasterxml.jackson.core.JsonProcessingException {
    List<GpuSpec> gpus = KernelValidation.catalogued(rows, catalogue);
    if (gpus.size() < 2) {
      throw new DataException(data + ": --all-pairs needs rows of two catalogued GPUs or more; its gpu column names "
          + String.join(", ", KernelValidation.gpus(rows, catalogue).keySet()));
    }
    List<KernelValidation.Result> results = new ArrayList<>();
    String sha = leaveOneOut ? sha(data) : "";
    for (GpuSpec b : gpus) {
      KernelTimeModel m = model;
      if (leaveOneOut) {
        List<GpuSpec> training = gpus.stream().filter(g -> !g.name().equals(b.name())).toList();
        m = new KernelTimeModel(KernelFit.fit(rows, catalogue, training, fittedTo(sha, training, List.of(b))));
      }
      for (GpuSpec a : gpus) {
        if (!a.name().equals(b.name())) {
          results.add(KernelValidation.run(rows, catalogue, a, b, m, false));
        }
      }
    }
    KernelsReport report = new KernelsReport(data, model.coefficients(), !leaveOneOut
        && inSample(model.coefficients()));
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(report.json(mapper, results,
          leaveOneOut)));
    } else {
      report.text(out, results, leaveOneOut);
    }
    out.flush();
    return ExitCodes.OK;
  }

  private int fit(List<KernelTimesCsv.Row> rows, GpuCatalogue catalogue) throws NodeFileException, DataException {
    List<GpuSpec> left = new ArrayList<>();
    for (String e : exclude) {
      left.add(catalogue.resolve(e));
    }
    List<GpuSpec> training = KernelValidation.catalogued(rows, catalogue).stream()
        .filter(g -> left.stream().noneMatch(x -> x.name().equals(g.name()))).toList();
    if (training.isEmpty()) {
      throw new DataException(data + ": no rows of a catalogued GPU to fit to");
    }
    KernelCoefficients c = KernelFit.fit(rows, catalogue, training, fittedTo(sha(data), training, left));
    StringBuilder cmd = new StringBuilder("apptrace validate kernels --fit --data " + data.getFileName());
    left.forEach(g -> cmd.append(" --exclude \"").append(g.name()).append('"'));
    cmd.append(" -o ").append(output.getFileName());
    try {
      Files.writeString(output, c.toYaml(cmd.toString()), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UserException(output + ": cannot write it (" + e.getMessage() + ")");
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println("wrote " + output + ": coefficients fitted to " + data.getFileName() + " ("
        + String.join(", ", training.stream().map(GpuSpec::name).toList()) + "); power-cap threshold "
        + c.powerCapThreshold() + " W per TFLOP/s per nm (convolutions: " + c.convPowerCapThreshold() + ")");
    out.flush();
    return ExitCodes.OK;
  }

  private KernelCoefficients.FittedTo fittedTo(String sha, List<GpuSpec> training, List<GpuSpec> left) {
    return new KernelCoefficients.FittedTo(data.getFileName().toString(), sha,
        training.stream().map(GpuSpec::name).toList(), left.stream().map(GpuSpec::name).toList());
  }

  /** Whether the coefficients were fitted to this very file (by its SHA-256): the figures are then in-sample. */
  private boolean inSample(KernelCoefficients c) {
    Optional<KernelCoefficients.FittedTo> f = c.fittedTo();
    return f.isPresent() && f.get().sha256().equals(sha(data));
  }

  private static String sha(Path p) {
    try {
      return Sha256.hex(p);
    } catch (IOException e) {
      throw new UserException(p + ": cannot read it (" + e.getMessage() + ")");
    }
  }
}
