package io.apptrace.replay;

import java.util.Arrays;

/**
 * What each operation waits for before it may start (stream order, events, the legacy stream's
 * and implicit synchronization's rules: {@link StreamRules} says which), as counts and lists of
 * dependents in primitive arrays.
 */
final class Dependencies {
  private final OpTable t;
  private final MeasuredTiming measured;
  /** Per operation: operations not done yet that it waits for. */
  private final int[] left;
  // dependents: singly linked lists
  private final int[] head;
  private int[] next = new int[1024];
  private int[] to = new int[1024];
  private int count;

  /** Whether every dependency is kept for {@link Slack}, done or not when it was added. */
  private final boolean keepSuccessors;

  Dependencies(OpTable t, MeasuredTiming measured, boolean keepSuccessors) {
    this.keepSuccessors = keepSuccessors;
    this.t = t;
    this.measured = measured;
    left = new int[t.size];
    head = new int[t.size];
    Arrays.fill(head, -1);
  }

  /** Operation {@code op} waits for {@code on} (-1: nothing), unless on is done already. */
  void add(int op, int on) {
    measured.waitsFor(op, on);
    if (on >= 0 && keepSuccessors) {
      successor(on, op);
    }
    if (on < 0 || t.state[on] == OpState.DONE) {
      return;
    }
    if (count == to.length) {
      to = Arrays.copyOf(to, count * 2);
      next = Arrays.copyOf(next, count * 2);
    }
    to[count] = op;
    next[count] = head[on];
    head[on] = count++;
    left[op]++;
  }

  // every operation that had to come after another, done or not when it was issued ({@link Slack})
  private int[] successorHead;
  private int[] successorNext = new int[1024];
  private int[] successorTo = new int[1024];
  private int successors;

  private void successor(int on, int op) {
    if (successorHead == null) {
      successorHead = new int[t.size];
      Arrays.fill(successorHead, -1);
    }
    if (successors == successorTo.length) {
      successorTo = Arrays.copyOf(successorTo, successors * 2);
      successorNext = Arrays.copyOf(successorNext, successors * 2);
    }
    successorTo[successors] = op;
    successorNext[successors] = successorHead[on];
    successorHead[on] = successors++;
  }

  /** Each operation that had to come after {@code op} (stream order, events, implicit synchronization). */
  void successors(int op, java.util.function.IntConsumer f) {
    if (successorHead == null) {
      return;
    }
    for (int e = successorHead[op]; e >= 0; e = successorNext[e]) {
      f.accept(successorTo[e]);
    }
  }

  /** Whether operation {@code op} waits for nothing now. */
  boolean free(int op) {
    return left[op] == 0;
  }

  /**
   * Operation {@code i} is done: its first dependent's entry, or -1. Walk them with
   * {@link #dependent} and {@link #next}; {@link #released} counts each off (no object per walk:
   * this runs once per operation).
   */
  int first(int i) {
    return head[i];
  }

  int next(int entry) {
    return next[entry];
  }

  int dependent(int entry) {
    return to[entry];
  }

  /** One thing dependent {@code j} waited for is done: whether it now waits for nothing. */
  boolean released(int j) {
    return --left[j] == 0;
  }
}
