package io.apptrace.imports;

/**
 * The layout of the event-records table: the stream a cudaEventRecord call recorded its event on,
 * keyed by (process key, the record call's correlation id, sequence number) like every table
 * {@link ImportRows} keeps. A {@link JoinedRow} holds the columns from {@link #STREAM} on, and
 * {@link JoinedRow#record()} views them through this class (a view has no key columns).
 */
final class EventRecordRow {
  static final int PROC = 0;
  static final int CORR = 1;
  static final int SEQ = 2;
  /** The first column after the key: the stream, -1 when unknown (-2 in a joined row: no record). */
  static final int STREAM = 3;
  private static final int EVENT = 4; // event handle, as in SyncRow's event
  private static final int DEVICE = 5;
  /** Longs a row takes. */
  static final int WIDTH = 6;
  /** Columns from {@link #STREAM} on: what a joined row holds of an event record. */
  static final int PAYLOAD = WIDTH - STREAM;

  final long[] cells;
  private final int base;

  /** A row of its own. */
  EventRecordRow() {
    this(new long[WIDTH], 0);
  }

  /** A view of the columns of {@code cells} from {@code base} on. */
  EventRecordRow(long[] cells, int base) {
    this.cells = cells;
    this.base = base;
  }

  /** Fills this row (a row of its own). */
  EventRecordRow set(long proc, long corr, long seq, long stream, long event, long device) {
    cells[base + PROC] = proc;
    cells[base + CORR] = corr;
    cells[base + SEQ] = seq;
    cells[base + STREAM] = stream;
    cells[base + EVENT] = event;
    cells[base + DEVICE] = device;
    return this;
  }

  /** Copies the cursor's current record from {@link #STREAM} on to {@code into} at {@code at}. */
  static void copyPayload(RecordSorter.Cursor c, long[] into, int at) {
    for (int i = STREAM; i < WIDTH; i++) {
      into[at + i - STREAM] = c.get(i);
    }
  }

  /** The stream recorded on: -1 when the source does not say, -2 in a joined row without a record. */
  long stream() {
    return cells[base + STREAM];
  }

  /** The event's handle (nonzero); 0 when not given. */
  long event() {
    return cells[base + EVENT];
  }

  long device() {
    return cells[base + DEVICE];
  }
}
