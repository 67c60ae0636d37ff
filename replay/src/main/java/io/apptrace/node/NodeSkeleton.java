package io.apptrace.node;

import java.util.List;
import java.util.Objects;

/**
 * A node file read without requiring it to be complete, as {@code apptrace topo} writes one: some
 * quantities and counts may be written {@code unknown}, and it may have no GPU. {@link
 * NodeLoader#parseSkeleton} reads one; {@code replay} and {@code model} read nodes with {@link
 * NodeLoader#resolve}, which refuses both with {@link #problem()}'s message.
 *
 * @param node the node, with a placeholder for every unknown value (NaN for a quantity, the
 *     smallest allowed for a count): for listing and checking, never for pricing anything
 * @param unknowns the values written {@code unknown}, in file order
 */
public record NodeSkeleton(Node node, List<Unknown> unknowns) {
  /** How a node file writes a value nobody could find out yet. */
  public static final String UNKNOWN = "unknown";

  public NodeSkeleton {
    Objects.requireNonNull(node, "node");
    unknowns = List.copyOf(unknowns);
  }

  /** Whether {@code replay} and {@code model} can use the node: no unknown value, and a GPU. */
  public boolean complete() {
    return unknowns.isEmpty() && !node.gpus().isEmpty();
  }

  /**
   * A value written {@code unknown}.
   *
   * @param where {@code file:line:column}
   * @param field its key path, e.g. {@code gpus[0].memory_bandwidth}
   * @param example how a value of its kind is written, e.g. {@code "900 GB/s"} (with the quotes)
   */
  public record Unknown(String where, String field, String example) {
    /**
     * One line that names the file, the field and how to fill it: {@code
     * x.yaml:9:40: gpus[0].memory_bandwidth: unknown: write ...}.
     */
    public String message() {
      return where + ": " + field + ": unknown: " + hint();
    }

    private String hint() {
      String key = field.substring(field.lastIndexOf('.') + 1);
      if (field.startsWith("measured.")) {
        return "measure it on the machine with 'apptrace calibrate', or delete it to use what a missing value falls"
            + " back to (docs/NODE-FORMAT.md, measured)";
      }
      if (field.startsWith("gpus[") && key.equals("memory_bandwidth")) {
        return "write the GPU's memory bandwidth from its datasheet in the file, like " + example;
      }
      if (field.startsWith("cpus[") && key.equals("memory_bandwidth")) {
        return "write the socket's memory bandwidth in the file, like \"170 GB/s\" (channels x MT/s x 8 B),"
            + " or replace it with memory_bus (docs/NODE-FORMAT.md)";
      }
      if (key.equals("copy_engines")) {
        return "write the GPU's number of copy engines in the file (asyncEngineCount; CUDA's deviceQuery prints it)";
      }
      if (field.startsWith("links[") && key.equals("bandwidth")) {
        return "write the link's bandwidth per direction in the file, like \"64 GB/s\", from the datasheet";
      }
      return "write its value in the file, like " + example + " (docs/NODE-FORMAT.md)";
    }
  }
}
