package io.apptrace.calibrate;

import io.apptrace.node.BundledNodes;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The node file a calibration writes: a base node's file (the bundled node with this machine's
 * GPUs, or {@code --base}) with its {@code measured} and {@code host_overheads} sections replaced, or else a
 * skeleton made from what the runtime and Linux say about the machine ({@link MachineYaml}), with both sections.
 * The text is read back with {@link NodeLoader} before anyone sees it.
 */
public final class CalibratedNode {
  /** A node file whose description of the machine the calibrated file keeps. */
  public record Base(String name, String text, Node node) {}

  private CalibratedNode() {}

  /** The bundled node whose GPUs are this machine's, in number and model; the first of several. */
  public static Optional<Base> matchingBundled(CalibrationMachine m) throws NodeFileException {
    for (Node n : BundledNodes.all()) {
      boolean same = n.gpus().size() == m.gpus().size();
      for (int i = 0; same && i < n.gpus().size(); i++) {
        same = n.gpus().get(i).model().equals(m.gpus().get(i).name());
      }
      if (same) {
        return Optional.of(new Base(n.name(), bundledText(n.name()), n));
      }
    }
    return Optional.empty();
  }

  /**
   * A base given by the user: a bundled node's name or a node file's path.
   *
   * @throws CalibrationException if it cannot be read or is not a valid node
   */
  public static Base base(String nameOrPath) throws CalibrationException {
    try {
      Node n = NodeLoader.resolve(nameOrPath);
      boolean path = nameOrPath.contains("/") || nameOrPath.endsWith(".yaml") || nameOrPath.endsWith(".yml");
      String text = path ? Files.readString(Path.of(nameOrPath), StandardCharsets.UTF_8) : bundledText(n.name());
      return new Base(n.name(), text, n);
    } catch (NodeFileException e) {
      throw new CalibrationException("--base: " + e.getMessage());
    } catch (IOException e) {
      throw new CalibrationException("--base " + nameOrPath + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  private static String bundledText(String name) {
    try (InputStream in = NodeLoader.class.getResourceAsStream("/io/apptrace/nodes/" + name + ".yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException | NullPointerException e) {
      throw new IllegalStateException("the bundled node " + name + " cannot be read", e);
    }
  }

  /** A node name from a host name: lower case, with anything but letters, digits, '.', '_', '-' made '-'. */
  public static String nameFor(String host, boolean simulated) {
    String n = host.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]", "-").replaceAll("^[^a-z0-9]+", "");
    return (simulated ? "sim-" : "") + (n.isEmpty() ? "localhost" : n);
  }

  /**
   * The node file's text.
   *
   * @param how what made it, for the measured section's source (the command, host, date, CSV)
   * @throws CalibrationException if the base does not describe this machine (another number of GPUs)
   */
  public static String text(CalibrationResult r, Optional<Base> base, String name, String how)
      throws CalibrationException {
    return text(r, base, name, how, List.of());
  }

  /**
   * The node file's text, saying in its measured section which files its figures were fitted to
   * (the CSV written beside it).
   */
  public static String text(CalibrationResult r, Optional<Base> base, String name, String how,
      List<io.apptrace.node.Node.FittedTo> fitted) throws CalibrationException {
    CalibrationMachine m = r.machine();
    List<String> header = new ArrayList<>();
    if (m.simulated()) {
      header.add("# SIMULATED: measured on apptrace's simulated CUDA runtime (" + m.simulatedWhy() + "), not on a GPU;");
      header.add("# the numbers are the simulator's timing model and its own call costs, NOT REAL. See"
          + " docs/CALIBRATE.md.");
    }
    header.add("# Written by apptrace calibrate on " + m.host() + "; every pair it measured is in the CSV beside it.");
    List<String> host = HostOverheadsYaml.lines(r);
    String text;
    if (base.isPresent()) {
      Base b = base.get();
      List<String> measured = MeasuredYaml.lines(r, how, fitted, n -> b.node().cpuOfNuma(n).map(Node.Cpu::id));
      if (b.node().gpus().size() != m.gpus().size()) {
        throw new CalibrationException("--base " + b.name() + " has " + b.node().gpus().size() + " GPUs, this machine "
            + m.gpus().size() + "; give a node that describes this machine, or no --base");
      }
      header.add("# Everything but the measured" + (host.isEmpty() ? "" : " and host_overheads") + " section"
          + (host.isEmpty() ? "" : "s") + " is the node file " + b.name() + "'s.");
      text = withSection(withSection(renamed(b.text(), name), "measured", measured), "host_overheads", host);
    } else {
      List<Integer> numa = m.numaNodes();
      List<String> measured = MeasuredYaml.lines(r, how, fitted, n -> numa.contains(n)
          ? Optional.of("cpu" + numa.indexOf(n)) : Optional.empty());
      text = String.join("\n", MachineYaml.lines(r, name)) + "\n" + String.join("\n", measured) + "\n"
          + (host.isEmpty() ? "" : String.join("\n", host) + "\n");
    }
    String out = String.join("\n", header) + "\n" + text;
    try {
      NodeLoader.parse(name + ".yaml", out, name);
    } catch (NodeFileException e) {
      throw new IllegalStateException("the calibrated node file does not read back: " + e.getMessage() + "\n" + out, e);
    }
    return out;
  }

  /** {@code text} with its name replaced. */
  static String renamed(String text, String name) {
    List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("name:")) {
        lines.set(i, "name: " + name);
        break;
      }
    }
    return String.join("\n", lines);
  }

  /**
   * {@code text} with its top-level section {@code key} (from its {@code key:} line to the next top-level key)
   * replaced by {@code section}, or with {@code section} added at its end where it has none; unchanged when
   * {@code section} is empty.
   */
  static String withSection(String text, String key, List<String> section) {
    if (section.isEmpty()) {
      return text;
    }
    List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
    int start = -1;
    for (int i = 0; i < lines.size() && start < 0; i++) {
      if (lines.get(i).startsWith(key + ":")) {
        start = i;
      }
    }
    if (start < 0) {
      while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
        lines.remove(lines.size() - 1);
      }
      lines.addAll(section);
      lines.add("");
      return String.join("\n", lines);
    }
    int end = start + 1;
    while (end < lines.size() && !lines.get(end).matches("[A-Za-z_].*")) {
      end++;
    }
    lines.subList(start, end).clear();
    List<String> block = new ArrayList<>(section);
    if (start == lines.size()) {
      block.add(""); // the section ended the file: so does its replacement, with a final newline
    }
    lines.addAll(start, block);
    return String.join("\n", lines);
  }
}
