package io.apptrace.imports;

/**
 * The layout of the annotations table: one NVTX range start or end, or mark, on a host thread (a
 * profiler's user annotation or NVTX record), keyed by its sequence number alone: annotations join
 * nothing, and go straight among their thread's rows. A {@link JoinedRow} of role
 * {@link JoinedRow#ANNOTATION} holds the columns from {@link #KIND} on, and
 * {@link JoinedRow#annotation()} views them through this class (a view has no key or thread
 * columns).
 */
final class AnnotationRow {
  static final int SEQ = 0;
  private static final int PID = 1;
  private static final int TID = 2;
  private static final int NS = 3;
  /** The first column a joined row holds: the AnnotationKind number. */
  static final int KIND = 4;
  private static final int MESSAGE = 5; // string id
  private static final int DOMAIN = 6; // string id; that of "" for the default domain
  private static final int RANGE_ID = 7;
  private static final int CATEGORY = 8;
  /** Longs a row takes. */
  static final int WIDTH = 9;
  /** Columns from {@link #KIND} on: what a joined row holds of an annotation. */
  static final int PAYLOAD = WIDTH - KIND;

  final long[] cells;
  private final int base;

  /** A row of its own. */
  AnnotationRow() {
    this(new long[WIDTH], 0);
  }

  /** A view of the columns of {@code cells} from {@code base} on. */
  AnnotationRow(long[] cells, int base) {
    this.cells = cells;
    this.base = base;
  }

  /** Fills this row (a row of its own). */
  AnnotationRow set(long seq, long pid, long tid, long ns, int kind, long messageId, long domainId, long rangeId,
      long category) {
    cells[base + SEQ] = seq;
    cells[base + PID] = pid;
    cells[base + TID] = tid;
    cells[base + NS] = ns;
    cells[base + KIND] = kind;
    cells[base + MESSAGE] = messageId;
    cells[base + DOMAIN] = domainId;
    cells[base + RANGE_ID] = rangeId;
    cells[base + CATEGORY] = category;
    return this;
  }

  /** This row set to the cursor's current record (a row of its own). */
  AnnotationRow read(RecordSorter.Cursor c) {
    for (int i = 0; i < WIDTH; i++) {
      cells[i] = c.get(i);
    }
    return this;
  }

  /** Copies this row's columns from {@link #KIND} on to {@code into} at {@code at}. */
  void copyPayloadTo(long[] into, int at) {
    System.arraycopy(cells, base + KIND, into, at, PAYLOAD);
  }

  long seq() {
    return cells[base + SEQ];
  }

  long pid() {
    return cells[base + PID];
  }

  long tid() {
    return cells[base + TID];
  }

  long ns() {
    return cells[base + NS];
  }

  /** The io.apptrace.proto.AnnotationKind number. */
  int kind() {
    return (int) cells[base + KIND];
  }

  /** The message, an id of the assembler's {@link Strings}. */
  long messageId() {
    return cells[base + MESSAGE];
  }

  /** The NVTX domain's name, an id of the assembler's {@link Strings}. */
  long domainId() {
    return cells[base + DOMAIN];
  }

  /** What pairs a range's start with its end. */
  long rangeId() {
    return cells[base + RANGE_ID];
  }

  /** The NVTX category (0: none). */
  long category() {
    return cells[base + CATEGORY];
  }
}
