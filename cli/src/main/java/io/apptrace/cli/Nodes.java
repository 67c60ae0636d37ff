package io.apptrace.cli;

import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeOverride;
import io.apptrace.node.NodeOverrideException;
import java.util.List;

/** A node a command names (a bundled node or a node file), or the command's one-line error. */
final class Nodes {
  private Nodes() {}

  /** The node {@code nameOrPath} names; a node that does not load is exit 1 with its error. */
  /** The --set options given, parsed; a malformed one is bad usage naming it. */
  static List<NodeOverride> overrides(List<String> sets) {
    List<NodeOverride> out = new java.util.ArrayList<>();
    for (String s : sets) {
      try {
        out.add(NodeOverride.parse(s));
      } catch (NodeOverrideException e) {
        throw new UserException(e.getMessage(), ExitCodes.BAD_USAGE);
      }
    }
    return out;
  }

  static Node resolve(String nameOrPath) {
    return resolve(nameOrPath, List.of());
  }

  /**
   * The node {@code nameOrPath} names with the what-if {@code overrides} applied; a node that does
   * not load is exit 1, an override that names nothing in it exit 2.
   */
  static Node resolve(String nameOrPath, List<NodeOverride> overrides) {
    try {
      return overrides.isEmpty() ? NodeLoader.resolve(nameOrPath) : NodeLoader.resolve(nameOrPath, overrides);
    } catch (NodeFileException e) {
      throw new UserException(e.getMessage());
    } catch (NodeOverrideException e) {
      throw new UserException(e.getMessage(), ExitCodes.BAD_USAGE);
    }
  }
}
