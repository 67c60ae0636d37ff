package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.GpuActivityKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where GPU work with no traced call is issued, on a drawn timeline of process key 1 (pid 4242):
 * at its GPU start, or just before the earliest call that issued later work to its stream,
 * whichever is earlier (a stream runs its work in the order it was issued).
 *
 * <pre>
 *  host calls (thread 10)      A@100              B@180
 *                                 \                   \
 *  stream 7 (GPU 0)   K0 50-60     K1 200-250   K2 300-350   K3 400-450   K4 500-550
 *                     (orphan)     (from A)     (orphan)     (from B)     (orphan)
 *  stream 9 (GPU 1)                          K5 260-270 (orphan)
 * </pre>
 *
 * <ul>
 *   <li>K0: A issued later work, but at 99 would be later than K0's GPU start: issued at 50.
 *   <li>K2: B issued K3, later on its stream: issued at 179, just before B (moved).
 *   <li>K4: no call issued later work to stream 7: issued at its GPU start, 500.
 *   <li>K5: stream 9 has no traced work; B's on stream 7 does not count: issued at 260.
 * </ul>
 *
 * Each goes on the synthetic thread of its device, as a call "(launch not traced)".
 */
class OrphanPlacerTest {
  @TempDir Path tmp;

  private static final long PROC = 1;
  private final Strings strings = new Strings();
  private long seq;

  private GpuOpRow kernel(long device, long stream, long start, long end) {
    return new GpuOpRow().clear().proc(PROC).seq(seq++).kind(GpuActivityKind.GPU_KERNEL).device(device)
        .stream(stream).startNs(start).endNs(end);
  }

  /** A traced call at {@code callStart} issued {@code op}. */
  private void issued(OrphanPlacer placer, long callStart, GpuOpRow op) {
    CallRow call = new CallRow().set(PROC, seq, seq++, 4242, 10, callStart, 5, strings.id("cudaLaunchKernel"), 0);
    JoinedRow row = new JoinedRow().fromCall(call, JoinedRow.CALL, 0);
    row.clearSyncAndRecord();
    row.gpuFrom(op);
    placer.issued(row);
  }

  private static void orphan(OrphanPlacer placer, GpuOpRow op) {
    JoinedRow row = new JoinedRow();
    row.clearSyncAndRecord();
    placer.add(PROC, op, row);
  }

  @Test
  void orphansAreIssuedInTheirStreamsOrder() {
    SourceFacts facts = new SourceFacts();
    facts.processPid(PROC, 4242);
    List<String> placed = new ArrayList<>();
    long moved;
    try (OrphanPlacer placer = new OrphanPlacer(tmp, facts, strings); JoinedRows joined = new JoinedRows(tmp)) {
      orphan(placer, kernel(0, 7, 500, 550)); // K4
      issued(placer, 180, kernel(0, 7, 400, 450)); // K3 from B
      orphan(placer, kernel(0, 7, 300, 350)); // K2
      orphan(placer, kernel(1, 9, 260, 270)); // K5
      issued(placer, 100, kernel(0, 7, 200, 250)); // K1 from A
      orphan(placer, kernel(0, 7, 50, 60)); // K0
      placer.placeInto(joined);
      moved = placer.moved();
      try (RecordSorter.Cursor c = joined.sorted()) {
        JoinedRow r = new JoinedRow();
        while (c.next()) {
          r.read(c, 0);
          placed.add("pid " + r.pid() + " tid 0x" + Long.toHexString(r.tid()) + " @" + r.startNs() + " "
              + strings.get(r.nameId()) + ": GPU " + r.gpu().startNs() + "-" + r.gpu().endNs() + ", correlation "
              + (r.corr() >= OrphanPlacer.ORPHAN_CORR_BASE ? "synthetic" : r.corr()));
        }
      }
    }
    assertThat(placed).containsExactly(
        "pid 4242 tid 0x7ff00000 @50 (launch not traced): GPU 50-60, correlation synthetic",
        "pid 4242 tid 0x7ff00000 @179 (launch not traced): GPU 300-350, correlation synthetic",
        "pid 4242 tid 0x7ff00000 @500 (launch not traced): GPU 500-550, correlation synthetic",
        "pid 4242 tid 0x7ff00001 @260 (launch not traced): GPU 260-270, correlation synthetic");
    assertThat(moved).as("K2 only").isEqualTo(1);
    assertThat(facts.threadName(4242, OrphanPlacer.ORPHAN_TID_BASE)).isEqualTo("GPU 0 work with no traced call");
    assertThat(facts.threadName(4242, OrphanPlacer.ORPHAN_TID_BASE + 1)).isEqualTo("GPU 1 work with no traced call");
  }

  @Test
  void withoutOrphansNothingIsAdded() {
    try (OrphanPlacer placer = new OrphanPlacer(tmp, new SourceFacts(), strings);
        JoinedRows joined = new JoinedRows(tmp)) {
      issued(placer, 100, kernel(0, 7, 200, 250));
      placer.placeInto(joined);
      try (RecordSorter.Cursor c = joined.sorted()) {
        assertThat(c.next()).isFalse();
      }
    }
  }
}
