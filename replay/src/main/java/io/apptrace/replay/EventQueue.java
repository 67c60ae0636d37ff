package io.apptrace.replay;

/**
 * The replay's future: timed events ordered by (time, {@link EventKind#priority}, order of
 * scheduling), without an object per event. The link-sharing model keeps one entry of its own,
 * its next due time, rescheduled whenever that changes; an entry it has replaced is skipped.
 */
final class EventQueue {
  private static final EventKind[] KINDS = EventKind.values();
  private final EventHeap heap = new EventHeap();
  /** The transfers' due time in the queue (MAX_VALUE: none), and its generation. */
  private long transfersDue = Long.MAX_VALUE;
  private int transfersGeneration;

  void push(long t, EventKind kind, int id) {
    heap.push(t, kind.priority, kind.ordinal(), id);
  }

  /** The link-sharing model's next due time (MAX_VALUE: nothing in flight). */
  void transfersDueAt(long t) {
    if (t == transfersDue) {
      return;
    }
    transfersDue = t;
    transfersGeneration++;
    if (t != Long.MAX_VALUE) {
      push(t, EventKind.TRANSFERS_DUE, transfersGeneration);
    }
  }

  boolean isEmpty() {
    return heap.isEmpty();
  }

  /**
   * Takes the earliest event that is still current (a replaced transfers entry is dropped);
   * returns false when none is left. Its time, kind and id are then {@link #time()},
   * {@link #kind()} and {@link #id()}.
   */
  boolean next() {
    while (!heap.isEmpty()) {
      heap.pop();
      if (KINDS[heap.lastType] != EventKind.TRANSFERS_DUE) {
        return true;
      }
      if (heap.lastId == transfersGeneration) {
        transfersDue = Long.MAX_VALUE; // taken: the next due time is scheduled anew
        return true;
      }
    }
    return false;
  }

  long time() {
    return heap.lastTime;
  }

  EventKind kind() {
    return KINDS[heap.lastType];
  }

  int id() {
    return heap.lastId;
  }
}
