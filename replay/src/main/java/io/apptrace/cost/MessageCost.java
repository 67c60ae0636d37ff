package io.apptrace.cost;

import io.apptrace.node.Cluster;
import io.apptrace.node.Network;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.TransferKind;

/**
 * What one point-to-point message costs on a cluster (docs/JOBS.md, "Pricing"). Between nodes,
 * LogGP (Alexandrov et al. 1995): {@code L + 2o + (k - 1) G}, with G the inverse of the bandwidth
 * the topology gives the pair of nodes (a fat tree's oversubscription between leaves, a
 * dragonfly's global share and extra latency between groups); a device buffer without GPUDirect
 * RDMA is staged through host memory at both ends (the node model's device-to-host and
 * host-to-device copies). Within a node, the node model's links: a GPU to another GPU as a peer
 * copy (NVLink or PCIe, peer or staged, as the node's peer access says), host buffers through
 * shared memory; plus the two overheads.
 */
public final class MessageCost {
  /**
   * A message's price.
   *
   * @param seconds from the send's start to the data's arrival
   * @param nicSeconds how long it occupies its node's NIC (0 within a node): {@code k G}
   * @param interNode it crosses the network
   * @param path what carries it, for reports
   */
  public record Price(double seconds, double nicSeconds, boolean interNode, String path) {}

  private final Cluster cluster;
  private final TransferModel node;

  public MessageCost(Cluster cluster) throws NodeFileException {
    this.cluster = cluster;
    this.node = new TransferModel(cluster.node());
  }

  public Cluster cluster() {
    return cluster;
  }

  /** The bandwidth (bytes/s) and the latency (seconds, L) between the nodes of two ranks. */
  public double[] wire(int srcNode, int dstNode) {
    Network n = cluster.network();
    double bw = n.nicBandwidth();
    double lat = n.latency();
    if (n.topology().equals(Network.FAT_TREE)) {
      if (srcNode / n.nodesPerSwitch() != dstNode / n.nodesPerSwitch()) {
        bw /= n.oversubscription();
      }
    } else if (srcNode / n.nodesPerGroup() != dstNode / n.nodesPerGroup()) {
      bw *= n.globalShare();
      lat += n.globalLatency();
    }
    return new double[] {bw, lat};
  }

  /** A message of {@code bytes} from rank {@code src} to rank {@code dst}. */
  public Price of(int src, int dst, long bytes, boolean srcDevice, boolean dstDevice) throws NodeFileException {
    Network n = cluster.network();
    int a = cluster.nodeOf(src);
    int b = cluster.nodeOf(dst);
    double o2 = 2 * n.overhead();
    if (a != b) {
      double[] w = wire(a, b);
      double nic = Math.max(0, bytes - 1) / w[0];
      double staging = 0;
      String path = "NIC";
      if (!n.gpuDirectRdma()) {
        if (srcDevice) {
          staging += copy(TransferKind.PINNED_D2H, bytes, cluster.gpuOf(src), cluster.gpuOf(src));
        }
        if (dstDevice) {
          staging += copy(TransferKind.PINNED_H2D, bytes, cluster.gpuOf(dst), cluster.gpuOf(dst));
        }
        path = srcDevice || dstDevice ? "NIC, staged through host memory" : path;
      }
      return new Price(w[1] + o2 + nic + staging, bytes / w[0], true, path);
    }
    if (srcDevice && dstDevice) {
      int ga = cluster.gpuOf(src);
      int gb = cluster.gpuOf(dst);
      TransferKind kind = ga == gb ? TransferKind.D2D : TransferKind.PEER;
      return new Price(o2 + copy(kind, bytes, ga, gb), 0, false, ga == gb ? "GPU memory" : "GPU to GPU in the node");
    }
    if (srcDevice || dstDevice) {
      TransferKind kind = srcDevice ? TransferKind.PINNED_D2H : TransferKind.PINNED_H2D;
      int g = cluster.gpuOf(srcDevice ? src : dst);
      return new Price(o2 + copy(kind, bytes, g, g), 0, false, "host and GPU in the node");
    }
    return new Price(o2 + n.hostLatency() + bytes / n.hostBandwidth(), 0, false, "shared memory");
  }

  private double copy(TransferKind kind, long bytes, int srcGpu, int dstGpu) throws NodeFileException {
    return node.estimate(kind, bytes, new TransferModel.Endpoints(-1, srcGpu, dstGpu), TransferModel.Setting.DATASHEET)
        .seconds();
  }
}
