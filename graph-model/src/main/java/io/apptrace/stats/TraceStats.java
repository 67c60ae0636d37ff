package io.apptrace.stats;

import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.Truncation;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The statistics of a whole trace.
 *
 * @param header the trace's header
 * @param totals every process together
 * @param processes each process, by pid
 * @param truncation where reading stopped early, if it did
 * @param notes remarks written into the trace (by the collector or an importer)
 */
public record TraceStats(
    TraceHeader header,
    Counts totals,
    List<ProcessStats> processes,
    Optional<Truncation> truncation,
    List<String> notes) {
  public TraceStats {
    processes = List.copyOf(processes);
    notes = List.copyOf(notes);
  }

  /** Records reported lost by interposers, summed over processes. */
  public long droppedRecords() {
    return processes.stream().mapToLong(ProcessStats::droppedRecords).sum();
  }

  /** Batches missing from the trace, summed over processes. */
  public long lostBatches() {
    return processes.stream().mapToLong(ProcessStats::lostBatches).sum();
  }

  /** Reads the rest of {@code reader} and computes its statistics. */
  public static TraceStats compute(TraceReader reader) throws IOException {
    Objects.requireNonNull(reader, "reader");
    StatsBuilder b = new StatsBuilder();
    while (reader.hasNext()) {
      b.add(reader.next());
    }
    return b.build(reader.header(), reader.truncation());
  }
}
