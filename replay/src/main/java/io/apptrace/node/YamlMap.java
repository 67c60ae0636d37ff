package io.apptrace.node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * One YAML mapping of a node file, read key by key with the file, line and column of every value
 * at hand for error messages. {@link #done()} then refuses the keys nobody asked for: a misspelt
 * key is an error, never silently ignored. A quantity or a count written {@code unknown} is
 * collected, with where it is, in a list all mappings of one file share ({@link #unknowns()});
 * the reader gets a placeholder and decides whether the file may have any.
 */
final class YamlMap {
  private final String file;
  private final String path;
  private final Node node;
  private final Map<String, NodeTuple> entries = new LinkedHashMap<>();
  private final Set<String> used = new TreeSet<>();
  /** The values written {@code unknown} in this file so far, in reading order. */
  private final List<NodeSkeleton.Unknown> unknowns;

  private YamlMap(String file, String path, MappingNode node, List<NodeSkeleton.Unknown> unknowns)
      throws NodeFileException {
    this.file = file;
    this.path = path;
    this.node = node;
    this.unknowns = unknowns;
    for (NodeTuple t : node.getValue()) {
      if (!(t.getKeyNode() instanceof ScalarNode k)) {
        throw error(t.getKeyNode(), path, "a key must be a plain name");
      }
      entries.put(k.getValue(), t);
    }
  }

  /** Parses a whole document, which must be a mapping. */
  static YamlMap parse(String file, String text) throws NodeFileException {
    return new YamlMap(file, "", BoundedYaml.compose(file, text), new ArrayList<>());
  }

  /** The top-level mapping of a composed file that overrides changed, read key by key. */
  static YamlMap root(String file, MappingNode root) throws NodeFileException {
    BoundedYaml.checkDepth(file, root, 0);
    return new YamlMap(file, "", root, new ArrayList<>());
  }

  String file() {
    return file;
  }

  /** Where this mapping is, as a key path ({@code gpus[2]}). */
  String path() {
    return path;
  }

  /** The values written {@code unknown} in the whole file so far, in reading order. */
  List<NodeSkeleton.Unknown> unknowns() {
    return List.copyOf(unknowns);
  }

  boolean has(String key) {
    return entries.containsKey(key);
  }

  private String keyPath(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private Node value(String key) throws NodeFileException {
    NodeTuple t = entries.get(key);
    if (t == null) {
      throw error(node, path, "missing key '" + key + "'");
    }
    used.add(key);
    return t.getValueNode();
  }

  private Optional<Node> optValue(String key) {
    NodeTuple t = entries.get(key);
    if (t == null) {
      return Optional.empty();
    }
    used.add(key);
    return Optional.of(t.getValueNode());
  }

  private String scalar(String key, Node n) throws NodeFileException {
    if (!(n instanceof ScalarNode s)) {
      throw error(n, keyPath(key), "expected a single value, not a " + (n instanceof MappingNode ? "mapping" : "list"));
    }
    if (s.getTag().equals(Tag.NULL)) {
      throw error(n, keyPath(key), "has no value");
    }
    return s.getValue();
  }

  String string(String key) throws NodeFileException {
    return scalar(key, value(key));
  }

  Optional<String> optString(String key) throws NodeFileException {
    Optional<Node> n = optValue(key);
    return n.isEmpty() ? Optional.empty() : Optional.of(scalar(key, n.get()));
  }

  int integer(String key, int min, int max) throws NodeFileException {
    return toInt(key, value(key), min, max);
  }

  OptionalInt optInteger(String key, int min, int max) throws NodeFileException {
    Optional<Node> n = optValue(key);
    return n.isEmpty() ? OptionalInt.empty() : OptionalInt.of(toInt(key, n.get(), min, max));
  }

  /**
   * A count that may be written {@code unknown} (cores, copy engines, lanes): then it is
   * collected and {@code min} stands in for it.
   */
  int count(String key, int min, int max) throws NodeFileException {
    Node n = value(key);
    return isUnknown(key, n, "a whole number") ? min : toInt(key, n, min, max);
  }

  /** As {@link #count}, for a key that may be absent. */
  OptionalInt optCount(String key, int min, int max) throws NodeFileException {
    Optional<Node> n = optValue(key);
    if (n.isEmpty()) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(isUnknown(key, n.get(), "a whole number") ? min : toInt(key, n.get(), min, max));
  }

  /** Whether a value is written {@code unknown}; if so it is collected, with how to write it. */
  private boolean isUnknown(String key, Node n, String example) {
    if (!(n instanceof ScalarNode s) || !s.getValue().strip().equals(NodeSkeleton.UNKNOWN)) {
      return false;
    }
    unknowns.add(new NodeSkeleton.Unknown(BoundedYaml.location(file, n), keyPath(key), example));
    return true;
  }

  private int toInt(String key, Node n, int min, int max) throws NodeFileException {
    String s = scalar(key, n);
    int v;
    try {
      v = Integer.parseInt(s.strip());
    } catch (NumberFormatException e) {
      throw error(n, keyPath(key), "\"" + s + "\" is not a whole number");
    }
    if (v < min || v > max) {
      throw error(n, keyPath(key), v + " is out of range; it must be from " + min + " to " + max);
    }
    return v;
  }

  /** A plain number (a factor, not a quantity) in {@code [min, max]}. */
  double number(String key, double min, double max, double dflt) throws NodeFileException {
    Optional<Node> n = optValue(key);
    if (n.isEmpty()) {
      return dflt;
    }
    String s = scalar(key, n.get());
    double v;
    try {
      v = Double.parseDouble(s.strip());
    } catch (NumberFormatException e) {
      throw error(n.get(), keyPath(key), "\"" + s + "\" is not a number");
    }
    if (!(v >= min && v <= max)) {
      throw error(n.get(), keyPath(key), s + " is out of range; it must be from " + min + " to " + max);
    }
    return v;
  }

  boolean bool(String key, boolean dflt) throws NodeFileException {
    Optional<Node> n = optValue(key);
    if (n.isEmpty()) {
      return dflt;
    }
    String s = scalar(key, n.get());
    if (s.equals("true")) {
      return true;
    }
    if (s.equals("false")) {
      return false;
    }
    throw error(n.get(), keyPath(key), "\"" + s + "\" is not true or false");
  }

  double quantity(String key, Units.Kind kind) throws NodeFileException {
    Node n = value(key);
    return toQuantity(key, n, kind);
  }

  OptionalDouble optQuantity(String key, Units.Kind kind) throws NodeFileException {
    Optional<Node> n = optValue(key);
    return n.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(toQuantity(key, n.get(), kind, false));
  }

  /** An optional quantity that may be zero (a cost that does not grow with a size). */
  OptionalDouble optQuantityOrZero(String key, Units.Kind kind) throws NodeFileException {
    Optional<Node> n = optValue(key);
    return n.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(toQuantity(key, n.get(), kind, true));
  }

  private double toQuantity(String key, Node n, Units.Kind kind) throws NodeFileException {
    return toQuantity(key, n, kind, false);
  }

  /**
   * A quantity, more than zero (or zero where {@code zero}); one written {@code unknown} is collected and NaN
   * stands in for it.
   */
  private double toQuantity(String key, Node n, Units.Kind kind, boolean zero) throws NodeFileException {
    if (isUnknown(key, n, kind.example())) {
      return Double.NaN;
    }
    String s = scalar(key, n);
    try {
      double v = Units.parse(s, kind);
      if (!(v > 0 || (zero && v == 0)) || Double.isInfinite(v)) {
        throw error(n, keyPath(key), "\"" + s + "\" must be " + (zero ? "zero or more" : "more than zero"));
      }
      return v;
    } catch (IllegalArgumentException e) {
      throw error(n, keyPath(key), e.getMessage());
    }
  }

  /** A list of mappings; an absent key is an empty list unless {@code required}. */
  List<YamlMap> maps(String key, boolean required) throws NodeFileException {
    Optional<Node> n = required ? Optional.of(value(key)) : optValue(key);
    if (n.isEmpty()) {
      return List.of();
    }
    if (!(n.get() instanceof SequenceNode seq)) {
      throw error(n.get(), keyPath(key), "expected a list (lines starting with '- ')");
    }
    List<YamlMap> out = new ArrayList<>();
    int i = 0;
    for (Node c : seq.getValue()) {
      String p = keyPath(key) + "[" + i++ + "]";
      if (!(c instanceof MappingNode m)) {
        throw error(c, p, "expected a mapping of keys");
      }
      out.add(new YamlMap(file, p, m, unknowns));
    }
    return out;
  }

  /** A mapping under {@code key}, if present. */
  Optional<YamlMap> map(String key) throws NodeFileException {
    Optional<Node> n = optValue(key);
    if (n.isEmpty()) {
      return Optional.empty();
    }
    if (!(n.get() instanceof MappingNode m)) {
      throw error(n.get(), keyPath(key), "expected a mapping of keys");
    }
    return Optional.of(new YamlMap(file, keyPath(key), m, unknowns));
  }

  /** A list of single values ({@code [a, b]}), or a single value as a list of one. */
  List<Scalar> scalars(String key, boolean required) throws NodeFileException {
    Optional<Node> n = required ? Optional.of(value(key)) : optValue(key);
    if (n.isEmpty()) {
      return List.of();
    }
    List<Scalar> out = new ArrayList<>();
    if (n.get() instanceof SequenceNode seq) {
      int i = 0;
      for (Node c : seq.getValue()) {
        String p = keyPath(key) + "[" + i++ + "]";
        if (!(c instanceof ScalarNode s)) {
          throw error(c, p, "expected a single value");
        }
        out.add(new Scalar(s.getValue(), p, c));
      }
    } else {
      out.add(new Scalar(scalar(key, n.get()), keyPath(key), n.get()));
    }
    return out;
  }

  /** Lists of single values ({@code [[256 B, "1 GB/s"], ...]}). */
  List<List<Scalar>> rows(String key) throws NodeFileException {
    Node n = value(key);
    if (!(n instanceof SequenceNode seq)) {
      throw error(n, keyPath(key), "expected a list of [a, b] pairs");
    }
    List<List<Scalar>> out = new ArrayList<>();
    int i = 0;
    for (Node r : seq.getValue()) {
      String p = keyPath(key) + "[" + i++ + "]";
      if (!(r instanceof SequenceNode row)) {
        throw error(r, p, "expected a pair like [\"1 MiB\", \"10 GB/s\"]");
      }
      List<Scalar> cells = new ArrayList<>();
      int j = 0;
      for (Node c : row.getValue()) {
        if (!(c instanceof ScalarNode s)) {
          throw error(c, p + "[" + j + "]", "expected a single value");
        }
        cells.add(new Scalar(s.getValue(), p + "[" + j++ + "]", c));
      }
      out.add(cells);
    }
    return out;
  }

  /** The keys of this mapping, for maps keyed by name (kinds, precisions). */
  List<String> keys() {
    return new ArrayList<>(entries.keySet());
  }

  /** A single value with where it is, for errors about it. */
  final class Scalar {
    final String text;
    final String path;
    final Node node;

    Scalar(String text, String path, Node node) {
      this.text = text;
      this.path = path;
      this.node = node;
    }

    NodeFileException error(String message) {
      return YamlMap.this.error(node, path, message);
    }

    double quantity(Units.Kind kind) throws NodeFileException {
      try {
        double v = Units.parse(text, kind);
        if (!(v > 0) || Double.isInfinite(v)) {
          throw error("\"" + text + "\" must be more than zero");
        }
        return v;
      } catch (IllegalArgumentException e) {
        throw error(e.getMessage());
      }
    }
  }

  /** Refuses the keys nobody read. Call when every known key was asked for. */
  void done() throws NodeFileException {
    for (Map.Entry<String, NodeTuple> e : entries.entrySet()) {
      if (!used.contains(e.getKey())) {
        throw error(e.getValue().getKeyNode(), keyPath(e.getKey()), "unknown key '" + e.getKey()
            + "' (see docs/NODE-FORMAT.md for the keys of " + (path.isEmpty() ? "a node" : path) + ")");
      }
    }
  }

  /** Marks a key as known without reading it (read elsewhere). */
  void known(String key) {
    if (entries.containsKey(key)) {
      used.add(key);
    }
  }

  /** An error about a key itself (not its value), e.g. a key that names an unknown kind. */
  NodeFileException keyError(String key, String message) {
    NodeTuple t = entries.get(key);
    return error(t != null ? t.getKeyNode() : node, keyPath(key), message);
  }

  NodeFileException error(String key, String message) {
    NodeTuple t = entries.get(key);
    return error(t != null ? t.getValueNode() : node, keyPath(key), message);
  }

  NodeFileException error(Node at, String where, String message) {
    return BoundedYaml.error(file, at, where, message);
  }
}
