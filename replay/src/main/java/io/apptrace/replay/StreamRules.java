package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import io.apptrace.node.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CUDA's ordering rules between streams (docs/REPLAY.md, "Streams"): each stream runs its work in
 * issue order; the legacy default stream waits for everything issued before it to the device's
 * blocking streams, and they wait for it; a non-blocking stream does neither (a per-thread
 * default stream behaves as a blocking one); cudaEventRecord then cudaStreamWaitEvent make a
 * stream's next operation wait for the work recorded; on a GPU with implicit synchronization
 * (van Werkhoven et al. 2014, sec. IV) an operation that follows a kernel in its stream waits for
 * every kernel issued before it on that GPU. Also which operations a synchronizing call waits for.
 */
final class StreamRules {
  private final ReplayProgram p;
  private final Node node;
  private final OpTable t;
  private final Dependencies deps;
  private final Map<Integer, Integer> deviceMap;
  /** The last operation issued to each stream (-1: none). */
  private final int[] lastOp;
  /** The (process, GPU) state of each stream, looked up once: [the last operation on the legacy stream]. */
  private final int[][] streamPd;
  private final int[] streamPdGpu;
  private final Map<Long, int[]> lastOfProcDevice = new HashMap<>();
  /**
   * Per process and GPU ({@link #procDevice}'s array, by identity), the kernels issued that were
   * not done when an operation was last issued there: what implicit synchronization waits for.
   */
  private final Map<int[], List<Integer>> kernelsInFlight = new java.util.IdentityHashMap<>();
  /** Per stream: what its next operation waits for (cudaStreamWaitEvent). */
  private final List<List<Integer>> pendingWaits = new ArrayList<>();
  /** The operation each event was last recorded after (-1: none). */
  private final int[] eventTarget;
  /**
   * Per stream: the last graph launch's other final operations beside {@link #lastOp} (a graph
   * ends with all of its sinks), until the stream's next operation; per event, the same recorded.
   */
  private final int[][] tails;
  private final int[][] eventTails;
  private static final int[] NONE = new int[0];

  StreamRules(ReplayProgram p, Node node, OpTable t, Dependencies deps, Map<Integer, Integer> deviceMap) {
    this.p = p;
    this.node = node;
    this.t = t;
    this.deps = deps;
    this.deviceMap = deviceMap;
    int streams = p.streams().size();
    lastOp = new int[streams];
    Arrays.fill(lastOp, -1);
    streamPd = new int[streams][];
    streamPdGpu = new int[streams];
    for (int s = 0; s < streams; s++) {
      pendingWaits.add(new ArrayList<>());
    }
    eventTarget = new int[p.events()];
    Arrays.fill(eventTarget, -1);
    tails = new int[streams][];
    Arrays.fill(tails, NONE);
    eventTails = new int[p.events()][];
    Arrays.fill(eventTails, NONE);
  }

  private int[] procDevice(int pid, int gpu) {
    return lastOfProcDevice.computeIfAbsent(((long) pid << 32) | gpu, k -> new int[] {-1});
  }

  /** Operation {@code i}, just issued to its stream on GPU {@code gpu}: what it waits for. */
  void issue(int i, int gpu) {
    ReplayProgram.Op op = t.ops[i];
    int s = op.stream();
    if (s < 0) {
      return;
    }
    CallLog.Stream st = s < p.streams().size() ? p.streams().get(s) : null;
    int prev = lastOp[s];
    deps.add(i, prev);
    for (int w : tails[s]) {
      deps.add(i, w);
    }
    tails[s] = NONE;
    for (int w : pendingWaits.get(s)) {
      deps.add(i, w);
    }
    pendingWaits.get(s).clear();
    int[] pd = streamPd[s];
    if (pd == null || streamPdGpu[s] != gpu) {
      pd = streamPd[s] = procDevice(st.pid(), gpu);
      streamPdGpu[s] = gpu;
    }
    if (st.legacy()) {
      for (int b = 0; b < p.streams().size(); b++) {
        CallLog.Stream other = p.streams().get(b);
        if (b != s && !other.legacy() && other.blocking() && other.pid() == st.pid() && lastOp[b] >= 0
            && t.gpuOf[lastOp[b]] == gpu) {
          deps.add(i, lastOp[b]);
        }
      }
      pd[0] = i;
    } else if (st.blocking()) {
      deps.add(i, pd[0]);
    }
    // implicit synchronization: an operation that follows a kernel in its stream waits for every
    // kernel issued before it on the GPU
    if (node.gpus().get(gpu).implicitSync()) {
      List<Integer> inFlight = kernelsInFlight.computeIfAbsent(pd, k -> new ArrayList<>());
      inFlight.removeIf(k -> t.state[k] == OpState.DONE);
      if (prev >= 0 && t.ops[prev].kind() == ReplayProgram.Kind.KERNEL) {
        for (int k : inFlight) {
          deps.add(i, k);
        }
      }
      if (op.kind() == ReplayProgram.Kind.KERNEL) {
        inFlight.add(i);
      }
    }
    lastOp[s] = i;
  }

