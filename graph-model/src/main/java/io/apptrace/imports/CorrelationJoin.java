package io.apptrace.imports;

import java.util.ArrayList;
import java.util.List;

/**
 * Joins the four tables an importer filled ({@link ImportRows}) by (process key, correlation id):
 * a merge join of the tables sorted by that key. Each call becomes a {@link JoinedRow} carrying
 * the first GPU operation it issued, the synchronization record of what it waited for and the
 * event record of where it recorded; a call's second and later GPU operations get rows of their
 * own ({@link JoinedRow#EXTRA}). GPU work with no call goes to the {@link OrphanPlacer}, and the
 * GPU work of calls is told to it so it can place the rest.
 *
 * <p>A correlation id of 0 joins nothing: such calls issue nothing, and such GPU work has no
 * call. Older nsys exports write each runtime call twice with one correlation id; the outer
 * record is kept (the earlier, or the longer of two that start together) and the other counted
 * as a duplicate.
 */
final class CorrelationJoin {
  private final ImportWarnings warnings;
  private final OrphanPlacer orphans;
  private long syncsJoined;
  private long duplicates;

  CorrelationJoin(ImportWarnings warnings, OrphanPlacer orphans) {
    this.warnings = warnings;
    this.orphans = orphans;
  }

  /** Synchronization records joined to the call they belong to. */
  long syncsJoined() {
    return syncsJoined;
  }

  /** Call records dropped as second records of a call (same correlation id). */
  long duplicates() {
    return duplicates;
  }

  private static boolean at(RecordSorter.Cursor c, boolean live, long proc, long corr) {
    return live && c.get(0) == proc && c.get(1) == corr;
  }

  /** Joins every row of {@code in} into {@code out} (orphans into the placer). */
  void run(ImportRows in, JoinedRows out) {
    try (RecordSorter.Cursor c = in.sortedCalls(); RecordSorter.Cursor g = in.sortedGpuOps();
        RecordSorter.Cursor s = in.sortedSyncs(); RecordSorter.Cursor r = in.sortedRecords()) {
      boolean cl = c.next();
      boolean gl = g.next();
      boolean sl = s.next();
      boolean rl = r.next();
      JoinedRow row = new JoinedRow();
      GpuOpRow op = new GpuOpRow();
      List<CallRow> callRows = new ArrayList<>();
      while (cl || gl || sl || rl) {
        // the smallest (process, correlation) among the heads
        long proc = Long.MAX_VALUE;
        long corr = Long.MAX_VALUE;
        for (RecordSorter.Cursor x : new RecordSorter.Cursor[] {cl ? c : null, gl ? g : null, sl ? s : null,
            rl ? r : null}) {
          if (x != null && (x.get(0) < proc || (x.get(0) == proc && x.get(1) < corr))) {
            proc = x.get(0);
            corr = x.get(1);
          }
        }
        callRows.clear();
        while (at(c, cl, proc, corr)) {
          CallRow call = CallRow.of(c);
          cl = c.next();
          if (!callRows.isEmpty() && corr != 0) {
            // one call recorded twice (older nsys exports write each runtime call under two
            // names, nested): keep the outer record
            duplicates++;
            CallRow kept = callRows.get(0);
            if (call.startNs() < kept.startNs()
                || (call.startNs() == kept.startNs() && call.durationNs() > kept.durationNs())) {
              callRows.set(0, call);
            }
            continue;
          }
          callRows.add(call);
          if (corr == 0) {
            break; // correlation 0 joins nothing: one call at a time
          }
        }
        row.clearSyncAndRecord();
        boolean haveSync = false;
        while (at(s, sl, proc, corr)) {
          if (corr != 0 && !haveSync) {
            syncsJoined++;
            row.syncFrom(s);
            haveSync = true;
          } else if (corr != 0) {
            warnings.warn("synchronization records beyond the first of one call (ignored)");
          }
          sl = s.next();
        }
        boolean haveRecord = false;
        while (at(r, rl, proc, corr)) {
          if (corr != 0 && !haveRecord) {
            row.recordFrom(r);
            haveRecord = true;
          }
          rl = r.next();
        }
        if (callRows.isEmpty()) {
          if (haveSync) {
            syncsJoined--;
            warnings.warn("synchronization records with no call in the trace (ignored)");
          }
          row.clearSyncAndRecord();
        }
        int ops = 0;
        boolean joinable = corr != 0 && !callRows.isEmpty();
        while (at(g, gl, proc, corr) && (joinable || callRows.isEmpty())) {
          op.read(g);
          if (callRows.isEmpty()) {
            orphans.add(proc, op, row);
          } else {
            row.fromCall(callRows.get(0), ops == 0 ? JoinedRow.CALL : JoinedRow.EXTRA, ops);
            row.gpuFrom(op);
            out.add(row);
            orphans.issued(row);
          }
          ops++;
          gl = g.next();
          if (callRows.isEmpty()) {
            row.clearGpuSyncAndRecord();
          }
        }
        // calls that issued nothing (and further calls with one correlation id)
        for (int k = ops > 0 ? 1 : 0; k < callRows.size(); k++) {
          row.fromCall(callRows.get(k), JoinedRow.CALL, 0);
          row.clearGpu();
          if (k > 0) {
            row.clearSyncAndRecord();
          }
          out.add(row);
        }
      }
    }
  }
}
