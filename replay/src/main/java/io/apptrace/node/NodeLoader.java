package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * Finds node files (bundled by name, or by path), applies what-if overrides and has {@link
 * NodeReader} check them (docs/NODE-FORMAT.md); bundled nodes are read once. Every error is a {@link NodeFileException}
 * naming the file, line, column and key. What-if overrides ({@code --set PATH=VALUE}, {@link
 * NodeOverride}) change the composed file before it is checked; an error about a value one gave
 * names the {@code --set} instead of a line of the file.
 *
 * <p>A node to price things on must be complete: a value written {@code unknown} (as {@code
 * apptrace topo} leaves what it cannot read from a machine) is refused by name, with how to fill
 * it in. {@link #parseSkeleton} and {@link #loadSkeleton} read such a file without refusing it.
 */
public final class NodeLoader {
  /** Where the bundled node files are, on the class path. */
  static final String BUNDLED = "/io/apptrace/nodes/";

  private NodeLoader() {}

  /**
   * A bundled node by name ({@code ac922}) or a node file by path ({@code ac922.yaml},
   * {@code ./nodes/x.yaml}): a name with no {@code /} and no {@code .yaml} is a bundled name.
   */
  public static Node resolve(String nameOrPath) throws NodeFileException {
    if (!isPath(nameOrPath)) {
      return bundled(BundledNodes.canonical(nameOrPath).orElse(nameOrPath)).orElseThrow(() -> noBundled(nameOrPath));
    }
    return load(Path.of(nameOrPath));
  }

  private static boolean isPath(String nameOrPath) {
    return nameOrPath.contains("/") || nameOrPath.endsWith(".yaml") || nameOrPath.endsWith(".yml");
  }

  private static NodeFileException noBundled(String name) {
    List<String> near = BundledNodes.nearest(name);
    return new NodeFileException("no bundled node named '" + name + "'" + (near.isEmpty() ? ""
        : " (did you mean " + String.join(" or ", near) + "?)") + "; bundled: " + String.join(", ", BundledNodes.names())
        + " ('apptrace nodes' lists them); give a node file's path to use your own");
  }

  /**
   * As {@link #resolve(String)}, with what-if overrides ({@code --set PATH=VALUE}) applied to the
   * file before it is checked; with none, the same as {@link #resolve(String)}. A node read with
   * overrides is never cached: the bundled node other callers get stays as its file says.
   *
   * @throws NodeOverrideException if a PATH names no field of the node (or a list item it lacks)
   * @throws NodeFileException if the node, with the overrides' VALUEs, is not a valid node; errors
   *     about an override's value are located at the {@code --set} instead of the file
   */
  public static Node resolve(String nameOrPath, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    if (overrides.isEmpty()) {
      return resolve(nameOrPath);
    }
    Node changed = !isPath(nameOrPath) ? bundled(BundledNodes.canonical(nameOrPath).orElse(nameOrPath), overrides)
        .orElseThrow(() -> noBundled(nameOrPath)) : load(Path.of(nameOrPath), overrides);
    return withCurveLinks(resolve(nameOrPath), changed, overrides);
  }

  /**
   * {@code changed}, whose measured curves, where a {@code --set} changed the links they were
   * measured over and did not set the curves themselves, remember those links as the file has them
   * ({@link Node.Measured#curveLinks}): the cost model rescales a curve on a route whose links
   * changed (docs/REPLAY.md, "What-if").
   */
  private static Node withCurveLinks(Node original, Node changed, List<NodeOverride> overrides) {
    boolean curvesSet = overrides.stream().anyMatch(o -> o.path().startsWith("measured.curves"));
    if (curvesSet || changed.measured().curves().isEmpty() || original.links().equals(changed.links())) {
      return changed;
    }
    return new Node(changed.name(), changed.description(), changed.aliases(), changed.sources(),
        changed.cpuSpeedFactor(), changed.cpus(), changed.gpus(), changed.switches(), changed.links(),
        changed.peerAccess(), changed.measured().withCurveLinks(original.links()), changed.hostOverheads(),
        changed.source());
  }

  /** Bundled nodes already read (they never change while apptrace runs). */
  private static final Map<String, Node> BUNDLED_CACHE = new java.util.concurrent.ConcurrentHashMap<>();

  /** A bundled node, if there is one by that name. */
  public static Optional<Node> bundled(String name) throws NodeFileException {
    if (!name.matches("[a-z0-9][a-z0-9._-]*")) {
      return Optional.empty();
    }
    Node cached = BUNDLED_CACHE.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    Optional<String> text = bundledText(name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    // the tree the build composed from the file (NodeTrees), else the file itself
    Optional<MappingNode> tree = NodeTrees.bundled(name, text.get());
    Node n = tree.isPresent() ? parse(name + ".yaml", tree.get(), name) : parse(name + ".yaml", text.get(), name);
    if (!n.name().equals(name)) {
      throw new NodeFileException(name + ".yaml: name: the bundled file says '" + n.name()
          + "'; a bundled node's name is its file's");
    }
    BUNDLED_CACHE.put(name, n);
    return Optional.of(n);
  }

  /**
   * A bundled node with overrides applied (read afresh, never cached); with none, the same as
   * {@link #bundled(String)}.
   */
  public static Optional<Node> bundled(String name, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    if (overrides.isEmpty()) {
      return bundled(name);
    }
    if (!name.matches("[a-z0-9][a-z0-9._-]*")) {
      return Optional.empty();
    }
    Optional<String> text = bundledText(name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String file = name + ".yaml";
    MappingNode root = BoundedYaml.compose(file, text.get());
    String named = NodeOverrides.nodeName(file, root); // as the file says, before any --set name=
    if (!named.equals(name)) {
      throw new NodeFileException(file + ": name: the bundled file says '" + named
          + "'; a bundled node's name is its file's");
    }
    return Optional.of(withOverrides(file, root, name, overrides));
  }

  /**
   * The text of the bundled node file a user names (its name or an alias, in any case): the
   * starting point for a node file of one's own.
   *
   * @throws NodeFileException when no bundled node has that name, with the nearest names
   */
  public static String bundledFile(String typed) throws NodeFileException {
    Optional<String> name = BundledNodes.canonical(typed);
    if (name.isEmpty()) {
      throw noBundled(typed);
    }
    return bundledText(name.get()).orElseThrow(() -> noBundled(typed));
  }

  private static Optional<String> bundledText(String name) throws NodeFileException {
    try (InputStream in = NodeLoader.class.getResourceAsStream(BUNDLED + name + ".yaml")) {
      if (in == null) {
        return Optional.empty();
      }
      return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new NodeFileException("cannot read the bundled node " + name + ": " + e.getMessage());
    }
  }

  /**
   * A node file that may be incomplete (values written {@code unknown}, no GPU), checked for
   * everything else.
   */
  public static NodeSkeleton loadSkeleton(Path file) throws NodeFileException {
    return parseSkeleton(file.toString(), read(file), file.toString());
  }

  /** As {@link #loadSkeleton}, from text; {@code file} names it in errors. */
  public static NodeSkeleton parseSkeleton(String file, String text, String source) throws NodeFileException {
    return NodeReader.read(YamlMap.parse(file, text), source, false);
  }

  /** A node file. */
  public static Node load(Path file) throws NodeFileException {
    return parse(file.toString(), read(file), file.toString());
  }

  /** A node file with overrides applied; with none, the same as {@link #load(Path)}. */
  public static Node load(Path file, List<NodeOverride> overrides) throws NodeFileException, NodeOverrideException {
    return parse(file.toString(), read(file), file.toString(), overrides);
  }

  private static String read(Path file) throws NodeFileException {
    java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.describe(file);
    if (unreadable.isPresent()) {
      throw new NodeFileException(unreadable.get());
    }
    try {
      if (Files.size(file) > BoundedYaml.MAX_CODE_POINTS) {
        throw new NodeFileException(file + ": larger than 128 KiB; no node file is");
      }
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new NodeFileException(file + ": no such file");
    } catch (java.nio.charset.MalformedInputException e) {
      throw new NodeFileException(file + ": not UTF-8 text; a node file is YAML");
    } catch (IOException e) {
      throw new NodeFileException(file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /**
   * Parses node file text with overrides applied to it before it is checked; {@code file} names
   * it in errors. With overrides, the node's {@link Node#source()} is {@code source} followed by
   * them: {@code ac922 (with --set gpus.gpu0.copy_engines=2)}.
   */
  public static Node parse(String file, String text, String source, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    if (overrides.isEmpty()) {
      return parse(file, text, source);
    }
    return withOverrides(file, BoundedYaml.compose(file, text), source, overrides);
  }

  private static Node withOverrides(String file, MappingNode root, String source, List<NodeOverride> overrides)
      throws NodeFileException, NodeOverrideException {
    NodeOverrides.apply(file, root, overrides);
    return parse(YamlMap.root(file, root), source + " (with " + NodeOverrides.describe(overrides) + ")");
  }

  /** Parses node file text; {@code file} names it in errors. */
  public static Node parse(String file, String text, String source) throws NodeFileException {
    return parse(YamlMap.parse(file, text), source);
  }

  /** Reads and checks a node file composed beforehand ({@link NodeTrees}); {@code file} names it in errors. */
  static Node parse(String file, MappingNode tree, String source) throws NodeFileException {
    return parse(YamlMap.root(file, tree), source);
  }

  /** Reads and checks a composed node file, which must be complete. */
  private static Node parse(YamlMap root, String source) throws NodeFileException {
    return NodeReader.read(root, source, true).node();
  }

}
