package io.apptrace.cli;

import io.apptrace.calibrate.CalibratedNode;
import io.apptrace.calibrate.Calibration;
import io.apptrace.calibrate.CalibrationCsv;
import io.apptrace.calibrate.CalibrationException;
import io.apptrace.calibrate.CalibrationResult;
import io.apptrace.capture.NativeLibraries;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Sha256;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code apptrace calibrate [-o NODE.yaml] [--csv FILE.csv] [--quick] [--sim] [--base NODE]}. */
@Command(
    name = "calibrate",
    header = "Measures this machine's copies, memsets and CUDA calls and writes a node file.",
    description =
        "Times cudaMemcpy and prefetches of every kind (pinned, pageable, write-combined, device to device, GPU to"
            + " GPU with peer access on and off, managed memory) between every NUMA node and GPU with CUDA events,"
            + " fits L+o, G and g (docs/COST-MODEL.md), times memsets the same way and the own cost of each class"
            + " of CUDA call by the host clock, and writes them into a node file's measured and host_overheads"
            + " sections and every time into a CSV that 'apptrace validate transfers' reads (docs/CALIBRATE.md)."
            + " Without a GPU it calibrates the simulated runtime, saying so: such numbers are not real.")
final class CalibrateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = {"-o", "--output"}, paramLabel = "NODE.yaml",
      description = "The node file to write (default: the host's name, .yaml, here).")
  Path output;

  @Option(names = "--csv", paramLabel = "FILE.csv",
      description = "The CSV of every measured time (default: beside the node file, .csv).")
  Path csv;

  @Option(names = "--quick", description = "Fewer sizes (256 B to 64 MiB) and repetitions.")
  boolean quick;

  @Option(names = "--sim", description = "Calibrate the simulated CUDA runtime (docs/SIMULATED-DEVICE.md).")
  boolean simulated;

  @Option(names = "--base", paramLabel = "NODE", description = "The node (bundled name or file) whose description of"
      + " this machine the output keeps (default: the bundled node with this machine's GPUs, else a skeleton).")
  String base;

  @Override
  public Integer call() {
    Optional<CalibratedNode.Base> given = checkArguments();
    Optional<Path> simulator = NativeLibraries.locate().map(NativeLibraries::simulator);
    CalibrationProgress progress = new CalibrationProgress(spec.commandLine().getErr(), System.console() != null);
    CalibrationResult r;
    try {
      r = Calibration.run(new Calibration.Options(simulated, quick, simulator), progress);
    } catch (CalibrationException e) {
      throw new UserException(e.getMessage());
    } finally {
      progress.clear();
    }
    writeAndReport(r, given);
    return ExitCodes.OK;
  }

  /** Everything that can be wrong before the benchmarks start; the base node, if given. */
  private Optional<CalibratedNode.Base> checkArguments() {
    ExportFile.checkFile(output, "-o", "calibrate prints its summary on standard output");
    ExportFile.checkFile(csv, "--csv", "calibrate prints its summary on standard output");
    if (output != null && !output.toString().endsWith(".yaml") && !output.toString().endsWith(".yml")) {
      throw new UserException("-o " + output + ": a node file's name ends in .yaml", ExitCodes.BAD_USAGE);
    }
    Optional<CalibratedNode.Base> given = Optional.empty();
    try {
      if (base != null) {
        given = Optional.of(CalibratedNode.base(base));
      }
    } catch (CalibrationException e) {
      throw new UserException(e.getMessage());
    }
    for (Path p : new Path[] {output, csv}) {
      writable(p);
    }
    return given;
  }

  private void writeAndReport(CalibrationResult r, Optional<CalibratedNode.Base> given) {
    PrintWriter out = spec.commandLine().getOut();
    Path node = output(r);
    Path table = csv != null ? csv : node.resolveSibling(node.getFileName().toString().replaceAll("\\.ya?ml$", "")
        + ".csv");
    String name = CalibratedNode.nameFor(r.machine().host(), r.machine().simulated());
    String how = "apptrace calibrate" + (simulated ? " --sim" : "") + (quick ? " --quick" : "") + " on host "
        + r.machine().host() + ", " + LocalDate.now(ZoneOffset.UTC) + " (UTC), CUDA runtime " + r.machine().runtime()
        + "; every pair it measured: " + table.getFileName() + ".";
    String csvText = CalibrationCsv.text(r, name);
    String text;
    try {
      Optional<CalibratedNode.Base> b = given.isPresent() || r.machine().simulated() ? given
          : CalibratedNode.matchingBundled(r.machine());
      text = CalibratedNode.text(r, b, name, how, List.of(new Node.FittedTo(table.getFileName().toString(),
          Sha256.hex(csvText.getBytes(StandardCharsets.UTF_8)))));
    } catch (CalibrationException | NodeFileException e) {
      throw new UserException(e.getMessage());
    }
    ExportFile.check(node);
    ExportFile.check(table);
    ExportFile.writeText(node, w -> w.write(text), out);
    ExportFile.writeText(table, w -> w.write(csvText), out);
    CalibrationSummary.print(out, r);
    out.printf("wrote %s and %s (check them: apptrace validate transfers --node %s --data %s)%n", node, table, node,
        table);
    if (r.machine().simulated()) {
      out.println("SIMULATED: " + (simulated ? "--sim" : r.machine().simulatedWhy())
          + ": these are the simulated runtime's numbers, not real ones");
    }
    out.flush();
  }

  /** {@code -o}, else the node's name and .yaml here. */
  private Path output(CalibrationResult r) {
    return output != null ? output : Path.of(CalibratedNode.nameFor(r.machine().host(), r.machine().simulated())
        + ".yaml");
  }

  /** Fails before a long run if a file could not be written at its end. */
  private static void writable(Path p) {
    if (p == null) {
      return;
    }
    Path dir = p.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
      throw new UserException(p + ": cannot write there (" + dir + " is not a writable folder); give another path");
    }
  }
}
