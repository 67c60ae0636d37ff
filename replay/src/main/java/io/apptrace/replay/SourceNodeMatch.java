package io.apptrace.replay;

import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import io.apptrace.node.Node;
import io.apptrace.trace.SourceGpu;
import java.util.Optional;

/**
 * Whether a replay's node is the one the trace was taken on (docs/REPLAY.md, "What it reports"):
 * only there are the measured times a reference to score the model against; on any other node
 * they are a baseline the projection is a speedup over. The node is the trace's own when
 * {@code --source-node} names it, else when every GPU the trace uses is, by the GPU catalogue, the
 * model of the node's GPU it runs on.
 */
public final class SourceNodeMatch {
  /** What is known of the node's being the trace's own. */
  public enum Verdict {
    /** The trace was taken on this node (or one like it). */
    SOURCE,
    /** The trace was taken on another GPU: {@link #why} names both. */
    OTHER,
    /** The trace does not say which GPU it was taken on, and no --source-node was given. */
    UNKNOWN
  }

  private SourceNodeMatch() {}

  /** The verdict, with what the report says of it. */
  public record Result(Verdict verdict, String why) {}

  public static Result of(ReplayResult r) {
    Optional<Node> source = r.options().sourceNode();
    Node node = r.node();
    if (source.isPresent()) {
      return source.get().name().equals(node.name()) ? new Result(Verdict.SOURCE, "")
          : new Result(Verdict.OTHER, "the trace was taken on " + source.get().name() + " (--source-node)");
    }
    ReplayProgram p = r.program();
    GpuCatalogue catalogue = GpuCatalogue.bundled();
    boolean known = false;
    for (int d : p.devices()) {
      int mapped = r.options().deviceMap().getOrDefault(d, d);
      Optional<Node.Gpu> g = node.gpu(mapped);
      SourceGpu s = p.sourceDevices().get(d);
      Optional<GpuSpec> from = r.options().sourceGpu().isPresent() ? r.options().sourceGpu()
          : s == null || s.name() == null || s.name().isEmpty() ? Optional.empty() : catalogue.find(s.name());
      if (from.isEmpty() || g.isEmpty()) {
        continue;
      }
      Optional<GpuSpec> to = catalogue.find(g.get().model());
      if (to.isEmpty()) {
        continue; // a GPU the catalogue does not know: nothing to tell by
      }
      if (!to.get().name().equals(from.get().name())) {
        return new Result(Verdict.OTHER, "the trace was taken on " + from.get().name() + ", not on " + node.name()
            + "'s " + g.get().model());
      }
      known = true;
    }
    return known ? new Result(Verdict.SOURCE, "") : new Result(Verdict.UNKNOWN,
        "the trace does not name the GPU it was taken on (give --source-node)");
  }
}
