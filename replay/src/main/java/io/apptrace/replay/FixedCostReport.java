package io.apptrace.replay;

import io.apptrace.cost.TransferModel;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.TransferKind;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The fixed costs a replay priced its copies and memsets with (docs/COST-MODEL.md, "Timing
 * kinds"): per transfer kind the program uses, and for memsets, the L+o as GPU time, as the call's
 * duration, how the node file's figure was timed and how the other view was made from it.
 */
public final class FixedCostReport {
  private FixedCostReport() {}

  /** Per transfer kind key the program copies with (in kind order), then {@code memset} if it has memsets. */
  public static Map<String, TransferModel.Latency> of(ReplayResult r) {
    Map<String, TransferModel.Latency> out = new LinkedHashMap<>();
    TreeSet<TransferKind> kinds = new TreeSet<>();
    boolean memsets = false;
    for (ReplayProgram.Op op : r.program().ops()) {
      if (op.kind() == ReplayProgram.Kind.COPY && op.transfer() != null) {
        kinds.add(op.transfer());
      }
      memsets |= op.kind() == ReplayProgram.Kind.MEMSET;
    }
    TransferModel m;
    try {
      m = new TransferModel(r.node());
    } catch (NodeFileException e) {
      throw new IllegalStateException("a node the replay ran on has no topology: " + e.getMessage(), e);
    }
    for (TransferKind k : kinds) {
      out.put(k.key(), m.fixedCost(k));
    }
    if (memsets) {
      out.put("memset", m.memset());
    }
    return out;
  }
}
