package io.apptrace.cli;

import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeSkeleton;
import io.apptrace.topo.SkeletonWriter;
import io.apptrace.topo.Topo;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code apptrace topo [-o NODE.yaml] [--name NAME] [--no-hwloc]}: a node file skeleton of this machine. */
@Command(
    name = "topo",
    header = "Writes a node file skeleton of this machine.",
    description =
        "Enumerates this machine (sockets, NUMA nodes and the PCI tree through libhwloc, or /sys without it;"
            + " NVIDIA GPUs and their NVLinks through NVML) and writes a node file (docs/NODE-FORMAT.md) with every"
            + " value it cannot know written 'unknown', for you to fill in before replaying on it. A summary"
            + " goes to stderr. docs/TOPO.md says what is read where.")
final class TopoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = {"-o", "--output"}, paramLabel = "NODE.yaml",
      description = "Write the node file here (default: print it).")
  Path output;

  @Option(names = "--name", paramLabel = "NAME", description = "The node's name (default: this machine's host name).")
  String name;

  @Option(names = "--no-hwloc", description = "Read /sys only, even where libhwloc is installed.")
  boolean noHwloc;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    if (ExportFile.stdout(output)) {
      output = null; // -o -: the skeleton on standard output, as without -o
    }
    ExportFile.check(output);
    StatusLine phases = new StatusLine(err, System.console() != null); // a line per phase: topo is quick
    Topo.Result r;
    try {
      r = Topo.thisMachine(!noHwloc, phase -> phases.show("apptrace topo: " + phase + " ..."));
    } catch (IOException e) {
      throw new UserException("cannot enumerate this machine: " + e.getMessage());
    } finally {
      phases.clear();
    }
    String host = host();
    SkeletonWriter.Skeleton s = SkeletonWriter.write(r, name == null ? host : name, host);
    String label = output == null ? "the skeleton" : output.toString();
    NodeSkeleton read;
    try {
      read = NodeLoader.parseSkeleton(label, s.yaml(), label);
    } catch (NodeFileException e) {
      throw new IllegalStateException("the skeleton does not read back: " + e.getMessage() + "\n" + s.yaml(), e);
    }
    if (output == null) {
      spec.commandLine().getOut().print(s.yaml());
      spec.commandLine().getOut().flush();
    } else {
      ExportFile.writeText(output, w -> w.write(s.yaml()), spec.commandLine().getOut());
    }
    TopoText.summary(r, read, err);
    for (String note : r.notes()) {
      err.println("apptrace topo: note: " + note);
    }
    for (String note : s.notes()) {
      err.println("apptrace topo: note: " + note);
    }
    if (output != null) {
      err.println("apptrace topo: wrote " + output + (read.unknowns().isEmpty() ? ""
          : "; fill in its " + read.unknowns().size() + " unknown value" + (read.unknowns().size() == 1 ? "" : "s")
          + " before replaying on it"));
    }
    err.flush();
    return ExitCodes.OK;
  }

  /** The host name, as the kernel has it. */
  private static String host() {
    try {
      String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
      if (!h.isEmpty()) {
        return h;
      }
    } catch (IOException e) {
      // not Linux, or no /proc: fall back
    }
    String env = System.getenv("HOSTNAME");
    return env == null || env.isBlank() ? "this-machine" : env.strip();
  }
}
