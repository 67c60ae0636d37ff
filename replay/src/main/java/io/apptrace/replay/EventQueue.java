package io.apptrace.replay;

/**
 * The replay's future: timed events ordered by (time, {@link EventKind#priority}, order of
 * scheduling), without an object per event. The link-sharing model's next due time has a slot of
 * its own, rescheduled whenever it changes (it changes at almost every event of a copy-heavy
 * program): it comes out before any other event of its nanosecond, as its priority says.
 */
final class EventQueue {
  private static final EventKind[] KINDS = EventKind.values();
  private final EventHeap heap = new EventHeap();
  /** The transfers' due time (MAX_VALUE: nothing in flight). */
  private long transfersDue = Long.MAX_VALUE;
  private long time;
  private EventKind kind;
  private int id;

  void push(long t, EventKind kind, int id) {
    heap.push(t, kind.priority, kind.ordinal(), id);
  }

  /** The link-sharing model's next due time (MAX_VALUE: nothing in flight). */
  void transfersDueAt(long t) {
    transfersDue = t;
  }

  /**
   * Takes the earliest event; returns false when none is left. Its time, kind and id are then
   * {@link #time()}, {@link #kind()} and {@link #id()}.
   */
  boolean next() {
    long heapNext = heap.isEmpty() ? Long.MAX_VALUE : heap.peekTime();
    if (transfersDue == Long.MAX_VALUE && heapNext == Long.MAX_VALUE) {
      return false;
    }
    if (transfersDue <= heapNext) { // TRANSFERS_DUE has the first priority at its nanosecond
      time = transfersDue;
      kind = EventKind.TRANSFERS_DUE;
      id = -1;
      transfersDue = Long.MAX_VALUE; // taken: the model says its next due time when it has updated
      return true;
    }
    heap.pop();
    time = heap.lastTime;
    kind = KINDS[heap.lastType];
    id = heap.lastId;
    return true;
  }

  long time() {
    return time;
  }

  EventKind kind() {
    return kind;
  }

  int id() {
    return id;
  }
}
