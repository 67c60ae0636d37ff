package io.apptrace.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import io.apptrace.validate.DataException;
import io.apptrace.validate.MeasurementFiles;
import io.apptrace.validate.ReferenceLatency;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --reference-node NODE --reference-data FILE...} of {@code validate transfers} and {@code
 * replay}: the fixed overhead L+o of each transfer kind from a reference node's measured copies,
 * everything else from the target node's file (Abdelhafez et al. 2019, sec. IV-C; docs/COST-MODEL.md).
 */
final class ReferenceOptions {
  @Option(names = "--reference-node", paramLabel = "NODE", description = "The node the reference data was measured"
      + " on (a bundled node or a node file): L+o of each transfer kind comes from its measured copies, the rest from"
      + " the target node (Abdelhafez et al. 2019, sec. IV-C). Needs --reference-data.")
  String node;

  @Option(names = "--reference-data", paramLabel = "FILE", arity = "1..*", description = "Copy times measured on the"
      + " reference node: CSV files (docs/CLI.md gives their layouts; its rows of the reference node) or traces"
      + " (every copy with a measured GPU time). L+o per kind is the median time of its 1-byte copies, or of the smallest size"
      + " present.")
  List<Path> data;

  /** The reference, loaded. */
  record Loaded(ReferenceLatency latency, List<Path> files) {}

  /** Whether the options are given. */
  boolean given() {
    return node != null || data != null;
  }

  /**
   * Checks that both options or neither are given.
   *
   * @throws UserException exit 2 when only one of the two is
   */
  void checkUsage() {
    if (node == null && data != null) {
      throw new UserException("--reference-data needs --reference-node: name the node the reference data was"
          + " measured on", ExitCodes.BAD_USAGE);
    }
    if (node != null && data == null) {
      throw new UserException("--reference-node " + node + " needs --reference-data: give the copy times measured"
          + " on it (a CSV or traces)", ExitCodes.BAD_USAGE);
    }
  }

  /**
   * The reference L+o, or empty when neither option is given.
   *
   * @throws UserException exit 2 when only one of the two options is given; exit 1 when a file or
   *     the node cannot be read
   */
  Optional<Loaded> load() {
    checkUsage();
    if (!given()) {
      return Optional.empty();
    }
    try {
      Node ref = NodeLoader.resolve(node);
      List<String> names = new ArrayList<>();
      names.add(ref.name());
      names.addAll(ref.aliases());
      MeasurementFiles.Selection s = MeasurementFiles.load(data, names, "reference node " + ref.name()
          + (ref.aliases().isEmpty() ? "" : " (or " + String.join(", ", ref.aliases()) + ")"),
          "give the data measured on " + ref.name() + ", or name the node whose data it is with --reference-node");
      if (s.rows().isEmpty()) {
        throw new UserException("the reference data (" + files() + ") holds no copy times; give copies measured on "
            + ref.name());
      }
      return Optional.of(new Loaded(ReferenceLatency.of(ref, s.rows()), List.copyOf(data)));
    } catch (NodeFileException | DataException e) {
      throw new UserException(e.getMessage());
    }
  }

  private String files() {
    return String.join(", ", data.stream().map(Path::toString).toList());
  }

  /**
   * Applies the reference to a target node, warning on {@code err} about each kind in use that the
   * reference did not measure.
   */
  static ReferenceLatency.Applied apply(Loaded ref, Node target, Collection<TransferKind> used, PrintWriter err,
      String command) {
    try {
      ReferenceLatency.Applied a = ref.latency().applyTo(target, used);
      for (TransferKind k : a.fallback()) {
        err.println(command + ": warning: " + fallbackText(ref, target, k));
      }
      err.flush();
      return a;
    } catch (NodeFileException e) {
      throw new UserException(e.getMessage());
    }
  }

  /** Why a kind keeps the target's L+o. */
  static String fallbackText(Loaded ref, Node target, TransferKind k) {
    return "the reference data of " + ref.latency().node() + " has no " + k.key() + " copies: " + k.key()
        + " keeps " + target.name() + "'s own L+o (its node file)";
  }

  /** One line per kind the reference measured: {@code pinned_h2d 960 ns (median of 100 copies of 1 B)}. */
  static List<String> describe(Loaded ref) {
    List<String> out = new ArrayList<>();
    ref.latency().overheads().forEach((k, o) -> out.add(String.format(Locale.ROOT, "%-18s %s (median of %d cop%s"
        + " of %s)", k.key(), Units.time(o.seconds()), o.copies(), o.copies() == 1 ? "y" : "ies",
        Units.size(o.bytes()))));
    return out;
  }

  /**
   * The JSON of a reference: {@code node}, {@code data} (the files), {@code latency} (per kind
   * {@code latency_ns}, {@code bytes}, {@code copies}).
   */
  static void json(ObjectNode o, Loaded ref) {
    o.put("node", ref.latency().node());
    ArrayNode files = o.putArray("data");
    ref.files().forEach(f -> files.add(f.toString()));
    ObjectNode lat = o.putObject("latency");
    ref.latency().overheads().forEach((k, v) -> {
      ObjectNode e = lat.putObject(k.key());
      e.put("latency_ns", v.seconds() * 1e9);
      e.put("bytes", v.bytes());
      e.put("copies", v.copies());
    });
  }
}
