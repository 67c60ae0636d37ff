package io.apptrace.graph;

import io.apptrace.proto.MemoryKind;

/**
 * How values flow through operations (docs/GRAPH.md, "Values"): a read takes the versions that
 * last wrote each byte of its range, with the bytes each supplied, and the allocation's initial
 * contents for bytes never written when they matter; a write makes a new version of the range.
 * Every read is checked for a race ({@link RaceFinder}).
 */
final class ValueFlow {
  private final OperationTable ops;
  private final ValueTable values;
  private final Allocations allocations;
  private final RaceFinder races;
  /** The values one operation reads, as its reads find them (reused; {@link #endOperation()}). */
  private final WriteMap.Reads reads = new WriteMap.Reads();

  ValueFlow(OperationTable ops, ValueTable values, Allocations allocations, RaceFinder races) {
    this.ops = ops;
    this.values = values;
    this.allocations = allocations;
    this.races = races;
  }

  /**
   * Adds the values that last wrote {@code [offset, offset + bytes)} of {@code a} as inputs of
   * {@code op}, each with the bytes of the range it supplied; bytes never written come from the
   * allocation's initial value when its contents matter (host memory, managed memory, device
   * symbols). A value found by an earlier read of the same operation is not added again.
   */
  void read(ProcessState p, int op, HappensBefore.Stream s, Allocation a, long offset, long bytes, Confidence c) {
    WriteMap.Reads in = reads;
    int before = in.size;
    boolean gap = a.writes.read(offset, bytes, in);
    if (gap && a.initialContentsMatter()) {
      if (a.initialValue < 0) {
        a.initialValue = values.add(a.id(), true, 0, a.bytes(), -1);
      }
      long wanted = Math.min(a.bytes(), offset + Math.max(bytes, 1)) - Math.max(offset, 0);
      long written = 0;
      for (int i = before; i < in.size; i++) {
        written += in.bytes[i];
      }
      in.add(a.initialValue, Math.max(wanted - written, 0));
    }
    int[] found = in.values;
    for (int i = before; i < in.size; i++) {
      int v = found[i];
      if (seenInput(before, i, v)) {
        continue;
      }
      long read = in.bytes[i];
      for (int j = i + 1; j < in.size; j++) { // a value split into several ranges
        if (found[j] == v) {
          read += in.bytes[j];
        }
      }
      ops.input(v, c, read);
      races.read(p, s, op, v, c);
    }
  }

  private boolean seenInput(int from, int at, int v) {
    int[] found = reads.values;
    for (int i = from; i < at; i++) {
      if (found[i] == v) {
        return true;
      }
    }
    return false;
  }

  /** The operation's reads are done: the next read starts a new operation's inputs. */
  void endOperation() {
    reads.clear();
  }

  /** A new version of {@code a} covering {@code [offset, offset + bytes)}, produced by {@code op}. */
  void write(int op, Allocation a, long offset, long bytes, Confidence c) {
    long len = Math.max(1, Math.min(bytes, a.bytes() - offset));
    a.versions++;
    int v = values.add(a.id(), false, offset, len, op);
    a.writes.write(offset, len, v);
    ops.output(v, c);
  }

  /**
   * The source of a copy in an imported trace, which has no addresses: a value of its own (what
   * the program had there is unknown), read whole.
   */
  void endpointRead(int pid, MemoryKind kind, int device, long bytes) {
    Allocation a = allocations.add(pid, kind, device, 0, bytes, true, "");
    a.initialValue = values.add(a.id(), true, 0, a.bytes(), -1);
    ops.input(a.initialValue, Confidence.EXACT, bytes);
  }

  /** The destination of a copy or memset in an imported trace: a new value of its own. */
  void endpointWrite(int pid, int op, MemoryKind kind, int device, long bytes) {
    Allocation a = allocations.add(pid, kind, device, 0, bytes, true, "");
    write(op, a, 0, bytes, Confidence.EXACT);
  }
}
