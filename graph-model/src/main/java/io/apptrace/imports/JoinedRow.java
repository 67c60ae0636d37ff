package io.apptrace.imports;

/**
 * The layout of a joined row: what one event of a host thread becomes once {@link CorrelationJoin}
 * has joined the tables by correlation id. A call, with the GPU operation it issued, the
 * synchronization record that says what it waited for, and the stream its event record recorded
 * on; GPU work whose call the trace lacks, on a synthetic thread ({@link OrphanPlacer}); or an
 * NVTX annotation of the thread. Rows sort by (pid, tid, start, sequence, sub-row): each thread's
 * events in time order.
 */
final class JoinedRow {
  private static final int PID = 0;
  private static final int TID = 1;
  private static final int START = 2;
  private static final int SEQ = 3;
  private static final int SUB = 4;
  /** The sort key: pid, tid, start, sequence, sub-row. */
  static final int KEYS = 5;
  private static final int ROLE = 5; // CALL, ORPHAN, EXTRA or ANNOTATION
  private static final int DUR = 6;
  private static final int NAME = 7;
  private static final int RESULT = 8;
  private static final int CORR = 9;
  private static final int PROC = 10;
  /** The GPU operation's columns from GpuOpRow.KIND on; kind 0 = none. */
  private static final int G = 11;
  /** The synchronization's columns from SyncRow.TYPE on; type 0 = none. */
  private static final int S = G + GpuOpRow.PAYLOAD;
  /** The event record's columns from EventRecordRow.STREAM on; stream -2 = none. */
  private static final int R = S + SyncRow.PAYLOAD;
  /** Longs a row takes. */
  static final int WIDTH = R + EventRecordRow.PAYLOAD;
  /**
   * An annotation's columns from AnnotationRow.KIND on, where a GPU operation's would be, past its
   * kind column (which stays 0: an annotation is no GPU work). Rows stay as narrow as they were.
   */
  private static final int A = G + 1;

  static {
    if (AnnotationRow.PAYLOAD > GpuOpRow.PAYLOAD - 1) {
      throw new AssertionError("an annotation's columns do not fit in a GPU operation's");
    }
  }

  /** A traced call, with the first GPU operation it issued, if any. */
  static final int CALL = 0;
  /** GPU work whose launching call the trace lacks. */
  static final int ORPHAN = 1;
  /** A call's second or later GPU operation (a graph launch), carried by a call of its own. */
  static final int EXTRA = 2;
  /** An NVTX range start or end, or mark, the thread made: no call, it lasts no time. */
  static final int ANNOTATION = 3;

  final long[] cells = new long[WIDTH];
  private final GpuOpRow gpu = new GpuOpRow(cells, G - GpuOpRow.KIND);
  private final SyncRow sync = new SyncRow(cells, S - SyncRow.TYPE);
  private final EventRecordRow record = new EventRecordRow(cells, R - EventRecordRow.STREAM);
  private final AnnotationRow annotation = new AnnotationRow(cells, A - AnnotationRow.KIND);

  /** This row set to the cursor's current record (from {@code at} on in it). */
  JoinedRow read(RecordSorter.Cursor c, int at) {
    for (int i = 0; i < WIDTH; i++) {
      cells[i] = c.get(at + i);
    }
    return this;
  }

  /** The call's columns: pid, thread, times, name and so on; an EXTRA row lasts no time. */
  JoinedRow fromCall(CallRow call, int role, int sub) {
    cells[PID] = call.pid();
    cells[TID] = call.tid();
    cells[START] = call.startNs();
    cells[SEQ] = call.seq();
    cells[SUB] = sub;
    cells[ROLE] = role;
    cells[DUR] = role == EXTRA ? 0 : call.durationNs();
    cells[NAME] = call.nameId();
    cells[RESULT] = call.result();
    cells[CORR] = call.corr();
    cells[PROC] = call.proc();
    return this;
  }

  /** The columns of GPU work with no traced call: an ORPHAN row that lasts no time and returns 0. */
  JoinedRow forOrphan(long pid, long tid, long startNs, long seq, long nameId, long corr, long proc) {
    cells[PID] = pid;
    cells[TID] = tid;
    cells[START] = startNs;
    cells[SEQ] = seq;
    cells[SUB] = 0;
    cells[ROLE] = ORPHAN;
    cells[DUR] = 0;
    cells[NAME] = nameId;
    cells[RESULT] = 0;
    cells[CORR] = corr;
    cells[PROC] = proc;
    return this;
  }

  /** The columns of an annotation: an ANNOTATION row with no GPU work, synchronization or event record. */
  JoinedRow forAnnotation(AnnotationRow a) {
    clearGpuSyncAndRecord();
    cells[PID] = a.pid();
    cells[TID] = a.tid();
    cells[START] = a.ns();
    cells[SEQ] = a.seq();
    cells[SUB] = 0;
    cells[ROLE] = ANNOTATION;
    cells[DUR] = 0;
    cells[NAME] = a.messageId();
    cells[RESULT] = 0;
    cells[CORR] = 0;
    cells[PROC] = 0;
    a.copyPayloadTo(cells, A);
    return this;
  }

  /** The GPU operation's columns copied in. */
  void gpuFrom(GpuOpRow op) {
    op.copyPayloadTo(cells, G);
  }

  /** The synchronization's columns copied in from a cursor of the synchronizations table. */
  void syncFrom(RecordSorter.Cursor c) {
    SyncRow.copyPayload(c, cells, S);
  }

  /** The event record's columns copied in from a cursor of the event-records table. */
  void recordFrom(RecordSorter.Cursor c) {
    EventRecordRow.copyPayload(c, cells, R);
  }

  /** No GPU operation. */
  void clearGpu() {
    java.util.Arrays.fill(cells, G, S, 0);
  }

  /** No synchronization and no event record. */
  void clearSyncAndRecord() {
    java.util.Arrays.fill(cells, S, WIDTH, 0);
    cells[R] = -2;
  }

  /** No GPU operation, synchronization or event record. */
  void clearGpuSyncAndRecord() {
    java.util.Arrays.fill(cells, G, WIDTH, 0);
    cells[R] = -2;
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

  void startNs(long ns) {
    cells[START] = ns;
  }

  /** The sequence number of the source record the row comes from (the call's, or the GPU work's). */
  long seq() {
    return cells[SEQ];
  }

  /** CALL, ORPHAN, EXTRA or ANNOTATION. */
  int role() {
    return (int) cells[ROLE];
  }

  long durationNs() {
    return cells[DUR];
  }

  void durationNs(long ns) {
    cells[DUR] = ns;
  }

  /** The function's name, an id of the assembler's {@link Strings}. */
  long nameId() {
    return cells[NAME];
  }

  long result() {
    return cells[RESULT];
  }

  /** The correlation id; 0 when the call had none. */
  long corr() {
    return cells[CORR];
  }

  /** The process key of the source (the pid, or a key the importer chose). */
  long proc() {
    return cells[PROC];
  }

  boolean hasGpu() {
    return cells[G] != 0;
  }

  boolean hasSync() {
    return cells[S] != 0;
  }

  /** The GPU operation (columns from its kind on); kind 0 when none. */
  GpuOpRow gpu() {
    return gpu;
  }

  /** The synchronization record (columns from its type on); type 0 when none. */
  SyncRow sync() {
    return sync;
  }

  /** The event record (columns from its stream on); stream -2 when none. */
  EventRecordRow record() {
    return record;
  }

  /** An ANNOTATION row's annotation (columns from its kind on). */
  AnnotationRow annotation() {
    return annotation;
  }
}
