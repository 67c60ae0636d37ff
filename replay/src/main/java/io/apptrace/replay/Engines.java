package io.apptrace.replay;

import io.apptrace.node.Node;
import java.util.Arrays;

/**
 * The GPUs' engines (docs/REPLAY.md, "Engines"): per GPU, engine 0 is the compute engine
 * ({@link ComputeEngine}), engines 1..k its copy engines ({@link CopyEngines}). Operations that
 * become ready queue on their GPU; a GPU whose queues or engines changed is dispatched once per
 * instant. An engine remembers what it last ran, when it ended and in which direction (the gap-g
 * rule), and an operation that waited for its engine names the one that held it (the critical
 * path).
 */
final class Engines {
  private final Node node;
  private final OpTable t;
  private final Clock clock;
  private final EventQueue queue;
  /** Per GPU: its first engine's index; engineBase[gpus] is the number of engines. */
  private final int[] base;
  private final long[] lastEnd;
  private final int[] lastWay;
  private final int[] lastOp;
  final ComputeEngine compute;
  final CopyEngines copies;
  /** GPUs whose ready queues or engines changed since the last dispatch. */
  private final boolean[] dirty;
  private final int[] dirtyList;
  private int dirtyCount;

  Engines(Node node, OpTable t, Clock clock, EventQueue queue, PricedOps priced, boolean keepMeasured) {
    this.node = node;
    this.t = t;
    this.clock = clock;
    this.queue = queue;
    int gpus = node.gpus().size();
    base = new int[gpus + 1];
    for (int g = 0; g < gpus; g++) {
      base[g + 1] = base[g] + 1 + node.gpus().get(g).copyEngines();
    }
    lastEnd = new long[base[gpus]];
    Arrays.fill(lastEnd, Long.MIN_VALUE);
    lastWay = new int[base[gpus]];
    Arrays.fill(lastWay, -1);
    lastOp = new int[base[gpus]];
    Arrays.fill(lastOp, -1);
    dirty = new boolean[gpus];
    dirtyList = new int[gpus];
    compute = new ComputeEngine(node, t, this, keepMeasured);
    copies = new CopyEngines(node, t, this, priced);
  }

  /** The index of GPU {@code g}'s compute engine; its copy engines follow it. */
  int computeEngine(int g) {
    return base[g];
  }

  /** Operation {@code i} is ready on its GPU: it queues for an engine. */
  void ready(int i) {
    int g = t.gpuOf[i];
    if (t.ops[i].kind() == ReplayProgram.Kind.COLLECTIVE) {
      // communication a replay outside the node times: it takes no engine, and ends when that says
      long now = clock.now();
      t.start[i] = now;
      t.state[i] = OpState.RUNNING;
      queue.push(Math.max(now, t.heldUntilNs[i]), EventKind.OP_PHASE_ENDS, i);
      return;
    }
    if (t.ops[i].kind() == ReplayProgram.Kind.COPY) {
      copies.ready(i, g);
    } else {
      compute.ready(i, g);
    }
    touch(g);
  }

  private void touch(int g) {
    if (!dirty[g]) {
      dirty[g] = true;
      dirtyList[dirtyCount++] = g;
    }
  }

  /** Starts what may start on every GPU that changed. */
  void dispatch() {
    while (dirtyCount > 0) {
      int g = dirtyList[--dirtyCount];
      dirty[g] = false;
      compute.dispatch(g);
      copies.dispatch(g);
    }
  }

  /** Operation {@code i} starts now on {@code engine}; its fixed part ends {@code phaseNs} from now. */
  void start(int i, int engine, OpState state, double phaseNs) {
    long now = clock.now();
    t.start[i] = now;
    t.engineOf[i] = engine;
    if (now > t.ready[i]) {
      t.causeType[i] = Cause.ENGINE;
      t.causeId[i] = lastOp[engine];
    }
    t.state[i] = state;
    queue.push(clock.at(phaseNs), EventKind.OP_PHASE_ENDS, i);
  }

  /** Whether {@code engine} ended a copy in direction {@code lane} just now (the gap-g rule). */
  boolean justMoved(int engine, int lane) {
    return lastEnd[engine] == clock.now() && lastWay[engine] == lane;
  }

  /** Operation {@code i} is done: its engine is free for the next. */
  void finished(int i) {
    int engine = t.engineOf[i];
    if (engine < 0) {
      return;
    }
    int g = t.gpuOf[i];
    touch(g);
    if (engine == base[g]) {
      compute.finished(g);
    } else {
      copies.finished(engine);
      lastWay[engine] = t.lane(i);
    }
    lastEnd[engine] = clock.now();
    lastOp[engine] = i;
  }

  /** Each engine's name: {@code gpu0 compute}, {@code gpu0 copy0 (h2d)}, ... */
  String[] names() {
    String[] names = new String[base[base.length - 1]];
    for (int g = 0; g < node.gpus().size(); g++) {
      Node.Gpu gpu = node.gpus().get(g);
      names[base[g]] = gpu.id() + " compute";
      int k = gpu.copyEngines();
      for (int e = 0; e < k; e++) {
        names[base[g] + 1 + e] = gpu.id() + " copy" + e + (k == 1 ? "" : e % 2 == 0 ? " (h2d)" : " (d2h)");
      }
    }
    return names;
  }
}
