package io.apptrace.imports;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tables an importer fills, in any order, as it reads its source: API calls
 * ({@link CallRow}), GPU operations ({@link GpuOpRow}), synchronization records ({@link SyncRow}),
 * event records ({@link EventRecordRow}) and NVTX annotations ({@link AnnotationRow}). The first
 * four are keyed by (process key, correlation id, sequence number), the annotations by the
 * sequence number alone, which numbers the rows of all the tables in the order they were handed
 * over; each table is a {@link RecordSorter}, so memory stays bounded whatever the source's size,
 * and {@link CorrelationJoin} reads the first four back sorted by that key.
 */
final class ImportRows implements Closeable {
  /** Every table is sorted by (process key, correlation id, sequence number). */
  private static final int KEYS = 3;

  private final RecordSorter calls;
  private final RecordSorter gpuOps;
  private final RecordSorter syncs;
  private final RecordSorter records;
  private final RecordSorter annotations;
  private final CallRow call = new CallRow();
  private final GpuOpRow gpuOp = new GpuOpRow();
  private final SyncRow sync = new SyncRow();
  private final EventRecordRow record = new EventRecordRow();
  private final AnnotationRow annotation = new AnnotationRow();
  private long seq;
  /** Rows handed over so far, published every 4,096 for a progress line on another thread. */
  private AtomicLong progress = new AtomicLong();

  /**
   * @param tmpDir where the tables spill
   * @param chunkRecords rows each table holds in memory at most
   */
  ImportRows(Path tmpDir, int chunkRecords) {
    calls = new RecordSorter(CallRow.WIDTH, KEYS, tmpDir, chunkRecords);
    gpuOps = new RecordSorter(GpuOpRow.WIDTH, KEYS, tmpDir, chunkRecords);
    syncs = new RecordSorter(SyncRow.WIDTH, KEYS, tmpDir, chunkRecords);
    records = new RecordSorter(EventRecordRow.WIDTH, KEYS, tmpDir, chunkRecords);
    // handed over in sequence order already: sorting them costs one comparison a row
    annotations = new RecordSorter(AnnotationRow.WIDTH, 1, tmpDir, chunkRecords);
  }

  /** Where the count of rows handed over is published (for a progress line). */
  void progressTo(AtomicLong sink) {
    progress = sink;
  }

  /** The next sequence number. */
  private long nextSeq() {
    if ((seq & 4095) == 0) {
      progress.lazySet(seq);
    }
    return seq++;
  }

  /** An API call; see {@link ImportAssembler#call}. */
  void call(long proc, long corr, long pid, long tid, long startNs, long durNs, long nameId, long result) {
    calls.add(call.set(proc, corr, nextSeq(), pid, tid, startNs, durNs, nameId, result).cells);
  }

  /** The reused GPU-operation row, every column at its "not given" value, to fill and pass to {@link #gpu}. */
  GpuOpRow gpuOp() {
    return gpuOp.clear();
  }

  /** A GPU operation; its sequence number is set here. */
  void gpu(GpuOpRow r) {
    r.seq(nextSeq());
    gpuOps.add(r.cells);
  }

  /** A synchronization record; see {@link ImportAssembler#sync}. */
  void sync(long proc, long corr, int type, long stream, long event, long waitStream, long device) {
    syncs.add(sync.set(proc, corr, nextSeq(), type, stream, event, waitStream, device).cells);
  }

  /** An event record; see {@link ImportAssembler#eventRecord}. */
  void eventRecord(long proc, long corr, long stream, long event, long device) {
    records.add(record.set(proc, corr, nextSeq(), stream, event, device).cells);
  }

  /** An NVTX annotation; see {@link ImportAssembler#annotation}. */
  void annotation(long pid, long tid, long ns, int kind, long messageId, long domainId, long rangeId, long category) {
    annotations.add(annotation.set(nextSeq(), pid, tid, ns, kind, messageId, domainId, rangeId, category).cells);
  }

  /** The calls, sorted; no more may be added. */
  RecordSorter.Cursor sortedCalls() {
    return calls.sorted();
  }

  RecordSorter.Cursor sortedGpuOps() {
    return gpuOps.sorted();
  }

  RecordSorter.Cursor sortedSyncs() {
    return syncs.sorted();
  }

  RecordSorter.Cursor sortedRecords() {
    return records.sorted();
  }

  /** The annotations in the order they were handed over; no more may be added. */
  RecordSorter.Cursor sortedAnnotations() {
    return annotations.sorted();
  }

  @Override
  public void close() {
    calls.close();
    gpuOps.close();
    syncs.close();
    records.close();
    annotations.close();
  }
}
