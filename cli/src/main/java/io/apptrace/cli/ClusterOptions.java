package io.apptrace.cli;

import io.apptrace.node.Cluster;
import io.apptrace.node.ClusterLoader;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Units;
import picocli.CommandLine.Option;

/** {@code replay}'s options for a job on a cluster (docs/JOBS.md): the cluster, its what-ifs, and what ranks do between MPI calls. */
final class ClusterOptions {
  @Option(names = "--cluster", paramLabel = "CLUSTER", description = "Replay a job's ranks on a cluster: a bundled"
      + " cluster (summit-2racks, dgx-a100-superpod, perlmutter-gpu) or a cluster file (docs/JOBS.md).")
  String cluster;

  @Option(names = "--nodes", paramLabel = "N", description = "With --cluster: the cluster's node count (what-if).")
  Integer nodes;

  @Option(names = "--nic-bandwidth", paramLabel = "BW", description = "With --cluster: each node's NIC bandwidth"
      + " (\"50 GB/s\"; what-if).")
  String nicBandwidth;

  @Option(names = "--gpudirect-rdma", paramLabel = "on|off", description = "With --cluster: the NICs reach GPU"
      + " memory directly (on) or device buffers are staged through host memory (off).")
  String gpuDirectRdma;

  @Option(names = "--between-calls", paramLabel = "node|traced", description = "With --cluster: what each rank does"
      + " between its MPI calls: its program replayed on the cluster's node model (node, the default) or the time"
      + " its trace measured (traced).")
  String betweenCalls = "node";

  /** Whether a cluster was asked for. */
  boolean given() {
    return cluster != null;
  }

  /** Whether ranks' programs are replayed on the node between their MPI calls. */
  boolean onNode() {
    return switch (betweenCalls) {
      case "node" -> true;
      case "traced" -> false;
      default -> throw new UserException("--between-calls " + betweenCalls + ": node or traced", ExitCodes.BAD_USAGE);
    };
  }

  /** The cluster with the what-ifs applied. */
  Cluster resolve() throws NodeFileException {
    Cluster c = ClusterLoader.resolve(cluster);
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
    if (gpuDirectRdma != null) {
      if (!gpuDirectRdma.equals("on") && !gpuDirectRdma.equals("off")) {
        throw new UserException("--gpudirect-rdma " + gpuDirectRdma + ": on or off", ExitCodes.BAD_USAGE);
      }
      c = c.with(c.nodes(), c.network().withGpuDirectRdma(gpuDirectRdma.equals("on")));
    }
    return c;
  }
}
