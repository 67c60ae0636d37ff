package io.apptrace.capture;

import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.Loss;
import io.apptrace.proto.Note;
import io.apptrace.proto.ProcessExit;
import io.apptrace.trace.TraceWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The records {@code apptrace run} writes after every batch: how each traced process ended
 * ({@code ProcessExit}), what was lost when writing the trace failed ({@code Loss}, per process,
 * with when), and notes for the user. On a full disk they must still fit: the last batches are
 * taken back out of the file until they do, and counted as lost too.
 */
final class TraceEnd {
  private final List<ConnectionEnd> ends;
  private final long mainPid;
  private final ExitStatus exit;
  private final List<String> notes;
  private Optional<WriteFailure> failure;
  /** Events of the batches taken back out of the file, by pid. */
  private final Map<Integer, Long> takenBack = new TreeMap<>();

  private TraceEnd(List<ConnectionEnd> ends, long mainPid, ExitStatus exit, List<String> notes,
      Optional<WriteFailure> failure) {
    this.ends = ends.stream().sorted(Comparator.comparingInt(ConnectionEnd::pid)).toList();
    this.mainPid = mainPid;
    this.exit = exit;
    this.notes = notes;
    this.failure = failure;
  }

  /**
   * Writes the closing records.
   *
   * @param exit how the program apptrace started ended ({@code mainPid}); its descendants' exit
   *     statuses are unknown (only their parents can wait for them)
   * @param notes notes so far; the connections' and the write failure's are added
   * @return every note, as written
   * @throws IOException if even with every removable batch taken back they do not fit
   */
  static List<String> write(TraceWriter writer, List<ConnectionEnd> ends, long mainPid, ExitStatus exit,
      List<String> notes, Optional<WriteFailure> failure) throws IOException {
    return new TraceEnd(ends, mainPid, exit, notes, failure).write(writer);
  }

  private List<String> write(TraceWriter writer) throws IOException {
    while (true) {
      List<String> all = allNotes();
      int written = 0;
      try {
        for (Batch b : records(all)) {
          writer.writeBatch(b);
          written++;
        }
        return all;
      } catch (IOException e) {
        if (failure.isEmpty()) {
          failure = Optional.of(WriteFailure.of(e));
        }
        for (int i = 0; i < written; i++) {
          writer.removeLastBatch();
        }
        byte[] taken = writer.removeLastBatch().orElseThrow(() -> e);
        BatchScan scan = BatchScan.of(taken, taken.length);
        takenBack.merge(scan.pid, (long) scan.events, Long::sum);
      }
    }
  }

  private long lost(ConnectionEnd e) {
    return e.lost() + takenBack.getOrDefault(e.pid(), 0L);
  }

  private List<String> allNotes() {
    List<String> all = new ArrayList<>(notes);
    if (ends.isEmpty()) {
      all.add("no traced process connected: the program may be statically linked or setuid,"
          + " or may clear LD_PRELOAD; the trace is empty");
    }
    for (ConnectionEnd e : ends) {
      e.problem().ifPresent(p -> all.add("process " + e.pid() + ": " + p));
      if (e.recovered() > 0) {
        all.add("process " + e.pid() + " ended without sending its last " + e.recovered()
            + " event(s) (killed?); they were recovered from its shared buffers");
      }
      e.processEnd().ifPresent(end -> {
        if (end.getCudaCalls() == 0) {
          all.add("process " + e.pid() + " made no CUDA runtime call");
        }
        if (end.getDropped() > 0) {
          all.add("process " + e.pid() + " lost " + end.getDropped() + " record(s)");
        }
      });
    }
    failure.ifPresent(f -> {
      long lost = ends.stream().mapToLong(this::lost).sum();
      all.add("writing the trace failed at " + f.at() + " (" + f.reason() + "): " + lost
          + " event(s) received after that are not in it; the program ran on unharmed, and the"
          + " trace holds what came before");
    });
    return all;
  }

  private List<Batch> records(List<String> all) {
    List<Batch> out = new ArrayList<>();
    long now = System.nanoTime();
    for (ConnectionEnd e : ends) {
      boolean main = e.pid() == mainPid;
      ProcessExit.Builder x = ProcessExit.newBuilder()
          .setPid(e.pid())
          .setExitCode(main ? exit.exitCode() : -1)
          .setSignal(main ? exit.signal() : e.processEnd().map(pe -> pe.getSignal()).orElse(0))
          .setClean(e.processEnd().isPresent());
      e.problem().ifPresent(x::setProblem);
      Batch.Builder b = Batch.newBuilder().setPid(e.pid())
          .addEvents(Event.newBuilder().setEntryNs(now).setProcessExit(x));
      long lost = lost(e);
      if (lost > 0 && failure.isPresent()) {
        WriteFailure f = failure.get();
        b.addEvents(Event.newBuilder().setEntryNs(now).setLoss(Loss.newBuilder()
            .setRecords(lost).setReason("writing the trace failed: " + f.reason()).setSinceNs(f.sinceNs())));
      }
      out.add(b.build());
    }
    if (!all.isEmpty()) {
      Batch.Builder b = Batch.newBuilder().setPid((int) mainPid);
      for (String n : all) {
        b.addEvents(Event.newBuilder().setEntryNs(now)
            .setNote(Note.newBuilder().setText(n).setSeverity("warning")));
      }
      out.add(b.build());
    }
    return out;
  }
}
