package io.apptrace.graph;

import io.apptrace.util.IntRows;
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
  /** A row per value: its allocation, offset and bytes (unsigned; -1: see {@code large}), producer. */
  private final IntRows rows = new IntRows(4);
  private static final int ALLOCATION = 0;
  private static final int OFFSET = 1;
  private static final int BYTES = 2;
  private static final int PRODUCER = 3;
  /** Offsets and sizes of 4 GiB and more, by value id. */
  private final Map<Integer, long[]> large = new HashMap<>();
  private final Map<Integer, Integer> initialValues = new HashMap<>();
  private int[] versions;

  int add(int alloc, boolean initial, long off, long len, int producerOp) {
    int v = rows.addRow();
    int[] row = rows.chunk(v);
    int at = rows.base(v);
    row[at + ALLOCATION] = alloc;
    if (off < 0 || off >= UNSIGNED_INT || len < 0 || len >= UNSIGNED_INT) {
      large.put(v, new long[] {off, len});
      row[at + OFFSET] = -1;
      row[at + BYTES] = -1;
    } else {
      row[at + OFFSET] = (int) off;
      row[at + BYTES] = (int) len;
    }
    row[at + PRODUCER] = producerOp;
    if (initial) {
      initialValues.put(v, alloc);
    }
    return v;
  }

  void trim() {
    rows.trim();
  }

  public int size() {
    return rows.size();
  }

  /** The allocation's id. */
  public int allocation(int value) {
    return rows.get(value, ALLOCATION);
  }

  /** The version number: 0 for initial contents, then 1, 2, ... in the order writes happened. */
  public synchronized int version(int value) {
    if (versions == null) {
      int n = size();
      versions = new int[n];
      Map<Integer, Integer> written = new HashMap<>();
      for (int v = 0; v < n; v++) {
        versions[v] = initialValues.containsKey(v) ? 0 : written.merge(rows.get(v, ALLOCATION), 1, Integer::sum);
      }
    }
    return versions[value];
  }

  /** Where in the allocation this version's bytes start. */
  public long offset(int value) {
    int o = rows.get(value, OFFSET);
    return o == -1 && large.containsKey(value) ? large.get(value)[0] : o & UNSIGNED_INT;
  }

  /** Bytes this version wrote (the whole allocation for version 0). */
  public long bytes(int value) {
    int b = rows.get(value, BYTES);
    return b == -1 && large.containsKey(value) ? large.get(value)[1] : b & UNSIGNED_INT;
  }

  /** The operation that produced it; -1 for initial contents. */
  public int producer(int value) {
    return rows.get(value, PRODUCER);
  }
}
