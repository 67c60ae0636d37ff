package io.apptrace.report;

import java.util.List;
import java.util.Objects;

/**
 * One application what-if as the report's table shows it: its name and, per node, the makespan
 * before and after it.
 */
public record WhatIf(String name, List<NodeResult> nodes) {
  /** A node's makespan without and with the what-if, ns. */
  public record NodeResult(String node, long beforeNs, long afterNs) {
    public NodeResult {
      Objects.requireNonNull(node, "node");
    }

    /** How much faster the what-if makes the node: before over after. */
    public double speedup() {
      return beforeNs / (double) Math.max(1, afterNs);
    }
  }

  public WhatIf {
    Objects.requireNonNull(name, "name");
    nodes = List.copyOf(nodes);
  }
}