  /**
   * A CUDA graph launched on its stream, on GPU {@code gpu} (docs/REPLAY.md, "CUDA graphs"): each
   * operation waits for its predecessors in the graph; those with none wait for what the stream's
   * next operation would (its earlier work, events it waits for, the legacy stream's rules); the
   * stream's later work waits for every operation no other one of the graph waits for.
   */
  void issueGraph(HostCall.LaunchGraph g, int gpu) {
    int s = g.stream();
    if (s < 0 || g.ops().length == 0) {
      return;
    }
    List<Integer> entry = new ArrayList<>();
    entry.add(lastOp[s]);
    for (int w : tails[s]) {
      entry.add(w);
    }
    entry.addAll(pendingWaits.get(s));
    pendingWaits.get(s).clear();
    CallLog.Stream st = p.streams().get(s);
    int[] pd = procDevice(st.pid(), gpu);
    if (st.legacy()) {
      for (int b = 0; b < p.streams().size(); b++) {
        CallLog.Stream other = p.streams().get(b);
        if (b != s && !other.legacy() && other.blocking() && other.pid() == st.pid() && lastOp[b] >= 0
            && t.gpuOf[lastOp[b]] == gpu) {
          entry.add(lastOp[b]);
          for (int w : tails[b]) {
            entry.add(w);
          }
        }
      }
    } else if (st.blocking()) {
      entry.add(pd[0]);
    }
    java.util.Set<Integer> waitedFor = new java.util.HashSet<>();
    for (int k = 0; k < g.ops().length; k++) {
      int op = g.ops()[k];
      if (t.state[op] != OpState.WAITING) {
        continue;
      }
      if (g.waitsFor()[k].length == 0) {
        for (int e : entry) {
          deps.add(op, e);
        }
      }
      for (int w : g.waitsFor()[k]) {
        deps.add(op, w);
        waitedFor.add(w);
      }
    }
    List<Integer> sinks = new ArrayList<>();
    for (int op : g.ops()) {
      if (!waitedFor.contains(op) && t.gpuOf[op] >= 0) {
        sinks.add(op);
      }
    }
    if (sinks.isEmpty()) {
      return;
    }
    lastOp[s] = sinks.get(sinks.size() - 1);
    tails[s] = sinks.subList(0, sinks.size() - 1).stream().mapToInt(Integer::intValue).toArray();
    if (st.legacy()) {
      pd[0] = lastOp[s];
    }
  }

  /** cudaEventRecord(event, stream): the event stands for the work issued to the stream so far. */
  void record(int stream, int event) {
    if (event >= 0 && event < eventTarget.length) {
      boolean known = stream >= 0 && stream < lastOp.length;
      eventTarget[event] = known ? lastOp[stream] : -1;
      eventTails[event] = known ? tails[stream] : NONE;
    }
  }

  /** cudaStreamWaitEvent(stream, event): the stream's next operation waits for the event's work. */
  void waitEvent(int stream, int event) {
    if (stream >= 0 && stream < lastOp.length && event >= 0 && event < eventTarget.length
        && eventTarget[event] >= 0) {
      pendingWaits.get(stream).add(eventTarget[event]);
      for (int w : eventTails[event]) {
        pendingWaits.get(stream).add(w);
      }
    }
  }

  /** What cudaStreamSynchronize waits for. */
  void streamTargets(int stream, List<Integer> out) {
    if (stream >= 0 && stream < lastOp.length) {
      out.add(lastOp[stream]);
      for (int w : tails[stream]) {
        out.add(w);
      }
    }
  }

  /** What cudaEventSynchronize waits for. */
  void eventTargets(int event, List<Integer> out) {
    if (event >= 0 && event < eventTarget.length) {
      out.add(eventTarget[event]);
      for (int w : eventTails[event]) {
        out.add(w);
      }
    }
  }

  /** What cudaDeviceSynchronize (and cudaFree) waits for: every stream's last work on the device. */
  void deviceTargets(int pid, int traceDevice, List<Integer> out) {
    int gpu = deviceMap.getOrDefault(traceDevice, traceDevice);
    for (int s = 0; s < lastOp.length; s++) {
      CallLog.Stream st = p.streams().get(s);
      if (st.pid() == pid && lastOp[s] >= 0 && t.gpuOf[lastOp[s]] == gpu) {
        out.add(lastOp[s]);
        for (int w : tails[s]) {
          out.add(w);
        }
      }
    }
  }

  /**
   * A synchronizing call whose stream the trace does not say: the streams of its process and device
   * whose last work had ended, as measured, by the time it returned ({@code exitNs}).
   */
  void someStreamTargets(int pid, int traceDevice, long exitNs, List<Integer> out) {
    int gpu = deviceMap.getOrDefault(traceDevice, traceDevice);
    for (int s = 0; s < lastOp.length; s++) {
      CallLog.Stream st = p.streams().get(s);
      int last = lastOp[s];
      if (st.pid() == pid && last >= 0 && t.gpuOf[last] == gpu && t.ops[last].measured()
          && t.ops[last].measuredEndNs() <= exitNs) {
        out.add(last);
      }
    }
  }
}
