package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replay's event queue on its own (docs/REPLAY.md, "What is replayed": events at the same time
 * are ordered by kind, then by when they were scheduled). The kinds' order at one nanosecond:
 * transfers that end, then operations whose fixed part ends or whose dispatch delay is over, then
 * calls that end, then calls that start.
 */
class EventQueueTest {
  /** Every event left, as "time kind id". */
  private static List<String> drain(EventQueue q) {
    List<String> out = new ArrayList<>();
    while (q.next()) {
      out.add(q.time() + " " + q.kind() + " " + q.id());
    }
    return out;
  }

  /**
   * Events come out by time, whatever the order they were scheduled in.
   *
   * <pre>
   *   scheduled:  CALL_STARTS@30  CALL_ENDS@10  OP_PHASE_ENDS@20
   *   taken:      10, 20, 30
   * </pre>
   */
  @Test
  void eventsComeOutInTimeOrder() {
    EventQueue q = new EventQueue();
    q.push(30, EventKind.CALL_STARTS, 1);
    q.push(10, EventKind.CALL_ENDS, 2);
    q.push(20, EventKind.OP_PHASE_ENDS, 3);
    assertThat(drain(q)).containsExactly("10 CALL_ENDS 2", "20 OP_PHASE_ENDS 3", "30 CALL_STARTS 1");
  }

  /**
   * At one nanosecond, the kind decides: an operation's end is seen before the call that waits for
   * it ends, and a call ends before the next call starts, whatever order they were scheduled in.
   *
   * <pre>
   *   t = 100:  scheduled CALL_STARTS, CALL_ENDS, OP_PHASE_ENDS
   *             taken     OP_PHASE_ENDS, CALL_ENDS, CALL_STARTS
   * </pre>
   */
  @Test
  void eventsAtTheSameNanosecondAreOrderedByKind() {
    EventQueue q = new EventQueue();
    q.push(100, EventKind.CALL_STARTS, 1);
    q.push(100, EventKind.CALL_ENDS, 2);
    q.push(100, EventKind.OP_PHASE_ENDS, 3);
    assertThat(drain(q)).containsExactly("100 OP_PHASE_ENDS 3", "100 CALL_ENDS 2", "100 CALL_STARTS 1");
  }

  /**
   * Events of one kind, or of kinds of the same priority (an operation's fixed part ending and a
   * dispatch delay being over), at one nanosecond come out in the order they were scheduled.
   *
   * <pre>
   *   t = 50:  scheduled OP_PHASE_ENDS 7, DISPATCH_DELAY_OVER 3, OP_PHASE_ENDS 5
   *            taken in that order
   * </pre>
   */
  @Test
  void eventsOfOnePriorityAtTheSameNanosecondComeOutInTheOrderTheyWereScheduled() {
    EventQueue q = new EventQueue();
    q.push(50, EventKind.OP_PHASE_ENDS, 7);
    q.push(50, EventKind.DISPATCH_DELAY_OVER, 3);
    q.push(50, EventKind.OP_PHASE_ENDS, 5);
    for (int i = 0; i < 100; i++) { // a heap's history must not change it
      q.push(60 + i, EventKind.CALL_STARTS, i);
    }
    assertThat(drain(q).subList(0, 3)).containsExactly("50 OP_PHASE_ENDS 7", "50 DISPATCH_DELAY_OVER 3",
        "50 OP_PHASE_ENDS 5");
  }

  /**
   * The link-sharing model's due time has a slot of its own and comes out first at its nanosecond,
   * even when scheduled after the other events of that nanosecond.
   *
   * <pre>
   *   t = 40:  OP_PHASE_ENDS 1 (heap), CALL_ENDS 2 (heap), transfers due (slot)
   *   taken:   TRANSFERS_DUE, OP_PHASE_ENDS 1, CALL_ENDS 2
   * </pre>
   */
  @Test
  void theTransfersDueTimeComesFirstAtItsNanosecond() {
    EventQueue q = new EventQueue();
    q.push(40, EventKind.OP_PHASE_ENDS, 1);
    q.push(40, EventKind.CALL_ENDS, 2);
    q.transfersDueAt(40);
    assertThat(drain(q)).containsExactly("40 TRANSFERS_DUE -1", "40 OP_PHASE_ENDS 1", "40 CALL_ENDS 2");
  }

  /**
   * The transfers' due time is one slot: a new due time replaces the old one, and once taken it is
   * not taken again until the model says its next one.
   *
   * <pre>
   *   transfersDueAt(90), then transfersDueAt(70): one TRANSFERS_DUE, at 70
   * </pre>
   */
  @Test
  void aNewTransfersDueTimeReplacesTheOldAndIsTakenOnce() {
    EventQueue q = new EventQueue();
    q.transfersDueAt(90);
    q.transfersDueAt(70);
    q.push(80, EventKind.CALL_STARTS, 4);
    assertThat(drain(q)).containsExactly("70 TRANSFERS_DUE -1", "80 CALL_STARTS 4");
    q.transfersDueAt(Long.MAX_VALUE); // nothing in flight
    assertThat(q.next()).isFalse();
  }
}
