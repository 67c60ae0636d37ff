package io.apptrace.imports;

/**
 * The layout of the calls table: one API call (runtime or driver) as an importer hands it over,
 * keyed by (process key, correlation id, sequence number) like every table {@link ImportRows}
 * keeps. A row is a fixed-width array of longs, which {@link RecordSorter} sorts and spills; this
 * class names its columns.
 */
final class CallRow {
  static final int PROC = 0;
  static final int CORR = 1;
  static final int SEQ = 2;
  private static final int PID = 3;
  private static final int TID = 4;
  private static final int START = 5;
  private static final int DUR = 6;
  private static final int NAME = 7;
  private static final int RESULT = 8;
  /** Longs a row takes. */
  static final int WIDTH = 9;

  final long[] cells = new long[WIDTH];

  /** Fills this row; the duration is clamped at 0. */
  CallRow set(long proc, long corr, long seq, long pid, long tid, long startNs, long durNs, long nameId,
      long result) {
    cells[PROC] = proc;
    cells[CORR] = corr;
    cells[SEQ] = seq;
    cells[PID] = pid;
    cells[TID] = tid;
    cells[START] = startNs;
    cells[DUR] = Math.max(0, durNs);
    cells[NAME] = nameId;
    cells[RESULT] = result;
    return this;
  }

  /** A new row holding the cursor's current record. */
  static CallRow of(RecordSorter.Cursor c) {
    CallRow r = new CallRow();
    for (int i = 0; i < WIDTH; i++) {
      r.cells[i] = c.get(i);
    }
    return r;
  }

  /** The process key correlation ids are unique within. */
  long proc() {
    return cells[PROC];
  }

  /** The correlation id; 0 when unknown (the call then issues nothing). */
  long corr() {
    return cells[CORR];
  }

  /** The order in which the importer handed the call over. */
  long seq() {
    return cells[SEQ];
  }

  long pid() {
    return cells[PID];
  }

  long tid() {
    return cells[TID];
  }

  long startNs() {
    return cells[START];
  }

  long durationNs() {
    return cells[DUR];
  }

  /** The function's name, as an id of the assembler's {@link Strings}. */
  long nameId() {
    return cells[NAME];
  }

  /** The call's return value. */
  long result() {
    return cells[RESULT];
  }
}
