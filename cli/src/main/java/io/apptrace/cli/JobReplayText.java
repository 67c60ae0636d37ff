package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.job.Job;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Units;
import io.apptrace.replay.JobReplay;
import io.apptrace.replay.JobReplayResult;
import io.apptrace.replay.JobOverlap;
import io.apptrace.replay.RankSegments;
import io.apptrace.replay.ReplayException;
import io.apptrace.replay.Replayer;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** {@code apptrace replay RANK-TRACES... --cluster C}: the job's projected timeline on the cluster, as text or JSON. */
final class JobReplayText {
  private final PrintWriter out;

  JobReplayText(PrintWriter out) {
    this.out = out;
  }

  int replay(Job job, ClusterOptions clusterOptions, Replayer.Options options, boolean json) throws IOException {
    JobReplayResult r;
    try {
      Cluster c = clusterOptions.resolve();
      r = clusterOptions.onNode() ? JobOverlap.replay(job, c, options) : new JobReplay(job, c).run();
    } catch (NodeFileException | ReplayException | TraceException e) {
      throw new UserException(e.getMessage());
    }
    if (json) {
      out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(new Summary(r)));
    } else {
      print(r);
    }
    out.flush();
    return ExitCodes.OK;
  }

  /** The JSON document: the result without the cluster's node model. */
  record Summary(String cluster, int nodes, int ranksPerNode, String node, String betweenCalls,
      double makespanSeconds, int iterations, boolean converged, double largestChangeSeconds,
      Double communicationSeconds, Double hiddenSeconds, List<Rank> ranks, JobReplayResult.Traffic intraNode,
      JobReplayResult.Traffic interNode, List<JobReplayResult.CollectiveTime> collectives,
      List<JobReplayResult.NcclTime> nccl, List<String> notes) {
    Summary(JobReplayResult r) {
      this(r.cluster().name(), r.cluster().nodes(), r.cluster().ranksPerNode(), r.cluster().node().name(),
          r.between().name().toLowerCase(Locale.ROOT), r.makespan(), r.coupling().iterations(),
          r.coupling().converged(), r.coupling().largestChangeSeconds(), r.communicationSeconds(),
          orNull(r.hiddenSeconds()), r.ranks().stream().map(Rank::new).toList(), r.intraNode(), r.interNode(),
          r.collectives(), r.nccl(), r.notes());
    }
  }

  /**
   * One rank in the JSON document; kernels, copies and hidden (of its communication, the time its GPU
   * work ran meanwhile) are null when ranks took their traced time; nccl is the time its NCCL
   * launches took on its streams (part of compute).
   */
  record Rank(int rank, int node, double end, double compute, double pointToPoint, double collective, double startup,
      Double kernels, Double copies, Double hidden, double nccl) {
    Rank(JobReplayResult.RankTime t) {
      this(t.rank(), t.node(), t.end(), t.compute(), t.pointToPoint(), t.collective(), t.startup(),
          orNull(t.kernels()), orNull(t.copies()), orNull(t.hidden()), t.nccl());
    }
  }

  private static Double orNull(double x) {
    return Double.isNaN(x) ? null : x;
  }

  private void print(JobReplayResult r) {
    Cluster c = r.cluster();
    out.printf(Locale.ROOT, "job of %d ranks on %s: %d nodes of %s, %d ranks per node, NICs %s, %s%n",
        r.ranks().size(), c.name(), c.nodes(), c.node().name(), c.ranksPerNode(),
        Units.bandwidth(c.network().nicBandwidth()), c.network().gpuDirectRdma() ? "GPUDirect RDMA" : "no GPUDirect RDMA");
    boolean node = r.between() == RankSegments.Source.NODE;
    out.println(node ? "between MPI calls: each rank's program replayed on " + c.node().name()
        : "between MPI calls: each rank's time as traced");
    out.printf(Locale.ROOT, "makespan %s%s%n", ms(r.makespan()), node ? " (" + coupling(r.coupling()) + ")" : "");
    if (node) {
      double comm = r.communicationSeconds();
      out.printf(Locale.ROOT, "communication %s, of it %s (%.1f%%) while the ranks' own GPU work ran%n", ms(comm),
          ms(r.hiddenSeconds()), comm > 0 ? 100 * r.hiddenSeconds() / comm : 0.0);
    }
    boolean nccl = !r.nccl().isEmpty();
    if (nccl) {
      out.printf(Locale.ROOT, "NCCL %s on the ranks' streams (waiting for their peers included), part of their"
          + " compute%n", ms(r.ranks().stream().mapToDouble(JobReplayResult.RankTime::nccl).sum()));
    }
    out.println();
    out.printf(Locale.ROOT, "%5s %5s %12s %12s %14s %12s %14s%s%s%n", "rank", "node", "end", "compute", "point-to-point",
        "collectives", "init+fin traced", node ? String.format(Locale.ROOT, " %12s %12s %12s", "kernels", "copies",
            "hidden") : "", nccl ? String.format(Locale.ROOT, " %12s", "nccl") : "");
    for (JobReplayResult.RankTime t : r.ranks()) {
      out.printf(Locale.ROOT, "%5d %5d %12s %12s %14s %12s %14s%s%s%n", t.rank(), t.node(), ms(t.end()),
          ms(t.compute()), ms(t.pointToPoint()), ms(t.collective()), ms(t.startup()), node ? String.format(Locale.ROOT,
              " %12s %12s %12s", ms(t.kernels()), ms(t.copies()), ms(t.hidden())) : "",
          nccl ? String.format(Locale.ROOT, " %12s", ms(t.nccl())) : "");
    }
    out.println();
    traffic("within nodes", r.intraNode());
    traffic("between nodes", r.interNode());
    if (!r.collectives().isEmpty()) {
      out.println();
      out.printf(Locale.ROOT, "%-26s %-26s %10s %12s %10s%n", "collective", "algorithm", "operations", "time",
          "span nodes");
      for (JobReplayResult.CollectiveTime t : r.collectives()) {
        out.printf(Locale.ROOT, "%-26s %-26s %,10d %12s %,10d%n", t.op().name(), t.algorithm(), t.operations(),
            ms(t.seconds()), t.interNode());
      }
    }
    if (nccl) {
      out.println();
      out.printf(Locale.ROOT, "%-26s %-20s %10s %12s %12s %10s %10s%n", "NCCL", "algorithm", "operations", "bytes",
          "time", "span nodes", "not priced");
      for (JobReplayResult.NcclTime t : r.nccl()) {
        out.printf(Locale.ROOT, "%-26s %-20s %,10d %12s %12s %,10d %,10d%n", t.op() == io.apptrace.proto.NcclOp.NCCL_SEND
            ? "ncclSend + ncclRecv" : io.apptrace.trace.ApiNames.nccl(t.op()), t.algorithm().isEmpty() ? "-"
            : t.algorithm(), t.operations(), Units.size(t.bytes()), ms(t.seconds()), t.interNode(), t.notPriced());
      }
    }
    out.println();
    r.notes().forEach(n -> out.println("note: " + n));
  }

  /** How the node replays and the network's came to agree, for the makespan's line. */
  private static String coupling(JobReplayResult.Coupling c) {
    String n = c.iterations() + (c.iterations() == 1 ? " iteration" : " iterations");
    return c.converged() ? "node and network replays agree after " + n
        : "NOT CONVERGED: after " + n + " an MPI call's return still moved by " + Units.time(c.largestChangeSeconds())
            + " (tolerance " + Units.time(c.toleranceSeconds()) + "); the makespan is the last iteration's";
  }

  private void traffic(String what, JobReplayResult.Traffic t) {
    out.printf(Locale.ROOT, "messages %s: %,d, %s, %s in transfer%s%s%n", what, t.messages(), Units.size(t.bytes()),
        ms(t.seconds()), t.nicWaitSeconds() > 0 ? ", " + ms(t.nicWaitSeconds()) + " waiting for a NIC" : "",
        t.paths().isEmpty() ? "" : " (" + String.join(", ", t.paths().entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue()).toList()) + ")");
  }

  private static String ms(double s) {
    return String.format(Locale.ROOT, "%.3f ms", s * 1e3);
  }
}
