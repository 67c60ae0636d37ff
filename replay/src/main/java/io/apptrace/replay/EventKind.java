package io.apptrace.replay;

/**
 * The kinds of event the replay's loop runs, each with its priority among events at the same
 * nanosecond (lower first): transfers that end are seen before anything else of that instant, then
 * operations whose fixed part ends or whose dispatch delay is over, then calls that end, then calls
 * that start. Within a priority, events run in the order they were scheduled.
 */
enum EventKind {
  /** The link-sharing model's next transfer end or milestone ({@link Transfers}). */
  TRANSFERS_DUE(0),
  /** A kernel's or memset's time, or a copy's fixed overhead (L+o or the gap g), is over. */
  OP_PHASE_ENDS(1),
  /** An operation's measured dispatch delay is over ({@code --keep-measured}, {@link MeasuredTiming}). */
  DISPATCH_DELAY_OVER(1),
  /** A pageable copy's first chunk is staged by the calling thread: its DMA may start. */
  STAGING_OVER(1),
  /** A host thread's call returns. */
  CALL_ENDS(2),
  /** A host thread's next call starts, after the host time before it. */
  CALL_STARTS(3);

  final int priority;

  EventKind(int priority) {
    this.priority = priority;
  }
}
