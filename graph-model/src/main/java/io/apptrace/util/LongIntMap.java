package io.apptrace.util;

import java.util.Arrays;

/** A map from long to int without boxing (open addressing, linear probing). Not thread-safe. */
public final class LongIntMap {
  private static final long EMPTY = Long.MIN_VALUE;
  private long[] keys;
  private int[] values;
  private int size;
  private boolean hasEmptyKey;
  private int emptyKeyValue;

  public LongIntMap() {
    keys = new long[16];
    values = new int[16];
    Arrays.fill(keys, EMPTY);
  }

  private int slot(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & (keys.length - 1);
  }

  /** The value for {@code key}, or {@code missing}. */
  public int get(long key, int missing) {
    if (key == EMPTY) {
      return hasEmptyKey ? emptyKeyValue : missing;
    }
    for (int i = slot(key); ; i = (i + 1) & (keys.length - 1)) {
      long k = keys[i];
      if (k == key) {
        return values[i];
      }
      if (k == EMPTY) {
        return missing;
      }
    }
  }

  public void put(long key, int value) {
    if (key == EMPTY) {
      hasEmptyKey = true;
      emptyKeyValue = value;
      return;
    }
    if (size * 2 >= keys.length) {
      grow();
    }
    for (int i = slot(key); ; i = (i + 1) & (keys.length - 1)) {
      if (keys[i] == key) {
        values[i] = value;
        return;
      }
      if (keys[i] == EMPTY) {
        keys[i] = key;
        values[i] = value;
        size++;
        return;
      }
    }
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new int[oldKeys.length * 2];
    Arrays.fill(keys, EMPTY);
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != EMPTY) {
        put(oldKeys[i], oldValues[i]);
      }
    }
  }

  public int size() {
    return size + (hasEmptyKey ? 1 : 0);
  }
}
