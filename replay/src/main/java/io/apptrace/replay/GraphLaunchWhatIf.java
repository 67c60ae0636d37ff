package io.apptrace.replay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The what-if {@code --what-if graph-launch} (docs/REPLAY.md, "CUDA graphs"): the program as if
 * each repeated sequence of stream work had been captured once and launched as a CUDA graph. A
 * run is a host thread's consecutive calls that issue asynchronous copies, memsets or kernels to
 * one stream, with nothing between them but host work (no synchronization, no event, no other
 * stream). A run of at least two operations is launched as a graph when it is repeated: the same
 * operations (kind, name, bytes, transfer kind) in the same order recur in another run, or within
 * the run, iteration after iteration. Its first call becomes the graph launch, issuing the run's
 * operations in stream order (each after the one before); the run's other calls are not made
 * ({@link HostCall.NotMade}: no time of their own). Host work between them stays. The launch is
 * priced as one graph launch ({@link CallCosts#graphLaunchNs}) whatever the trace measured.
 */
final class GraphLaunchWhatIf {
  /** The program as launched as graphs, and how many runs and operations became graph launches. */
  record Result(ReplayProgram program, int runs, int ops) {
    Result {
      Objects.requireNonNull(program, "program");
    }
  }

  private record Run(int thread, int first, int last, int stream, List<Integer> calls, List<Integer> ops) {}

  private GraphLaunchWhatIf() {}

  static Result of(ReplayProgram p) {
    List<Run> runs = new ArrayList<>();
    for (int t = 0; t < p.threads().size(); t++) {
      runs.addAll(runs(p, t));
    }
    Map<List<String>, Integer> seen = new HashMap<>();
    for (Run r : runs) {
      seen.merge(signature(p, r), 1, Integer::sum);
    }
    List<Run> launched = new ArrayList<>();
    for (Run r : runs) {
      List<String> sig = signature(p, r);
      if (sig.size() >= 2 && (seen.get(sig) >= 2 || periodic(sig))) {
        launched.add(r);
      }
    }
    if (launched.isEmpty()) {
      return new Result(p, 0, 0);
    }
    int ops = 0;
    List<ReplayProgram.HostThread> threads = new ArrayList<>();
    for (int t = 0; t < p.threads().size(); t++) {
      ReplayProgram.HostThread ht = p.threads().get(t);
      List<ReplayProgram.Call> calls = new ArrayList<>(ht.calls());
      for (Run r : launched) {
        if (r.thread() != t) {
          continue;
        }
        ops += r.ops().size();
        int[] o = r.ops().stream().mapToInt(Integer::intValue).toArray();
        int[][] waits = new int[o.length][];
        for (int i = 0; i < o.length; i++) {
          waits[i] = i == 0 ? new int[0] : new int[] {o[i - 1]};
        }
        ReplayProgram.Call first = calls.get(r.calls().get(0));
        calls.set(r.calls().get(0), new ReplayProgram.Call(new HostCall.LaunchGraph(r.stream(), o, waits, true),
            first.entryNs(), first.durationNs(), "cudaGraphLaunch", 0, first.offCpuNs()));
        for (int k = 1; k < r.calls().size(); k++) {
          ReplayProgram.Call c = calls.get(r.calls().get(k));
          calls.set(r.calls().get(k), new ReplayProgram.Call(new HostCall.NotMade(), c.entryNs(), c.durationNs(),
              "not made: " + c.name(), 0, c.offCpuNs()));
        }
      }
      threads.add(new ReplayProgram.HostThread(ht.pid(), ht.tid(), calls));
    }
    ReplayProgram out = new ReplayProgram(p.ops(), p.streams(), threads, p.events(), p.provenance(),
        p.sourceDevices()).withAnnotations(p.ranges(), p.marks()).withContextsBefore(p.contextsBefore())
            .withManaged(p.managed());
    return new Result(out, launched.size(), ops);
  }

  /** Thread {@code t}'s runs of stream work. */
  private static List<Run> runs(ReplayProgram p, int t) {
    List<ReplayProgram.Call> calls = p.threads().get(t).calls();
    List<Run> out = new ArrayList<>();
    List<Integer> runCalls = new ArrayList<>();
    List<Integer> runOps = new ArrayList<>();
    int stream = -1;
    for (int i = 0; i <= calls.size(); i++) {
      ReplayProgram.Call c = i < calls.size() ? calls.get(i) : null;
      int op = c != null && c.what() instanceof HostCall.IssueOp io && graphable(p.ops().get(io.op())) ? io.op() : -1;
      int s = op >= 0 ? ((HostCall.IssueOp) c.what()).stream() : -1;
      boolean hostWork = c != null && c.what() instanceof HostCall.HostWork;
      if (hostWork && !runOps.isEmpty()) {
        continue;
      }
      if (op >= 0 && (runOps.isEmpty() || s == stream)) {
        stream = s;
        runCalls.add(i);
        runOps.add(op);
        continue;
      }
      if (runOps.size() >= 2) {
        out.add(new Run(t, runCalls.get(0), runCalls.get(runCalls.size() - 1), stream, List.copyOf(runCalls),
            List.copyOf(runOps)));
      }
      runCalls.clear();
      runOps.clear();
      if (op >= 0) { // the first of a run on another stream
        stream = s;
        runCalls.add(i);
        runOps.add(op);
      }
    }
    return out;
  }

  /** An operation a stream capture would take: asynchronous, on a device (not a host-to-host copy). */
  private static boolean graphable(ReplayProgram.Op o) {
    return !o.synchronous() && (o.kind() != ReplayProgram.Kind.COPY || o.transfer() != null);
  }

  private static List<String> signature(ReplayProgram p, Run r) {
    List<String> sig = new ArrayList<>();
    for (int op : r.ops()) {
      ReplayProgram.Op o = p.ops().get(op);
      sig.add(o.kind() + " " + o.name() + " " + o.bytes() + " " + o.transfer());
    }
    return sig;
  }

  /** Whether the sequence is at least two repetitions of a shorter one (a tail of a part repetition allowed). */
  private static boolean periodic(List<String> sig) {
    for (int period = 1; period * 2 <= sig.size(); period++) {
      boolean ok = true;
      for (int i = period; i < sig.size() && ok; i++) {
        ok = sig.get(i).equals(sig.get(i - period));
      }
      if (ok) {
        return true;
      }
    }
    return false;
  }

  /** What was launched as graphs, and what a launch costs on {@code node} against one launch per operation. */
  static String summary(Result w, io.apptrace.node.Node node) {
    if (w.runs() == 0) {
      return "no repeated sequence of stream work to launch as a graph: nothing changed";
    }
    return String.format(Locale.ROOT, "%d repeated run(s) of stream work (%d operations) each launched as one CUDA"
        + " graph; each launch costs the host %s (graph_launch) instead of one launch per operation (the GPU's launch"
        + " overhead, %s on %s)", w.runs(), w.ops(), io.apptrace.node.Units.time(node.hostOverheads().costNs(
            io.apptrace.node.ApiClass.GRAPH_LAUNCH, 0) / 1e9), io.apptrace.node.Units.time(
                node.gpus().get(0).launchOverheadSeconds()), node.name());
  }
}
