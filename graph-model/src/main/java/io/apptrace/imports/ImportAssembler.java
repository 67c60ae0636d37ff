package io.apptrace.imports;

import io.apptrace.proto.AnnotationKind;
import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.Note;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every importer produces, assembled into an ordinary trace. An importer hands over API
 * calls, GPU operations, synchronization records, event records and NVTX ranges and marks as it
 * reads them, in any order ({@link ImportRows} keeps them, on disk where they outgrow memory), and
 * states what its source says besides ({@link SourceFacts}). {@link #write} then joins the rows by
 * (process, correlation id) ({@link CorrelationJoin}), places GPU work whose call the trace lacks
 * ({@link OrphanPlacer}), puts the annotations among their threads' rows, and writes each host
 * thread's calls in time order, each call carrying the operation it issued or the synchronization
 * it did ({@link TraceEmitter}).
 *
 * <p>Profilers record no addresses, so no Copy carries pointers; the graph gives each copy
 * endpoint its own value (docs/IMPORT.md).
 */
final class ImportAssembler implements Closeable {
  private final Path tmpDir;
  private final ImportRows rows;
  private final SourceFacts facts = new SourceFacts();
  private final ImportWarnings warnings = new ImportWarnings();
  /** Names (functions, kernels) by id, as the rows hold them. */
  final Strings strings = new Strings();
  /** The last range id {@link #range} gave. */
  private long lastRangeId;

  ImportAssembler(Path tmpDir, int chunkRecords) {
    this.tmpDir = tmpDir;
    rows = new ImportRows(tmpDir, chunkRecords);
  }

  /** Where the count of source records handed over is published (for a progress line). */
  void progressTo(AtomicLong sink) {
    rows.progressTo(sink);
  }

  // ---- the rows ----

  /**
   * An API call.
   *
   * @param proc the process key correlation ids are unique within
   * @param corr the correlation id; 0 when unknown (the call then issues nothing)
   */
  void call(long proc, long corr, long pid, long tid, long startNs, long durNs, String name, long result) {
    rows.call(proc, corr, pid, tid, startNs, durNs, strings.id(name == null ? "" : name), result);
  }

  /** A fresh GPU-operation row, every column at its "not given" value: fill it and pass it to {@link #gpu}. */
  GpuOpRow gpuOp() {
    return rows.gpuOp();
  }

  /** A GPU operation. */
  void gpu(GpuOpRow r) {
    rows.gpu(r);
  }

  /**
   * A synchronization record: what call {@code corr} waited for.
   *
   * @param type a {@code SyncRow.TYPE_*} number
   * @param stream the stream synchronized with, or the stream that waits; -1 when not given
   * @param event the event's handle (the importer's choice, nonzero); 0 when not given
   * @param waitStream the stream the event was recorded on; -1 when not given
   * @param device -1 when not given
   */
  void sync(long proc, long corr, int type, long stream, long event, long waitStream, long device) {
    rows.sync(proc, corr, type, stream, event, waitStream, device);
  }

  /** What a cudaEventRecord call (correlation {@code corr}) recorded on. */
  void eventRecord(long proc, long corr, long stream, long event, long device) {
    rows.eventRecord(proc, corr, stream, event, device);
  }

  /**
   * An NVTX annotation the thread made at {@code ns}, as a captured trace records it
   * (docs/TRACE-FORMAT.md, "NVTX ranges and marks"): a range's start or end, paired by
   * {@code rangeId} within the process, or a mark. Sources give ranges whole ({@link #range}) or
   * their starts and ends by id; pushes and pops, which pair by the order of their thread's
   * events, would depend on how equal times sort.
   *
   * @param domain the NVTX domain's name, "" for the default domain
   * @param category the NVTX category, 0 for none
   */
  void annotation(long pid, long tid, long ns, AnnotationKind kind, String message, String domain, long rangeId,
      long category) {
    rows.annotation(pid, tid, ns, kind.getNumber(), strings.id(message == null ? "" : message),
        strings.id(domain == null ? "" : domain), rangeId, category);
  }

  /**
   * A range the thread opened at {@code startNs} and that closed at {@code endNs} (Long.MIN_VALUE:
   * never; the trace's reader then closes it at the thread's last event): a start and an end
   * paired by a range id of the import's own, which pairs them whatever order equal times come in.
   */
  void range(long pid, long tid, long startNs, long endNs, String message, String domain, long category) {
    long id = ++lastRangeId;
    annotation(pid, tid, startNs, AnnotationKind.RANGE_START, message, domain, id, category);
    if (endNs != Long.MIN_VALUE) {
      annotation(pid, tid, Math.max(endNs, startNs), AnnotationKind.RANGE_END, "", domain, id, 0);
    }
  }

  // ---- what the source says besides ----

  /** How stream {@code stream} of process key {@code proc} orders. */
  void streamKind(long proc, long stream, StreamKind kind) {
    facts.streamKind(proc, stream, kind);
  }

  /** How streams not given a kind order. */
  void defaultStreamKind(StreamKind kind) {
    facts.defaultStreamKind(kind);
  }

  /** A thread's name; a file that gives none (SQL NULL) names it "". */
  void threadName(long pid, long tid, String name) {
    facts.threadName(pid, tid, name);
  }

  /** A process's name; a file that gives none (SQL NULL) names it "". */
  void processName(long pid, String name) {
    facts.processName(pid, name);
  }

  /** The pid of process key {@code proc} (when the key is not the pid itself). */
  void processPid(long proc, long pid) {
    facts.processPid(proc, pid);
  }

  void hostname(String h) {
    facts.hostname(h);
  }

  void job(io.apptrace.proto.JobRank j) {
    facts.job(j);
  }

  java.util.Optional<io.apptrace.proto.JobRank> job() {
    return facts.job();
  }

  String hostname() {
    return facts.hostname();
  }

  /**
   * A GPU the source describes ({@code d.getDevice()}: the device index its records use). Each
   * process's trace gets the ones its GPU work ran on (all of them for a process without GPU work).
   */
  void device(DeviceInfo d) {
    facts.device(d);
  }

  /** A remark for the trace's reader (GPU models, what the source said of itself). */
  void note(String text, String severity) {
    facts.note(text, severity);
  }

  /** The notes' texts. */
  List<String> notes() {
    return facts.notes().stream().map(Note::getText).toList();
  }

  /** Counts a problem of kind {@code what}. */
  void warn(String what) {
    warnings.warn(what);
  }

  void warn(String what, long n) {
    warnings.warn(what, n);
  }

  Map<String, Long> warnings() {
    return warnings.counts();
  }

  // ---- assembling ----

  /** Joins everything handed over and writes the trace's batches. */
  TraceEmitter.Emitted write(BatchPipe out) throws IOException {
    try (JoinedRows joined = new JoinedRows(tmpDir); OrphanPlacer orphans = new OrphanPlacer(tmpDir, facts, strings)) {
      CorrelationJoin join = new CorrelationJoin(warnings, orphans);
      join.run(rows, joined);
      orphans.placeInto(joined);
      annotations(joined);
      TraceEmitter.Emitted em = new TraceEmitter(facts, strings, warnings).emit(joined, out);
      em.syncRecords = join.syncsJoined();
      em.duplicateCalls = join.duplicates();
      warnings.warn("duplicate records of one call (same correlation id; older nsys exports write each runtime call"
          + " twice): merged", join.duplicates());
      warnings.warn("calls that begin before the previous call of their thread ends: moved to its end",
          em.overlapping);
      return em;
    }
  }

  /**
   * The annotations, among the rows of their threads; those of a process that made no call and ran
   * no GPU work are left out (a profiler records every process it saw; the trace holds the CUDA ones).
   */
  private void annotations(JoinedRows joined) {
    AnnotationRow a = new AnnotationRow();
    JoinedRow row = new JoinedRow();
    long left = 0;
    try (RecordSorter.Cursor c = rows.sortedAnnotations()) {
      while (c.next()) {
        a.read(c);
        if (joined.hasProcess(a.pid())) {
          joined.add(row.forAnnotation(a));
        } else if (a.kind() != AnnotationKind.RANGE_END_VALUE) {
          left++; // a range counts once, by its start
        }
      }
    }
    warnings.warn("NVTX ranges and marks of processes with no CUDA call or GPU work (left out)", left);
  }

  @Override
  public void close() {
    rows.close();
  }
}
