package io.apptrace.cli;

import io.apptrace.graph.OpKind;
import io.apptrace.jobgraph.JobDvdgSummary;
import io.apptrace.jobgraph.NcclOperation;
import io.apptrace.jobgraph.NcclSummary;
import io.apptrace.node.Units;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.stream.Collectors;

/** The text form of {@code apptrace graph} of a job's traces: the job's graph, then each rank's. */
final class JobGraphSummaryText {
  private final PrintWriter out;

  JobGraphSummaryText(PrintWriter out) {
    this.out = out;
  }

  void print(JobDvdgSummary s) {
    NcclSummary nccl = s.nccl();
    long ncclMessages = op(s, NcclOperation.KINDS.get(0));
    long ncclOperations = NcclOperation.KINDS.stream().mapToLong(k -> op(s, k)).sum();
    out.printf(Locale.ROOT, "job: %d of %d ranks, %s, %s (%s, %s, %s, %s, %s%s), %s%n", s.ranks().size(),
        s.worldSize(), count(s.values(), "value", "values"),
        count(s.operations().values().stream().mapToLong(Long::longValue).sum(), "operation", "operations"),
        count(op(s, "copy"), "copy", "copies"), count(op(s, "memset"), "memset", "memsets"),
        count(op(s, "kernel"), "kernel", "kernels"), count(op(s, "mpi_message"), "MPI message", "MPI messages"),
        count(op(s, "mpi_collective"), "MPI collective", "MPI collectives"), ncclOperations == 0 ? ""
            : ", " + count(ncclMessages, "NCCL message", "NCCL messages") + ", "
                + count(ncclOperations - ncclMessages, "NCCL collective", "NCCL collectives"),
        count(s.edges(), "edge", "edges"));
    if (!s.missingRanks().isEmpty()) {
      out.printf(Locale.ROOT, "ranks without a trace: %s%n", s.missingRanks().stream().map(String::valueOf)
          .collect(Collectors.joining(", ")));
    }
    out.printf(Locale.ROOT, "messages: %,d matched (%s), each a transfer from the sender's buffer's value to a new"
        + " version of the receiver's%n", s.messages(), Units.size(s.messageBytes()));
    if (!s.collectives().isEmpty()) {
      out.printf(Locale.ROOT, "collectives: %s (each reads every member's send buffer, writes every member's receive"
          + " buffer)%n", s.collectives().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
              .collect(Collectors.joining(", ")));
    }
    if (s.incompleteCollectives() > 0) {
      out.printf(Locale.ROOT, "  %,d with members whose traces were not given%n", s.incompleteCollectives());
    }
    if (s.mismatchedCollectives() > 0) {
      out.printf(Locale.ROOT, "  %,d left out: their members called different operations%n",
          s.mismatchedCollectives());
    }
    if (!s.unmatched().isEmpty()) {
      out.println("not matched (in the graph with one end only):");
      for (JobDvdgSummary.Unmatched u : s.unmatched()) {
        out.printf(Locale.ROOT, "  rank %d %s rank %s: %,d %s (%s): %s%n", u.rank(), u.send() ? "->" : "<-",
            u.peer() < 0 ? "any" : Integer.toString(u.peer()), u.count(), u.send() ? plural(u.count(), "send")
                : plural(u.count(), "receive"), Units.size(u.bytes()), u.reason());
      }
    }
    if (s.unrecordedBuffers() > 0) {
      out.printf(Locale.ROOT, "%,d MPI buffers without an address (traces captured before apptrace recorded them):"
          + " their operations join fewer values%n", s.unrecordedBuffers());
    }
    if (ncclOperations > 0 || nccl.mismatchedCollectives() > 0) {
      printNccl(nccl);
    }
    out.println();
    out.printf(Locale.ROOT, "%5s %9s %7s %7s %7s %6s %10s %6s %10s %6s %7s  %s%n", "rank", "values", "copies",
        "memsets", "kernels", "sent", "bytes", "recv", "bytes", "coll", "races", "trace");
    for (JobDvdgSummary.RankSummary r : s.ranks()) {
      out.printf(Locale.ROOT, "%5d %,9d %,7d %,7d %,7d %,6d %10s %,6d %10s %,6d %7s  %s%n", r.rank(), r.values(),
          r.operations().getOrDefault(OpKind.COPY, 0), r.operations().getOrDefault(OpKind.MEMSET, 0),
          r.operations().getOrDefault(OpKind.KERNEL, 0), r.sent(), Units.size(r.sentBytes()), r.received(),
          Units.size(r.receivedBytes()), r.collectives(), r.certainRaces() + "/" + r.possibleRaces(), r.file());
    }
    if (ncclOperations > 0) {
      out.println();
      out.printf(Locale.ROOT, "%5s %10s %10s %10s %10s %6s%n", "rank", "nccl sent", "bytes", "nccl recv", "bytes",
          "coll");
      for (JobDvdgSummary.RankSummary r : s.ranks()) {
        NcclSummary.RankTraffic t = r.nccl();
        out.printf(Locale.ROOT, "%5d %,10d %10s %,10d %10s %,6d%n", r.rank(), t.sent(), Units.size(t.sentBytes()),
            t.received(), Units.size(t.receivedBytes()), t.collectives());
      }
    }
    for (JobDvdgSummary.RankSummary r : s.ranks()) {
      r.truncation().ifPresent(t -> out.printf(Locale.ROOT, "rank %d: the trace is cut short at byte %d (%s): its"
          + " graph holds what came before%n", r.rank(), t.byteOffset(), t.reason()));
      if (!r.warnings().isEmpty()) {
        out.printf(Locale.ROOT, "rank %d warnings: %s%n", r.rank(), r.warnings().entrySet().stream()
            .sorted(java.util.Map.Entry.comparingByKey()).map(e -> e.getKey() + ": " + e.getValue())
            .collect(Collectors.joining("; ")));
      }
    }
    out.println("races: certain/possible in each rank's graph, its MPI and NCCL calls' buffer accesses included (an"
        + " MPI send of a buffer a kernel not known to be finished may still write is one)");
  }

