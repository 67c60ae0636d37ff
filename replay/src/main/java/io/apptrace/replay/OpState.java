package io.apptrace.replay;

/**
 * Where an operation is in its life during a replay (docs/REPLAY.md):
 *
 * <pre>
 *   PENDING --issued by its call--> WAITING --what it waits for is done--> READY
 *   READY --its engine takes it--> RUNNING (kernel, memset) --its time is over--> DONE
 *   READY --a copy engine takes it--> LATENCY --L+o or the gap g is over--> FLOWING
 *   FLOWING --its bytes have crossed its links--> DONE
 *   PENDING --issued: a host-to-host copy, done by the calling thread--> DONE
 * </pre>
 *
 * With {@code --keep-measured}, WAITING becomes READY only after the operation's measured dispatch
 * delay ({@link MeasuredTiming}); a copy kept at its measured time goes from LATENCY to DONE.
 */
enum OpState {
  PENDING, WAITING, READY, LATENCY, FLOWING, RUNNING, DONE
}
