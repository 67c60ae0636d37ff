package io.apptrace.replay;

import java.util.Locale;
import java.util.Optional;

/**
 * What a replay cannot see of CUDA graphs, said (docs/REPLAY.md, "CUDA graphs"): the capture does
 * not record a graph's nodes yet, so the work of each {@code cudaGraphLaunch} is missing from the
 * trace, and the operations a program issued to a stream while capturing it are in the trace as if
 * they had run once.
 */
final class GraphLaunches {
  private GraphLaunches() {}

  /** The note for {@code p}, if it launched graphs or captured streams. */
  static Optional<String> note(ReplayProgram p) {
    long launches = 0;
    long captured = 0;
    for (ReplayProgram.HostThread t : p.threads()) {
      boolean capturing = false;
      for (ReplayProgram.Call c : t.calls()) {
        String n = c.name();
        if (n.startsWith("cudaGraphLaunch")) {
          launches++;
        } else if (n.startsWith("cudaStreamBeginCapture")) {
          capturing = true;
        } else if (n.startsWith("cudaStreamEndCapture")) {
          capturing = false;
        } else if (capturing && c.issuedOp() >= 0) {
          captured++;
        }
      }
    }
    if (launches == 0 && captured == 0) {
      return Optional.empty();
    }
    return Optional.of(String.format(Locale.ROOT, "CUDA graphs: %d graph launch(es) whose work the trace does not"
        + " hold (graph nodes are not captured yet): their copies and kernels are missing from this projection"
        + "%s", launches, captured == 0 ? "" : "; " + captured + " operation(s) issued while a stream was being"
            + " captured are replayed once, as if they had run"));
  }
}
