package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.apptrace.proto.GpuActivityKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The join of calls, GPU work, synchronization and event records by (process key, correlation
 * id), on a small drawn input: process key 1, pid 4242, thread 10.
 *
 * <pre>
 *  corr  calls (start +duration, ns)           GPU work (GPU start-end)   other records
 *  ----  ------------------------------------  -------------------------  ---------------------------
 *   0    cudaGetDevice          @90  +1                                    (0 joins nothing)
 *   5    cudaLaunchKernel       @100 +10       kernel 200-300
 *   6    cudaGraphLaunch        @120 +5        kernel 500-550,
 *                                              kernel 400-450  (handed over second)
 *   7    cudaStreamSynchronize  @150 +50,                                  sync: stream 3
 *        and the same call again @149 +52 (an older nsys export's
 *        second record: the outer one is kept)
 *   8                                                                      sync, no call
 *   9                                          memcpy 600-650 (no call)
 *  11    cudaEventRecord        @700 +2                                    event record: stream 3
 * </pre>
 *
 * Expected rows, in the order they sort (thread, then start):
 *
 * <pre>
 *   @90  cudaGetDevice           call, issues nothing
 *   @100 cudaLaunchKernel        call, kernel 200-300
 *   @120 cudaGraphLaunch         call, kernel 500-550 (the first handed over)
 *   @120 cudaGraphLaunch         extra row (no duration), kernel 400-450
 *   @149 cudaStreamSynchronize   call +52, sync stream 3
 *   @700 cudaEventRecord         call, recorded on stream 3
 * </pre>
 *
 * and the memcpy of correlation 9 goes to the orphan placer, not among them.
 */
class CorrelationJoinTest {
  @TempDir Path tmp;

  private static final long PROC = 1;
  private static final long PID = 4242;
  private static final long TID = 10;

  private final Strings strings = new Strings();

  private void call(ImportRows in, long corr, String fn, long start, long dur) {
    in.call(PROC, corr, PID, TID, start, dur, strings.id(fn), 0);
  }

  private void kernel(ImportRows in, long corr, long start, long end) {
    in.gpu(in.gpuOp().proc(PROC).corr(corr).kind(GpuActivityKind.GPU_KERNEL).startNs(start).endNs(end).stream(7)
        .nameId(strings.id("k")));
  }

  /** Every row of {@code rows}, described. */
  private List<String> describeAll(JoinedRows rows) {
    List<String> out = new ArrayList<>();
    try (RecordSorter.Cursor c = rows.sorted()) {
      JoinedRow r = new JoinedRow();
      while (c.next()) {
        out.add(describe(r.read(c, 0), strings));
      }
    }
    return out;
  }

  /** One line per joined row, as in the class comment. */
  private static String describe(JoinedRow r, Strings strings) {
    StringBuilder s = new StringBuilder("@").append(r.startNs()).append(' ').append(strings.get(r.nameId()));
    s.append(switch (r.role()) {
      case JoinedRow.CALL -> " call +" + r.durationNs();
      case JoinedRow.EXTRA -> " extra +" + r.durationNs();
      default -> " orphan";
    });
    if (r.hasGpu()) {
      s.append(", ").append(GpuActivityKind.forNumber(r.gpu().kindNumber())).append(' ').append(r.gpu().startNs())
          .append('-').append(r.gpu().endNs());
    }
    if (r.hasSync()) {
      s.append(", sync stream ").append(r.sync().stream());
    }
    if (r.record().stream() >= 0) {
      s.append(", recorded on stream ").append(r.record().stream());
    }
    return s.toString();
  }

  @Test
  void callsGetTheirGpuWorkSynchronizationAndEventRecordByCorrelationId() {
    ImportWarnings warnings = new ImportWarnings();
    List<String> rows;
    List<String> orphanRows;
    try (ImportRows in = new ImportRows(tmp, 2); // chunks of 2 rows: every table spills
        JoinedRows joined = new JoinedRows(tmp); JoinedRows placed = new JoinedRows(tmp);
        OrphanPlacer orphans = new OrphanPlacer(tmp, new SourceFacts(), strings)) {
      // handed over in no particular order, as importers read their tables
      kernel(in, 6, 500, 550);
      call(in, 7, "cudaStreamSynchronize", 150, 50);
      call(in, 5, "cudaLaunchKernel", 100, 10);
      kernel(in, 5, 200, 300);
      in.sync(PROC, 8, SyncRow.TYPE_STREAM, 3, 0, -1, 0);
      call(in, 0, "cudaGetDevice", 90, 1);
      call(in, 6, "cudaGraphLaunch", 120, 5);
      kernel(in, 6, 400, 450);
      in.gpu(in.gpuOp().proc(PROC).corr(9).kind(GpuActivityKind.GPU_MEMCPY).startNs(600).endNs(650).stream(7));
      in.sync(PROC, 7, SyncRow.TYPE_STREAM, 3, 0, -1, 0);
      call(in, 7, "cudaStreamSynchronize", 149, 52);
      call(in, 11, "cudaEventRecord", 700, 2);
      in.eventRecord(PROC, 11, 3, 12, 0);

      CorrelationJoin join = new CorrelationJoin(warnings, orphans);
      join.run(in, joined);
      rows = describeAll(joined);
      orphans.placeInto(placed);
      orphanRows = describeAll(placed);
      assertThat(join.duplicates()).as("the second record of the call of correlation 7").isEqualTo(1);
      assertThat(join.syncsJoined()).as("correlation 7's; 8's has no call").isEqualTo(1);
    }
    assertThat(rows).containsExactly(
        "@90 cudaGetDevice call +1",
        "@100 cudaLaunchKernel call +10, GPU_KERNEL 200-300",
        "@120 cudaGraphLaunch call +5, GPU_KERNEL 500-550",
        "@120 cudaGraphLaunch extra +0, GPU_KERNEL 400-450",
        "@149 cudaStreamSynchronize call +52, sync stream 3",
        "@700 cudaEventRecord call +2, recorded on stream 3");
    // after every call that issued work to stream 7 (nothing later on it): at its GPU start
    assertThat(orphanRows).containsExactly("@600 (launch not traced) orphan, GPU_MEMCPY 600-650");
    assertThat(warnings.counts()).containsExactly(
        entry("synchronization records with no call in the trace (ignored)", 1L));
  }
}
