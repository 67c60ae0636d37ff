package io.apptrace.replay;

import java.util.Arrays;

/** A min-heap of ints (operation ids: the earliest issued first), without boxing. */
final class IntHeap {
  private int[] a = new int[16];
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  int peek() {
    return a[0];
  }

  void add(int v) {
    if (size == a.length) {
      a = Arrays.copyOf(a, size * 2);
    }
    int i = size++;
    a[i] = v;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (a[parent] <= a[i]) {
        break;
      }
      int t = a[parent];
      a[parent] = a[i];
      a[i] = t;
      i = parent;
    }
  }

  int poll() {
    int top = a[0];
    a[0] = a[--size];
    int i = 0;
    while (true) {
      int l = 2 * i + 1;
      if (l >= size) {
        break;
      }
      int c = l + 1 < size && a[l + 1] < a[l] ? l + 1 : l;
      if (a[i] <= a[c]) {
        break;
      }
      int t = a[c];
      a[c] = a[i];
      a[i] = t;
      i = c;
    }
    return top;
  }
}