  /** The job's NCCL operations, as the MPI ones: each in stream order on the stream its calls named. */
  private void printNccl(NcclSummary n) {
    out.printf(Locale.ROOT, "NCCL messages: %,d matched (%s), each ncclSend -> ncclRecv a transfer from the"
        + " sender's device buffer to a new version of the receiver's, in stream order%n", n.messages(),
        Units.size(n.messageBytes()));
    if (!n.collectives().isEmpty()) {
      out.printf(Locale.ROOT, "NCCL collectives: %s (each reads its members' send buffers, writes their receive"
          + " buffers, in stream order)%n", n.collectives().entrySet().stream()
              .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")));
    }
    if (n.incompleteCollectives() > 0) {
      out.printf(Locale.ROOT, "  %,d with members whose traces were not given%n", n.incompleteCollectives());
    }
    if (n.mismatchedCollectives() > 0) {
      out.printf(Locale.ROOT, "  %,d left out: their members called different operations%n",
          n.mismatchedCollectives());
    }
    if (!n.unmatched().isEmpty()) {
      out.println("NCCL not matched (in the graph with one end only):");
      for (JobDvdgSummary.Unmatched u : n.unmatched()) {
        out.printf(Locale.ROOT, "  rank %d %s %s: %,d %s (%s): %s%n", u.rank(), u.send() ? "->" : "<-",
            u.peer() < 0 ? "a rank without a trace" : "rank " + u.peer(), u.count(),
            u.send() ? plural(u.count(), "ncclSend") : plural(u.count(), "ncclRecv"), Units.size(u.bytes()),
            u.reason());
      }
    }
    if (n.unrecordedBuffers() > 0) {
      out.printf(Locale.ROOT, "%,d NCCL buffers without an address (traces captured before apptrace recorded them):"
          + " their operations join fewer values%n", n.unrecordedBuffers());
    }
  }

  private static long op(JobDvdgSummary s, String kind) {
    return s.operations().getOrDefault(kind, 0L);
  }

  private static String plural(long n, String one) {
    return n == 1 ? one : one + "s";
  }

  private static String count(long n, String one, String many) {
    return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? one : many);
  }
}
