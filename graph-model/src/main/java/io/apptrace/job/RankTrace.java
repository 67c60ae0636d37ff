package io.apptrace.job;

import io.apptrace.proto.Event;
import io.apptrace.proto.JobRank;
import io.apptrace.proto.MpiOp;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.TraceRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One rank of a job: its trace file, the rank (from the launcher's record in the header, else from
 * the trace's MPI_Init), its MPI calls in issue order (by entry time; a rank's threads
 * interleave) and its NCCL calls in the same order.
 *
 * @param file the trace
 * @param rank the rank in MPI_COMM_WORLD
 * @param worldSize the ranks of the job, as this trace says (0: not said)
 * @param host the host the rank ran on
 * @param localRank the rank among the job's ranks on its host (-1: not said)
 * @param calls its MPI calls
 * @param ncclCalls its NCCL calls
 */
public record RankTrace(Path file, int rank, int worldSize, String host, int localRank, List<MpiEvent> calls,
    List<NcclEvent> ncclCalls) {
  public RankTrace {
    calls = List.copyOf(calls);
    ncclCalls = List.copyOf(ncclCalls);
  }

  /** A rank that made no NCCL call. */
  public RankTrace(Path file, int rank, int worldSize, String host, int localRank, List<MpiEvent> calls) {
    this(file, rank, worldSize, host, localRank, calls, List.of());
  }

  /**
   * The MPI functions the rank called that the interposer passes through without recording them,
   * with how many times, as its MPI_Finalize said (MpiCall.unrecorded); empty when it called none,
   * or its trace has no MPI_Finalize (a rank cut short, or captured by an apptrace that did not
   * count them). In a replay their time is the rank's own work between the recorded calls.
   */
  public java.util.SortedMap<String, Long> unrecorded() {
    java.util.SortedMap<String, Long> out = new java.util.TreeMap<>();
    for (MpiEvent e : calls) {
      if (e.call().getOp() == MpiOp.MPI_FINALIZE) {
        e.call().getUnrecordedList().forEach(u -> out.merge(u.getFunction(), u.getCalls(), Long::sum));
      }
    }
    return out;
  }

  /** Reads the rank of a trace; a trace that names no rank is refused with its name. */
  public static RankTrace read(Path file) throws IOException, TraceException, JobException {
    List<MpiEvent> calls = new ArrayList<>();
    List<NcclEvent> nccl = new ArrayList<>();
    TraceHeader header;
    int initRank = -1;
    int initSize = 0;
    try (TraceReader r = TraceReader.open(file)) {
      header = r.header();
      while (r.hasNext()) {
        TraceRecord rec = r.next();
        Event e = rec.event();
        if (e.hasNccl()) {
          nccl.add(new NcclEvent(rec.pid(), rec.tid(), e.getEntryNs(), e.getDurationNs(), e.getResult(), e.getNccl()));
        }
        if (!e.hasMpi()) {
          continue;
        }
        if (e.getMpi().getOp() == MpiOp.MPI_INIT && e.getResult() == 0) {
          initRank = e.getMpi().getRank();
          initSize = e.getMpi().getCommSize();
        }
        calls.add(new MpiEvent(0, rec.pid(), rec.tid(), e.getEntryNs(), e.getDurationNs(), e.getResult(), e.getMpi()));
      }
    }
    calls.sort(Comparator.comparingLong(MpiEvent::entryNs));
    nccl.sort(Comparator.comparingLong(NcclEvent::entryNs));
    List<MpiEvent> ordered = new ArrayList<>(calls.size());
    for (MpiEvent c : calls) {
      ordered.add(new MpiEvent(ordered.size(), c.pid(), c.tid(), c.entryNs(), c.durationNs(), c.result(), c.call()));
    }
    Optional<JobRank> job = header.hasJob() ? Optional.of(header.getJob()) : Optional.empty();
    if (job.isPresent()) {
      JobRank j = job.get();
      return new RankTrace(file, j.getRank(), j.getWorldSize() > 0 ? j.getWorldSize() : initSize,
          j.getHost().isEmpty() ? header.getHost() : j.getHost(), j.getLocalRank(), ordered, nccl);
    }
    if (initRank >= 0) {
      return new RankTrace(file, initRank, initSize, header.getHost(), -1, ordered, nccl);
    }
    throw new JobException(file + ": not a rank of an MPI job (no rank from a job launcher, no MPI_Init)");
  }
}
