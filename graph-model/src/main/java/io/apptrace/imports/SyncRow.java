package io.apptrace.imports;

/**
 * The layout of the synchronizations table: what one synchronizing call waited for, as the source
 * recorded it apart from the call, keyed by (process key, correlation id, sequence number) like
 * every table {@link ImportRows} keeps. A {@link JoinedRow} holds the columns from {@link #TYPE}
 * on, and {@link JoinedRow#sync()} views them through this class (a view has no key columns).
 */
final class SyncRow {
  static final int PROC = 0;
  static final int CORR = 1;
  static final int SEQ = 2;
  /** The first column after the key. */
  static final int TYPE = 3; // a TYPE_* number; 0 = none
  private static final int STREAM = 4; // the stream synchronized with, or the waiting stream; -1
  private static final int EVENT = 5; // event handle (importer's choice, nonzero), 0 when unknown
  private static final int WAIT_STREAM = 6; // the stream the event was recorded on, -1 when unknown
  private static final int DEVICE = 7; // -1 when unknown
  /** Longs a row takes. */
  static final int WIDTH = 8;
  /** Columns from {@link #TYPE} on: what a joined row holds of a synchronization. */
  static final int PAYLOAD = WIDTH - TYPE;

  /** Waited for an event (CUPTI's numbering of synchronization types, which nsys and nvprof keep). */
  static final int TYPE_EVENT = 1;
  /** A stream waited on an event. */
  static final int TYPE_STREAM_WAIT = 2;
  static final int TYPE_STREAM = 3;
  static final int TYPE_CONTEXT = 4;
  /** A synchronization record of a kind the source does not name. */
  static final int TYPE_UNKNOWN = 5;

  final long[] cells;
  private final int base;

  /** A row of its own. */
  SyncRow() {
    this(new long[WIDTH], 0);
  }

  /** A view of the columns of {@code cells} from {@code base} on. */
  SyncRow(long[] cells, int base) {
    this.cells = cells;
    this.base = base;
  }

  /** Fills this row (a row of its own). */
  SyncRow set(long proc, long corr, long seq, int type, long stream, long event, long waitStream, long device) {
    cells[base + PROC] = proc;
    cells[base + CORR] = corr;
    cells[base + SEQ] = seq;
    cells[base + TYPE] = type;
    cells[base + STREAM] = stream;
    cells[base + EVENT] = event;
    cells[base + WAIT_STREAM] = waitStream;
    cells[base + DEVICE] = device;
    return this;
  }

  /** Copies the cursor's current record from {@link #TYPE} on to {@code into} at {@code at}. */
  static void copyPayload(RecordSorter.Cursor c, long[] into, int at) {
    for (int i = TYPE; i < WIDTH; i++) {
      into[at + i - TYPE] = c.get(i);
    }
  }

  /** A TYPE_* number; 0 in a joined row that has no synchronization record. */
  int type() {
    return (int) cells[base + TYPE];
  }

  /** The stream synchronized with, or the stream that waits; -1 when not given. */
  long stream() {
    return cells[base + STREAM];
  }

  /** The event waited for, by the importer's handle; 0 when not given. */
  long event() {
    return cells[base + EVENT];
  }

  /** The stream the event waited for was recorded on; -1 when not given. */
  long waitStream() {
    return cells[base + WAIT_STREAM];
  }

  /** -1 when not given. */
  long device() {
    return cells[base + DEVICE];
  }
}
