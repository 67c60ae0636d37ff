package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.job.Job;
import io.apptrace.node.Cluster;
import io.apptrace.node.ClusterLoader;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Units;
import io.apptrace.replay.JobReplay;
import io.apptrace.replay.JobReplayResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;

/** {@code apptrace replay RANK-TRACES... --cluster C}: the job's projected timeline on the cluster, as text or JSON. */
final class JobReplayText {
  private final PrintWriter out;

  JobReplayText(PrintWriter out) {
    this.out = out;
  }

  int replay(Job job, String clusterName, Integer nodes, String nicBandwidth, String rdma, boolean json)
      throws IOException {
    JobReplayResult r;
    try {
      Cluster c = ClusterLoader.resolve(clusterName);
      if (nodes != null) {
        if (nodes < 1) {
          throw new UserException("--nodes " + nodes + ": give 1 or more", ExitCodes.BAD_USAGE);
        }
        c = c.with(nodes, c.network());
      }
      if (nicBandwidth != null) {
        double bw;
        try {
          bw = Units.parse(nicBandwidth, Units.Kind.BANDWIDTH);
        } catch (IllegalArgumentException e) {
          throw new UserException("--nic-bandwidth " + nicBandwidth + ": " + e.getMessage(), ExitCodes.BAD_USAGE);
        }
        c = c.with(c.nodes(), c.network().withNicBandwidth(bw));
      }
      if (rdma != null) {
        if (!rdma.equals("on") && !rdma.equals("off")) {
          throw new UserException("--gpudirect-rdma " + rdma + ": on or off", ExitCodes.BAD_USAGE);
        }
        c = c.with(c.nodes(), c.network().withGpuDirectRdma(rdma.equals("on")));
      }
      r = new JobReplay(job, c).run();
    } catch (NodeFileException e) {
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
  record Summary(String cluster, int nodes, int ranksPerNode, double makespanSeconds,
      java.util.List<JobReplayResult.RankTime> ranks, JobReplayResult.Traffic intraNode,
      JobReplayResult.Traffic interNode, java.util.List<JobReplayResult.CollectiveTime> collectives) {
    Summary(JobReplayResult r) {
      this(r.cluster().name(), r.cluster().nodes(), r.cluster().ranksPerNode(), r.makespan(), r.ranks(),
          r.intraNode(), r.interNode(), r.collectives());
    }
  }

  private void print(JobReplayResult r) {
    Cluster c = r.cluster();
    out.printf(Locale.ROOT, "job of %d ranks on %s: %d nodes of %s, %d ranks per node, NICs %s, %s%n",
        r.ranks().size(), c.name(), c.nodes(), c.node().name(), c.ranksPerNode(),
        Units.bandwidth(c.network().nicBandwidth()), c.network().gpuDirectRdma() ? "GPUDirect RDMA" : "no GPUDirect RDMA");
    out.printf(Locale.ROOT, "makespan %s%n%n", ms(r.makespan()));
    out.printf(Locale.ROOT, "%5s %5s %12s %12s %14s %12s %14s%n", "rank", "node", "end", "compute", "point-to-point",
        "collectives", "init+finalize");
    for (JobReplayResult.RankTime t : r.ranks()) {
      out.printf(Locale.ROOT, "%5d %5d %12s %12s %14s %12s %14s%n", t.rank(), t.node(), ms(t.end()), ms(t.compute()),
          ms(t.pointToPoint()), ms(t.collective()), ms(t.startup()));
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
