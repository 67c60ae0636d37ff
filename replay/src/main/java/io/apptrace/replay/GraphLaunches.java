package io.apptrace.replay;

import java.util.Locale;
import java.util.Optional;

/**
 * What a replay says of CUDA graphs (docs/REPLAY.md, "CUDA graphs"): how many launches ran how
 * many node operations, and what of them is not modelled: host, event and memory nodes take no
 * time (they pass on the order of their edges), and the launches of graphs the trace does not
 * describe (a trace taken before captures recorded graphs, or a description cut short) are
 * missing their work.
 */
final class GraphLaunches {
  private GraphLaunches() {}

  /** The note for {@code p}, if it launched graphs. */
  static Optional<String> note(ReplayProgram p) {
    long launches = 0;
    long nodes = 0;
    long undescribed = 0;
    for (ReplayProgram.HostThread t : p.threads()) {
      for (ReplayProgram.Call c : t.calls()) {
        if (c.what() instanceof HostCall.LaunchGraph g) {
          launches++;
          nodes += g.ops().length;
        } else if (c.name().startsWith("cudaGraphLaunch")) {
          undescribed++;
        }
      }
    }
    if (launches == 0 && undescribed == 0) {
      return Optional.empty();
    }
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "CUDA graphs: %d launch(es) ran %d node"
        + " operation(s), each after its predecessors in its graph, each launch priced as one graph launch on the"
        + " host; host, event and memory nodes take no time", launches, nodes));
    if (undescribed > 0) {
      s.append(String.format(Locale.ROOT, "; %d launch(es) of graphs the trace does not describe: their work is"
          + " missing from this projection", undescribed));
    }
    return Optional.of(s.toString());
  }
}
