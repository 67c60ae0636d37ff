package io.apptrace.imports;

/**
 * The fields of one Kineto trace event that the importer uses, as {@link KinetoTokenizer} read
 * them. One object is reused for event after event (a trace holds millions): a field the event
 * lacks holds the value {@link #reset} gives it.
 */
final class KinetoEvent {
  String ph;
  String cat;
  String name;
  long pid;
  long tid;
  /** Whether pid and tid were numbers (strings, such as "Spans", get a small id instead). */
  boolean pidNumeric;
  boolean tidNumeric;
  /** Nanoseconds; Long.MIN_VALUE when absent. */
  long ts = Long.MIN_VALUE;
  /** Nanoseconds; -1 when absent. */
  long dur = -1;
  String id;
  String bp;
  // args
  long correlation = -1;
  long stream = Long.MIN_VALUE;
  long device = -1;
  long context;
  /** Kineto's "graph id" and "graph node id" of work a CUDA graph launch ran (0: none). */
  long graphId;
  long graphNodeId;
  long bytes = -1;
  final long[] grid = new long[3];
  final long[] block = new long[3];
  boolean hasGrid;
  boolean hasBlock;
  long sharedMemory;
  boolean hasSharedMemory;
  long registers;
  /** Kineto's "est. achieved occupancy %", "blocks per SM", "warps per SM"; NaN when absent. */
  float occupancy = Float.NaN;
  float blocksPerSm = Float.NaN;
  float warpsPerSm = Float.NaN;
  String syncKind;
  long waitOnStream = -1;
  long waitOnRecordCorr = -1;
  long waitOnEventId = -1;
  /** A metadata event's args.name: the process's or thread's name. */
  String metaName;

  /** Every field at its "absent" value, for the next event. */
  void reset() {
    ph = cat = name = id = bp = syncKind = metaName = null;
    pid = tid = 0;
    pidNumeric = tidNumeric = false;
    ts = Long.MIN_VALUE;
    dur = -1;
    correlation = -1;
    stream = Long.MIN_VALUE;
    device = -1;
    context = 0;
    graphId = 0;
    graphNodeId = 0;
    bytes = -1;
    hasGrid = hasBlock = hasSharedMemory = false;
    sharedMemory = 0;
    registers = 0;
    occupancy = blocksPerSm = warpsPerSm = Float.NaN;
    waitOnStream = waitOnRecordCorr = waitOnEventId = -1;
  }
}
