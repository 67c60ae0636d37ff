package io.apptrace.replay;

import java.util.Arrays;

/**
 * A min-heap of timed events without an object per event: (time, priority, sequence) orders
 * them (time in integer nanoseconds, exact at any makespan), so that events at the same time come out in a fixed order whatever the heap's history
 * (the replay's determinism rests on it).
 */
final class EventHeap {
  private long[] time = new long[64];
  private int[] prio = new int[64];
  private long[] seq = new long[64];
  private int[] type = new int[64];
  private int[] id = new int[64];
  private int size;
  private long nextSeq;

  boolean isEmpty() {
    return size == 0;
  }

  long peekTime() {
    return time[0];
  }

  void push(long t, int priority, int eventType, int eventId) {
    if (size == time.length) {
      int n = size * 2;
      time = Arrays.copyOf(time, n);
      prio = Arrays.copyOf(prio, n);
      seq = Arrays.copyOf(seq, n);
      type = Arrays.copyOf(type, n);
      id = Arrays.copyOf(id, n);
    }
    int i = size++;
    set(i, t, priority, nextSeq++, eventType, eventId);
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!less(i, parent)) {
        break;
      }
      swap(i, parent);
      i = parent;
    }
  }

  /** Removes the first event; its type and id are then {@link #lastType} and {@link #lastId}. */
  int lastType;
  int lastId;
  long lastTime;

  void pop() {
    lastTime = time[0];
    lastType = type[0];
    lastId = id[0];
    size--;
    if (size > 0) {
      set(0, time[size], prio[size], seq[size], type[size], id[size]);
      int i = 0;
      while (true) {
        int l = 2 * i + 1;
        if (l >= size) {
          break;
        }
        int c = l + 1 < size && less(l + 1, l) ? l + 1 : l;
        if (!less(c, i)) {
          break;
        }
        swap(i, c);
        i = c;
      }
    }
  }

  private boolean less(int a, int b) {
    if (time[a] != time[b]) {
      return time[a] < time[b];
    }
    if (prio[a] != prio[b]) {
      return prio[a] < prio[b];
    }
    return seq[a] < seq[b];
  }

  private void set(int i, long t, int p, long s, int ty, int ident) {
    time[i] = t;
    prio[i] = p;
    seq[i] = s;
    type[i] = ty;
    id[i] = ident;
  }

  private void swap(int a, int b) {
    long t = time[a];
    time[a] = time[b];
    time[b] = t;
    int p = prio[a];
    prio[a] = prio[b];
    prio[b] = p;
    long s = seq[a];
    seq[a] = seq[b];
    seq[b] = s;
    int ty = type[a];
    type[a] = type[b];
    type[b] = ty;
    int x = id[a];
    id[a] = id[b];
    id[b] = x;
  }
}
