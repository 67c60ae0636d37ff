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
   * @param legs its copies on the nodes' links, in order (a GPU-to-GPU exchange within a node, the
   *     staging copies of a device buffer without GPUDirect RDMA); {@code seconds} counts each at
   *     its price alone on the node
   */
  public record Price(double seconds, double nicSeconds, boolean interNode, String path, java.util.List<Leg> legs) {
    public Price {
      legs = java.util.List.copyOf(legs);
    }

    /** Its seconds less its legs' prices: what the legs' times on the nodes are added to. */
    public double fixedSeconds() {
      double s = seconds;
      for (Leg l : legs) {
        s -= l.seconds();
      }
      return s;
    }
  }

  /**
   * A copy a message makes on a node's links.
   *
   * @param node the node it runs on
   * @param kind the copy's kind
   * @param bytes its bytes
   * @param srcGpu the GPU it runs on (the node's index)
   * @param dstGpu a peer copy's destination GPU (else {@code srcGpu})
   * @param seconds its price alone on the node
   * @param afterWire it runs on the receiver's node once the data crossed the network
   */
  public record Leg(int node, TransferKind kind, long bytes, int srcGpu, int dstGpu, double seconds,
      boolean afterWire) {}

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
      java.util.List<Leg> legs = new java.util.ArrayList<>();
      if (!n.gpuDirectRdma()) {
        if (srcDevice) {
          legs.add(leg(a, TransferKind.PINNED_D2H, bytes, cluster.gpuOf(src), cluster.gpuOf(src), false));
        }
        if (dstDevice) {
          legs.add(leg(b, TransferKind.PINNED_H2D, bytes, cluster.gpuOf(dst), cluster.gpuOf(dst), true));
        }
        for (Leg l : legs) {
          staging += l.seconds();
        }
        path = srcDevice || dstDevice ? "NIC, staged through host memory" : path;
      }
      return new Price(w[1] + o2 + nic + staging, bytes / w[0], true, path, legs);
    }
    if (srcDevice && dstDevice) {
      int ga = cluster.gpuOf(src);
      int gb = cluster.gpuOf(dst);
      Leg l = leg(a, ga == gb ? TransferKind.D2D : TransferKind.PEER, bytes, ga, gb, false);
      return new Price(o2 + l.seconds(), 0, false, ga == gb ? "GPU memory" : "GPU to GPU in the node",
          java.util.List.of(l));
    }
    if (srcDevice || dstDevice) {
      int g = cluster.gpuOf(srcDevice ? src : dst);
      Leg l = leg(a, srcDevice ? TransferKind.PINNED_D2H : TransferKind.PINNED_H2D, bytes, g, g, false);
      return new Price(o2 + l.seconds(), 0, false, "host and GPU in the node", java.util.List.of(l));
    }
    return new Price(o2 + n.hostLatency() + bytes / n.hostBandwidth(), 0, false, "shared memory",
        java.util.List.of());
  }

  private Leg leg(int node, TransferKind kind, long bytes, int srcGpu, int dstGpu, boolean afterWire)
      throws NodeFileException {
    return new Leg(node, kind, bytes, srcGpu, dstGpu, copy(kind, bytes, srcGpu, dstGpu), afterWire);
  }

  private double copy(TransferKind kind, long bytes, int srcGpu, int dstGpu) throws NodeFileException {
    return node.estimate(kind, bytes, new TransferModel.Endpoints(-1, srcGpu, dstGpu), TransferModel.Setting.DATASHEET)
        .seconds();
  }
}
