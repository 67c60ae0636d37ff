package io.apptrace.graph;

import io.apptrace.util.IntList;
import java.util.HashMap;
import java.util.Map;

/**
 * The values of a graph, by id (0, 1, ...): a value is one version of one allocation. Version 0
 * is an allocation's initial contents; version k > 0 is what its k-th write left, covering the
 * byte range that write touched.
 *
 * <p>Columns of 16 bytes per value: offsets and sizes below 4 GiB are stored in 32 bits (larger
 * ones aside), and version numbers are not stored but counted when first asked for (values of an
 * allocation are created in version order).
 */
public final class ValueTable {
  private static final long UNSIGNED_INT = 0xffffffffL;
  private final IntList allocation = new IntList(1024);
  private final IntList offset = new IntList(1024);
  private final IntList bytes = new IntList(1024);
  private final IntList producer = new IntList(1024);
  /** Offsets and sizes of 4 GiB and more, by value id. */
  private final Map<Integer, long[]> large = new HashMap<>();
  private final Map<Integer, Integer> initialValues = new HashMap<>();
  private int[] versions;

  int add(int alloc, boolean initial, long off, long len, int producerOp) {
    int v = allocation.add(alloc);
    if (off < 0 || off >= UNSIGNED_INT || len < 0 || len >= UNSIGNED_INT) {
      large.put(v, new long[] {off, len});
      offset.add(-1);
      bytes.add(-1);
    } else {
      offset.add((int) off);
      bytes.add((int) len);
    }
    producer.add(producerOp);
    if (initial) {
      initialValues.put(v, alloc);
    }
    return v;
  }

  void trim() {
    allocation.trim();
    offset.trim();
    bytes.trim();
    producer.trim();
  }

  public int size() {
    return allocation.size();
  }

  /** The allocation's id. */
  public int allocation(int value) {
    return allocation.get(value);
  }

  /** The version number: 0 for initial contents, then 1, 2, ... in the order writes happened. */
  public synchronized int version(int value) {
    if (versions == null) {
      int n = size();
      versions = new int[n];
      Map<Integer, Integer> written = new HashMap<>();
      for (int v = 0; v < n; v++) {
        versions[v] = initialValues.containsKey(v) ? 0 : written.merge(allocation.get(v), 1, Integer::sum);
      }
    }
    return versions[value];
  }

  /** Where in the allocation this version's bytes start. */
  public long offset(int value) {
    int o = offset.get(value);
    return o == -1 && large.containsKey(value) ? large.get(value)[0] : o & UNSIGNED_INT;
  }

  /** Bytes this version wrote (the whole allocation for version 0). */
  public long bytes(int value) {
    int b = bytes.get(value);
    return b == -1 && large.containsKey(value) ? large.get(value)[1] : b & UNSIGNED_INT;
  }

  /** The operation that produced it; -1 for initial contents. */
  public int producer(int value) {
    return producer.get(value);
  }
}
