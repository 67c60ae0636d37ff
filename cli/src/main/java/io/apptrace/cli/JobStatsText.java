package io.apptrace.cli;

import io.apptrace.job.JobTraffic;
import io.apptrace.node.Units;
import io.apptrace.trace.ApiNames;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * {@code apptrace stats} of a job, as text: its ranks, the messages between each pair, its
 * collectives, its NCCL calls.
 */
final class JobStatsText {
  private final PrintWriter out;

  JobStatsText(PrintWriter out) {
    this.out = out;
  }

  void print(JobTraffic t) {
    out.printf(Locale.ROOT, "job: %d ranks%n%n", t.ranks().size());
    out.printf(Locale.ROOT, "%5s  %-12s %5s %9s %9s %12s %9s %12s %11s  %s%n", "rank", "host", "local", "MPI calls",
        "sent", "bytes", "received", "bytes", "collectives", "trace");
    for (JobTraffic.RankTraffic r : t.ranks()) {
      out.printf(Locale.ROOT, "%5d  %-12s %5s %,9d %,9d %12s %,9d %12s %,11d  %s%n", r.rank(), r.host(),
          r.localRank() < 0 ? "-" : Integer.toString(r.localRank()), r.mpiCalls(), r.sent(), Units.size(r.sentBytes()),
          r.received(), Units.size(r.receivedBytes()), r.collectives(), r.file());
    }
    if (t.ranks().stream().anyMatch(r -> !r.unrecorded().isEmpty())) {
      out.println();
      out.println("MPI functions apptrace passed through unrecorded (a replay counts their time as the rank's own work):");
      for (JobTraffic.RankTraffic r : t.ranks()) {
        if (!r.unrecorded().isEmpty()) {
          StringBuilder b = new StringBuilder();
          r.unrecorded().forEach((f, n) -> b.append(b.isEmpty() ? "" : ", ").append(f).append(' ')
              .append(String.format(Locale.ROOT, "%,d", n)));
          out.printf(Locale.ROOT, "%5d  %s%n", r.rank(), b);
        }
      }
    }
    out.println();
    if (t.pairs().isEmpty()) {
      out.println("messages: none");
    } else {
      out.println("messages, by source and destination rank:");
      out.printf(Locale.ROOT, "%8s %6s %9s %14s %12s%n", "source", "dest", "messages", "bytes", "device");
      for (JobTraffic.PairTraffic p : t.pairs()) {
        out.printf(Locale.ROOT, "%8d %6d %,9d %,14d %,12d%n", p.source(), p.dest(), p.messages(), p.bytes(),
            p.deviceMessages());
      }
    }
    if (!t.collectives().isEmpty()) {
      out.println();
      out.println("collectives:");
      out.printf(Locale.ROOT, "%-26s %10s %8s %14s%n", "operation", "operations", "calls", "bytes");
      for (JobTraffic.CollectiveTraffic c : t.collectives()) {
        out.printf(Locale.ROOT, "%-26s %,10d %,8d %,14d%n", c.op().name(), c.operations(), c.calls(), c.bytes());
      }
    }
    if (!t.nccl().isEmpty()) {
      out.println();
      out.println("NCCL calls (a replay with --cluster prices them):");
      out.printf(Locale.ROOT, "%-26s %10s %8s %14s %14s%n", "operation", "calls", "failed", "bytes", "communicators");
      for (JobTraffic.NcclTraffic n : t.nccl()) {
        out.printf(Locale.ROOT, "%-26s %,10d %,8d %,14d %,14d%n", ApiNames.nccl(n.op()), n.calls(), n.failed(),
            n.bytes(), n.communicators());
      }
    }
    if (t.unmatchedSends() + t.unmatchedReceives() + t.mismatchedCollectives() > 0) {
      out.println();
      out.printf(Locale.ROOT, "not matched: %,d sends, %,d receives, %,d collectives (a rank's trace is missing or"
          + " cut short)%n", t.unmatchedSends(), t.unmatchedReceives(), t.mismatchedCollectives());
    }
  }
}
