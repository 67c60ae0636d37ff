package io.apptrace.imports;

import java.io.Closeable;
import java.nio.file.Path;

/**
 * Places GPU work whose launching call the trace lacks (a kernel launched by a library the
 * profiler did not trace, an NCCL kernel). Such work goes on a synthetic host thread per device
 * (tid {@link #ORPHAN_TID_BASE} + device, named so) with a synthetic correlation id, and is issued
 * in its stream's order: a stream runs its work in the order it was issued, so the work was issued
 * before every later operation of its stream, at its GPU start or just before the earliest call
 * that issued later work to the stream, whichever is earlier.
 *
 * <p>{@link CorrelationJoin} hands over each such operation ({@link #add}) and each traced call's
 * GPU operation ({@link #issued}); {@link #placeInto} then adds the placed rows to the joined rows.
 */
final class OrphanPlacer implements Closeable {
  /** Synthetic host threads for GPU work whose launching call the trace lacks: one per device. */
  static final int ORPHAN_TID_BASE = 0x7ff00000;
  /** Synthetic correlation ids for such work (the graph joins GPU times by correlation). */
  static final long ORPHAN_CORR_BASE = 1L << 62;
  /** The name of the synthetic call that issues such work. */
  static final String CALL_NAME = "(launch not traced)";

  /** Keys of both sorters: (process key, stream, -GPU start, sequence). */
  private static final int KEYS = 4;

  private final Path tmpDir;
  private final SourceFacts facts;
  private final Strings strings;
  /** The orphans: the keys, then the joined row. */
  private RecordSorter orphans;
  /** The traced calls' GPU work: the keys, then the call's start. */
  private RecordSorter issues;
  private final long[] keyed = new long[KEYS + JoinedRow.WIDTH];
  private long moved;

  /**
   * @param facts where the synthetic threads get their names, and process keys their pids
   * @param strings where the synthetic call's name gets its id
   */
  OrphanPlacer(Path tmpDir, SourceFacts facts, Strings strings) {
    this.tmpDir = tmpDir;
    this.facts = facts;
    this.strings = strings;
  }

  /**
   * GPU work of process key {@code proc} with no traced call: {@code row} becomes the synthetic
   * call that issues it (no synchronization or event record in it), and is kept until placed.
   */
  void add(long proc, GpuOpRow op, JoinedRow row) {
    long pid = facts.pidOf(proc);
    long tid = ORPHAN_TID_BASE + op.device();
    row.forOrphan(pid, tid, op.startNs(), op.seq(), strings.id(CALL_NAME), ORPHAN_CORR_BASE + op.seq(), proc);
    facts.threadNameIfAbsent(pid, tid, "GPU " + op.device() + " work with no traced call");
    row.gpuFrom(op);
    if (orphans == null) {
      orphans = new RecordSorter(KEYS + JoinedRow.WIDTH, KEYS, tmpDir, RecordSorter.DEFAULT_CHUNK);
    }
    key(row);
    System.arraycopy(row.cells, 0, keyed, KEYS, JoinedRow.WIDTH);
    orphans.add(keyed);
  }

  /** A traced call issued {@code row}'s GPU operation to its stream. */
  void issued(JoinedRow row) {
    if (issues == null) {
      issues = new RecordSorter(KEYS + 1, KEYS, tmpDir, RecordSorter.DEFAULT_CHUNK);
    }
    key(row);
    keyed[KEYS] = row.startNs();
    issues.add(keyed);
  }

  private void key(JoinedRow row) {
    keyed[0] = row.proc();
    keyed[1] = row.gpu().stream();
    keyed[2] = -row.gpu().startNs();
    keyed[3] = row.seq();
  }

  /** Orphans issued earlier than their GPU start because a call issued later work to their stream. */
  long moved() {
    return moved;
  }

  /** Adds every orphan, placed, to {@code joined}; no more may be added. */
  void placeInto(JoinedRows joined) {
    if (orphans == null) {
      close();
      return;
    }
    try (RecordSorter.Cursor o = orphans.sorted();
        RecordSorter.Cursor i = issues == null ? null : issues.sorted()) {
      boolean il = i != null && i.next();
      long proc = Long.MIN_VALUE;
      long stream = Long.MIN_VALUE;
      long earliest = Long.MAX_VALUE; // of the calls that issued later work to the stream
      JoinedRow row = new JoinedRow();
      while (o.next()) {
        if (o.get(0) != proc || o.get(1) != stream) {
          proc = o.get(0);
          stream = o.get(1);
          earliest = Long.MAX_VALUE;
        }
        // issues of work that starts later than this orphan's (-start smaller): descending starts
        while (il && (i.get(0) < proc || (i.get(0) == proc && (i.get(1) < stream
            || (i.get(1) == stream && i.get(2) < o.get(2)))))) {
          if (i.get(0) == proc && i.get(1) == stream) {
            earliest = Math.min(earliest, i.get(KEYS));
          }
          il = i.next();
        }
        row.read(o, KEYS);
        if (earliest != Long.MAX_VALUE && earliest - 1 < row.startNs()) {
          row.startNs(earliest - 1);
          moved++;
        }
        joined.add(row);
      }
    } finally {
      close();
    }
  }

  @Override
  public void close() {
    if (orphans != null) {
      orphans.close();
    }
    if (issues != null) {
      issues.close();
    }
  }
}
