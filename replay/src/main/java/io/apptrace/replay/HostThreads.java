package io.apptrace.replay;

import io.apptrace.node.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The program's host threads (docs/REPLAY.md, "Host threads"): each runs its calls in order,
 * spending between two calls the host time it spent in the trace, divided by the node's
 * {@code cpu_speed_factor}. A call takes its own time as {@link CallCosts} gives it: measured, or
 * the node's host-overhead model (traces from the simulated device). A call that blocks (a
 * synchronization, a synchronous copy) ends when what it waits for is done, but not before its own
 * overhead: modelled, {@link CallCosts#blockingOwnNs}; measured, the smaller of its duration and
 * {@link Replayer#BLOCKING_OVERHEAD_NS}.
 */
final class HostThreads {
  private final ReplayProgram p;
  private final Node node;
  private final Replayer.Options o;
  private final OpTable t;
  private final Clock clock;
  private final EventQueue queue;
  private final StreamRules streams;
  private final MeasuredTiming measured;
  private final CallCosts costs;
  /** Per call: host time after it before the thread's next call, beyond the trace's ({@link ManagedResidency}). */
  private final double[] afterCallNs;
  private OpLifecycle lifecycle;
  private final int threads;
  /** Each thread's next call. */
  private final int[] cursor;
  /** Per thread: the index of its first call in the call columns. */
  final int[] callBase;
  final double[] callStart;
  final double[] callEnd;
  /** Per call: the operation whose end ended it (a blocking call), else -1. */
  final int[] callEndCause;
  /** Per blocking call, the operations it waited for (null for a call that waits for nothing). */
  final int[][] callTargets;
  /** Per call, the earliest it could have ended: its start plus its own cost. */
  final double[] callOwnEnd;
  // a blocking call in progress, per thread
  private final int[] waitLeft;
  private final long[] waitEarliest;
  private final long[] wakeNs;
  private final int[][] waitTargets;
  // per operation: the threads waiting for it (linked lists)
  private final int[] waiterHead;
  private int[] waiterNext = new int[64];
  private int[] waiterThread = new int[64];
  private int waiterCount;
  private final List<Integer> targets = new ArrayList<>();

  HostThreads(ReplayProgram p, Node node, Replayer.Options o, OpTable t, Clock clock, EventQueue queue,
      StreamRules streams, MeasuredTiming measured, CallCosts costs, double[] afterCallNs) {
    this.p = p;
    this.node = node;
    this.o = o;
    this.t = t;
    this.clock = clock;
    this.queue = queue;
    this.streams = streams;
    this.measured = measured;
    this.costs = costs;
    this.afterCallNs = afterCallNs;
    threads = p.threads().size();
    cursor = new int[threads];
    callBase = new int[threads + 1];
    for (int i = 0; i < threads; i++) {
      callBase[i + 1] = callBase[i] + p.threads().get(i).calls().size();
    }
    int calls = callBase[threads];
    callStart = new double[calls];
    callEnd = new double[calls];
    callEndCause = new int[calls];
    callTargets = new int[calls][];
    callOwnEnd = new double[calls];
    Arrays.fill(callEndCause, -1);
    waitLeft = new int[threads];
    waitEarliest = new long[threads];
    wakeNs = new long[threads];
    waitTargets = new int[threads][];
    waiterHead = new int[t.size];
    Arrays.fill(waiterHead, -1);
  }

  void issuesThrough(OpLifecycle l) {
    this.lifecycle = l;
  }

  /** Each thread's first call starts as long after the program's first call as it did in the trace. */
  void start() {
    long first = p.firstEntryNs();
    for (int i = 0; i < threads; i++) {
      List<ReplayProgram.Call> calls = p.threads().get(i).calls();
      if (!calls.isEmpty()) {
        queue.push(Clock.ticks((calls.get(0).entryNs() - first) / node.cpuSpeedFactor()), EventKind.CALL_STARTS, i);
      }
    }
  }

  /** Runs thread {@code i}'s next call, which starts now. */
  void runCall(int i) {
    List<ReplayProgram.Call> calls = p.threads().get(i).calls();
    if (cursor[i] >= calls.size()) {
      return;
    }
    ReplayProgram.Call c = calls.get(cursor[i]);
    int id = callBase[i] + cursor[i];
    long now = clock.now();
    callStart[id] = now;
    long dur = c.durationNs();
    long own = -1; // a blocking call's own cost when the host-overhead model prices it
    targets.clear();
    boolean blocking = false;
    HostCall what = c.what();
    if (what instanceof HostCall.IssueOp issue) {
      int op = issue.op();
      t.heldUntilNs[op] = issue.untilNs();
      if (t.gpuOf[op] >= 0) {
        dur = costs.issueNs(i, c, t.gpuOf[op]);
        own = costs.modelled() ? dur : -1;
      }
      lifecycle.issue(op, id, c.entryNs());
      if (t.ops[op].synchronous() && t.gpuOf[op] >= 0) {
        blocking = true;
        targets.add(op);
      } else if (t.gpuOf[op] < 0) {
        dur = Clock.ticks(dur / node.cpuSpeedFactor()); // the host copies: CPU time
      }
    } else if (what instanceof HostCall.LaunchGraph g) {
      int gpu = g.ops().length > 0 ? t.gpuOf[g.ops()[0]] : -1;
      dur = costs.graphLaunchNs(i, c, gpu);
      lifecycle.issueGraph(g, id, c.entryNs());
    } else if (what instanceof HostCall.SyncStream w) {
      blocking = true;
      streams.streamTargets(w.stream(), targets);
    } else if (what instanceof HostCall.SyncEvent w) {
      blocking = true;
      streams.eventTargets(w.event(), targets);
    } else if (what instanceof HostCall.SyncDevice w) {
      blocking = true;
      streams.deviceTargets(p.threads().get(i).pid(), w.device(), targets);
    } else if (what instanceof HostCall.SyncSomeStreams w) {
      blocking = true;
      streams.someStreamTargets(p.threads().get(i).pid(), w.device(), c.entryNs() + c.durationNs(), targets);
    } else if (what instanceof HostCall.RecordEvent r) {
      streams.record(r.stream(), r.event());
      dur = costs.plainNs(i, c);
    } else if (what instanceof HostCall.WaitEvent w) {
      streams.waitEvent(w.stream(), w.event());
      dur = costs.plainNs(i, c);
    } else if (what instanceof HostCall.NotMade) {
      dur = 0;
    } else if (what instanceof HostCall.Held h) {
      dur = Math.max(0, h.untilNs() - now); // decided outside the node: not the node's CPU time
    } else {
      dur = costs.plainNs(i, c); // host work
    }
    if (blocking && what.waits()) {
      own = costs.blockingOwnNs(i, c);
    }
    if (!blocking) {
      callEnd[id] = now + dur;
      callOwnEnd[id] = now + dur;
      if (c.issuedOp() >= 0 && t.gpuOf[c.issuedOp()] < 0) {
        t.end[c.issuedOp()] = callEnd[id];
      }
      queue.push(now + dur, EventKind.CALL_ENDS, i);
      return;
    }
    if (o.keepMeasured() && measured.returnedEarly(c, targets)) {
      // measured: the call returned before the work it waits for ended (a synchronous copy from
      // pageable memory returns once its source is staged): it keeps its measured duration
      callEnd[id] = now + dur;
      callOwnEnd[id] = now + dur;
      queue.push(now + dur, EventKind.CALL_ENDS, i);
      return;
    }
    // its own overhead: all of its measured time when, as measured, what it waits for had ended
    // before it was called (it did not wait); else at most BLOCKING_OVERHEAD_NS
    waitEarliest[i] = now + (own >= 0 ? own : measured.waitedForNothing(c, targets) ? dur
        : Math.min(dur, Replayer.BLOCKING_OVERHEAD_NS));
    waitLeft[i] = 0;
    waitTargets[i] = targets.stream().mapToInt(Integer::intValue).filter(x -> x >= 0).toArray();
    callTargets[id] = waitTargets[i];
    callOwnEnd[id] = waitEarliest[i];
    wakeNs[i] = measured.wakeLatency(c, waitTargets[i]);
    for (int target : waitTargets[i]) {
      if (Double.isNaN(t.release[target])) {
        waitLeft[i]++;
        addWaiter(i, target);
      }
    }
    if (waitLeft[i] == 0) {
      endBlockingCall(i);
    }
  }

  private void addWaiter(int thread, int op) {
    if (waiterCount == waiterThread.length) {
      waiterThread = Arrays.copyOf(waiterThread, waiterCount * 2);
      waiterNext = Arrays.copyOf(waiterNext, waiterCount * 2);
    }
    waiterThread[waiterCount] = thread;
    waiterNext[waiterCount] = waiterHead[op];
    waiterHead[op] = waiterCount++;
  }

  /** Threads waiting for operation {@code op} may go on (now): it is done, or its source is staged. */
  void release(int op) {
    t.release[op] = clock.now();
    for (int w = waiterHead[op]; w >= 0; w = waiterNext[w]) {
      int i = waiterThread[w];
      if (--waitLeft[i] == 0) {
        endBlockingCall(i);
      }
    }
    waiterHead[op] = -1;
  }

  /**
   * A blocking call whose targets have all released it ends then, plus its measured wake-up
   * latency, but not before its own overhead.
   */
  private void endBlockingCall(int i) {
    int id = callBase[i] + cursor[i];
    long when = Long.MIN_VALUE;
    int binding = -1;
    for (int target : waitTargets[i]) {
      // a pageable copy from the GPU: the thread copies the last chunk out after the DMA
      long r = (long) (Double.isNaN(t.release[target]) ? t.end[target] : t.release[target]) + Clock.ticks(
          t.hostAfterNs[target]);
      if (r > when) {
        when = r;
        binding = target;
      }
    }
    when = binding < 0 ? Long.MIN_VALUE : when + wakeNs[i];
    long ends = Math.max(waitEarliest[i], when);
    callEnd[id] = ends;
    callEndCause[id] = when > waitEarliest[i] ? binding : -1;
    queue.push(ends, EventKind.CALL_ENDS, i);
  }

  /** Thread {@code i}'s call has ended (now): the next one starts after the measured host time between them. */
  void callEnded(int i) {
    List<ReplayProgram.Call> calls = p.threads().get(i).calls();
    ReplayProgram.Call c = calls.get(cursor[i]);
    double after = afterCallNs[callBase[i] + cursor[i]];
    cursor[i]++;
    if (cursor[i] >= calls.size()) {
      return;
    }
    ReplayProgram.Call next = calls.get(cursor[i]);
    // host compute: the wall time between the calls less what the thread spent off the CPU; and
    // what the node adds after the call (managed memory the host reads, migrating back)
    double gap = Math.max(0, next.entryNs() - (c.entryNs() + c.durationNs()) - next.offCpuNs()) / node.cpuSpeedFactor()
        + after;
    queue.push(clock.at(gap), EventKind.CALL_STARTS, i);
  }
}
