package io.apptrace.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.node.Node;
import io.apptrace.node.TransferKind;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.validate.ReferenceLatency;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A replay's {@code --reference-node}: each target node priced with the reference node's L+o
 * (Abdelhafez et al. 2019, sec. IV-C), and what the replay's report says of it: where each node's
 * L+o came from and the kinds of copy that keep the node's own (docs/REPLAY.md).
 */
final class ReplayReference {
  private final Optional<ReferenceOptions.Loaded> ref;
  /** Per target still replayed, the kinds the program copies that keep the node's own L+o. */
  private final List<List<TransferKind>> fallbacks = new ArrayList<>();

  ReplayReference(Optional<ReferenceOptions.Loaded> ref) {
    this.ref = ref;
  }

  boolean given() {
    return ref.isPresent();
  }

  /**
   * Replaces each target with itself priced with the reference L+o (nothing without a reference
   * node); the kinds in use that keep a target's own L+o are warned about on {@code err}.
   */
  void apply(List<Node> targets, ReplayProgram program, PrintWriter err) {
    if (ref.isEmpty()) {
      return;
    }
    Set<TransferKind> used = EnumSet.noneOf(TransferKind.class);
    program.ops().forEach(op -> {
      if (op.transfer() != null) {
        used.add(op.transfer());
      }
    });
    for (int i = 0; i < targets.size(); i++) {
      ReferenceLatency.Applied a = ReferenceOptions.apply(ref.get(), targets.get(i), used, err, "apptrace replay");
      targets.set(i, a.node());
      fallbacks.add(a.fallback());
    }
  }

  /** The target at {@code index} of those still replayed could not be: forgets it. */
  void notReplayed(int index) {
    if (!fallbacks.isEmpty()) {
      fallbacks.remove(index);
    }
  }

  /**
   * Adds to every node of the JSON {@code reference} (null without --reference-node) and {@code
   * reference_fallback} (the kinds in use that keep the node's own L+o).
   */
  void json(ObjectNode root) {
    ArrayNode nodes = (ArrayNode) root.get("nodes");
    for (int i = 0; i < nodes.size(); i++) {
      ObjectNode n = (ObjectNode) nodes.get(i);
      if (ref.isPresent()) {
        ReferenceOptions.json(n.putObject("reference"), ref.get());
      } else {
        n.putNull("reference");
      }
      ArrayNode fb = n.putArray("reference_fallback");
      if (ref.isPresent()) {
        fallbacks.get(i).forEach(k -> fb.add(k.key()));
      }
    }
  }

  /** Per node replayed, the lines that say where its L+o came from (none without --reference-node). */
  List<List<String>> lines(List<Node> targets) {
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      List<String> lines = new ArrayList<>();
      if (ref.isPresent()) {
        lines.add("L+o from reference node " + ref.get().latency().node() + " (median measured time of its"
            + " smallest copies; Abdelhafez et al. 2019, sec. IV-C), the rest from " + targets.get(i).name()
            + "'s file:");
        ReferenceOptions.describe(ref.get()).forEach(l -> lines.add("  " + l));
        for (TransferKind k : fallbacks.get(i)) {
          lines.add("  * " + ReferenceOptions.fallbackText(ref.get(), targets.get(i), k));
        }
      }
      out.add(lines);
    }
    return out;
  }
}
