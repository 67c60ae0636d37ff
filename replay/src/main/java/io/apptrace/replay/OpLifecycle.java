package io.apptrace.replay;

/**
 * Moves operations through their states ({@link OpState}): issued by a host thread's call, they
 * wait for what {@link StreamRules} says, become ready (after their measured dispatch delay under
 * {@code --keep-measured}), queue for an engine ({@link Engines}), and when done free their engine,
 * their dependents and the host threads waiting for them.
 */
final class OpLifecycle {
  private final OpTable t;
  private final Clock clock;
  private final EventQueue queue;
  private final Dependencies deps;
  private final StreamRules streams;
  private final MeasuredTiming measured;
  private final Engines engines;
  private final HostThreads hosts;

  OpLifecycle(OpTable t, Clock clock, EventQueue queue, Dependencies deps, StreamRules streams,
      MeasuredTiming measured, Engines engines, HostThreads hosts) {
    this.t = t;
    this.clock = clock;
    this.queue = queue;
    this.deps = deps;
    this.streams = streams;
    this.measured = measured;
    this.engines = engines;
    this.hosts = hosts;
  }

  /** Call {@code callId} (entered at {@code entryNs} as measured) issues operation {@code i} now. */
  void issue(int i, int callId, long entryNs) {
    long now = clock.now();
    t.issue[i] = now;
    t.causeId[i] = callId;
    t.issuedBy[i] = callId;
    int gpu = t.gpuOf[i];
    if (gpu < 0) { // a host-to-host copy: done by the calling thread, no device work
      t.state[i] = OpState.DONE;
      t.start[i] = now;
      return;
    }
    t.state[i] = OpState.WAITING;
    measured.issued(i, entryNs);
    streams.issue(i, gpu);
    if (deps.free(i)) {
      ready(i, Cause.ISSUE, callId);
    }
    engines.dispatch();
  }

  /**
   * Call {@code callId} launches a CUDA graph now: every operation of it is issued at once, each
   * waiting for its predecessors in the graph ({@link StreamRules#issueGraph}).
   */
  void issueGraph(HostCall.LaunchGraph g, int callId, long entryNs) {
    long now = clock.now();
    int gpu = -1;
    for (int i : g.ops()) {
      t.issue[i] = now;
      t.causeId[i] = callId;
      t.issuedBy[i] = callId;
      if (t.gpuOf[i] < 0) { // a host-to-host copy node: nothing on a device
        t.state[i] = OpState.DONE;
        t.start[i] = now;
        t.end[i] = now;
        continue;
      }
      gpu = t.gpuOf[i];
      t.state[i] = OpState.WAITING;
      measured.issued(i, entryNs);
    }
    if (gpu < 0) {
      return;
    }
    streams.issueGraph(g, gpu);
    for (int i : g.ops()) {
      if (t.state[i] == OpState.WAITING && deps.free(i)) {
        ready(i, Cause.ISSUE, callId);
      }
    }
    engines.dispatch();
  }

  /** Operation {@code i} waits for nothing now: it is ready, unless its measured dispatch delay comes first. */
  void ready(int i, int cause, int id) {
    double delay = measured.delay(i, cause, id);
    if (delay > 0) {
      queue.push(clock.at(delay), EventKind.DISPATCH_DELAY_OVER, i);
      return;
    }
    // a pageable copy's DMA waits for the calling thread to stage its first chunk
    double staging = t.issue[i] + t.hostBeforeNs[i] - clock.now();
    if (staging >= 1) {
      t.stagedCause[i] = cause;
      t.stagedCauseId[i] = id;
      queue.push(clock.at(staging), EventKind.STAGING_OVER, i);
      return;
    }
    t.state[i] = OpState.READY;
    t.ready[i] = clock.now();
    t.causeType[i] = cause;
    if (cause != Cause.ISSUE) {
      t.causeId[i] = id;
    }
    engines.ready(i);
  }

  /** Operation {@code i}'s first chunk is staged: it is ready, for what made it ready before. */
  void stagingOver(int i) {
    t.hostBeforeNs[i] = 0;
    ready(i, t.stagedCause[i], t.stagedCauseId[i]);
  }

  /** Operation {@code i}'s measured dispatch delay is over. */
  void delayOver(int i) {
    ready(i, measured.cause(i), measured.causeId(i));
  }

  /** Operation {@code i} is done now. */
  void finish(int i) {
    t.state[i] = OpState.DONE;
    t.end[i] = clock.now();
    engines.finished(i);
    for (int d = deps.first(i); d >= 0; d = deps.next(d)) {
      int j = deps.dependent(d);
      if (deps.released(j) && t.state[j] == OpState.WAITING) {
        ready(j, Cause.DEP, i);
      }
    }
    if (Double.isNaN(t.release[i])) {
      hosts.release(i);
    }
  }
}
