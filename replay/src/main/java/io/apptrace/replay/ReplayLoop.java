package io.apptrace.replay;

/**
 * The discrete-event loop (docs/REPLAY.md): take the earliest event, move the clock and the
 * transfers in flight to its time, run it. Single-threaded and deterministic: events at the same
 * nanosecond run by kind, then in the order they were scheduled ({@link EventQueue}). An event
 * scheduled before the clock is an internal error, never a loop that does not advance.
 */
final class ReplayLoop {
  private final Clock clock;
  private final EventQueue queue;
  private final Links links;
  private final HostThreads hosts;
  private final OpLifecycle lifecycle;
  private final Transfers transfers;
  private final Engines engines;
  private final OpTable t;
  private long events;

  ReplayLoop(Clock clock, EventQueue queue, Links links, HostThreads hosts, OpLifecycle lifecycle,
      Transfers transfers, Engines engines, OpTable t) {
    this.clock = clock;
    this.queue = queue;
    this.links = links;
    this.hosts = hosts;
    this.lifecycle = lifecycle;
    this.transfers = transfers;
    this.engines = engines;
    this.t = t;
  }

  /** Runs until nothing is left to happen; returns the number of events run. */
  long run() {
    hosts.start();
    while (queue.next()) {
      long at = queue.time();
      if (at < clock.now()) {
        throw new IllegalStateException("an event " + queue.kind() + " (id " + queue.id() + ") was scheduled at "
            + at + " ns, before the clock's " + clock.now() + " ns");
      }
      links.advance(at - clock.now());
      clock.advanceTo(at);
      events++;
      int id = queue.id();
      switch (queue.kind()) {
        case TRANSFERS_DUE -> {
          transfers.due();
          engines.dispatch();
        }
        case OP_PHASE_ENDS -> {
          if (t.state[id] == OpState.LATENCY) {
            transfers.fixedPartOver(id);
          } else {
            lifecycle.finish(id);
          }
          engines.dispatch();
        }
        case DISPATCH_DELAY_OVER -> {
          lifecycle.delayOver(id);
          engines.dispatch();
        }
        case STAGING_OVER -> {
          lifecycle.stagingOver(id);
          engines.dispatch();
        }
        case CALL_ENDS -> hosts.callEnded(id);
        case CALL_STARTS -> hosts.runCall(id);
      }
    }
    return events;
  }
}
