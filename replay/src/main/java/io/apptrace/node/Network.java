package io.apptrace.node;

/**
 * The network between a cluster's nodes, as LogGP (Alexandrov et al. 1995) sees it, with the
 * topology class that says which messages share what.
 *
 * @param nicBandwidth each node's injection bandwidth, bytes/s (all its NICs): 1/G
 * @param latency L, seconds: the wire and switch latency of a message between two nodes
 * @param overhead o, seconds: the time a processor is busy sending or receiving one message
 * @param gap g, seconds: the least time between two messages a node injects
 * @param topology {@code fat-tree} or {@code dragonfly}
 * @param oversubscription fat tree: the leaf switches' oversubscription (1: full bisection); a
 *     message between nodes of different leaves gets the NIC bandwidth divided by it
 * @param nodesPerSwitch fat tree: nodes under one leaf switch
 * @param nodesPerGroup dragonfly: nodes in one group
 * @param globalLatency dragonfly: the extra latency of a message between groups, seconds
 * @param globalShare dragonfly: the share of the NIC bandwidth a message between groups gets (the
 *     global links' taper)
 * @param gpuDirectRdma the NICs read and write GPU memory (GPUDirect RDMA); without it a device
 *     buffer crossing the network is staged through host memory on both ends
 * @param hostLatency intra-node messages between host buffers (shared memory): latency, seconds
 * @param hostBandwidth and bandwidth, bytes/s
 * @param reduceBandwidth gamma's inverse: bytes/s a rank combines in a reduction
 */
public record Network(double nicBandwidth, double latency, double overhead, double gap, String topology,
    double oversubscription, int nodesPerSwitch, int nodesPerGroup, double globalLatency, double globalShare,
    boolean gpuDirectRdma, double hostLatency, double hostBandwidth, double reduceBandwidth) {

  /** A fat tree's class name. */
  public static final String FAT_TREE = "fat-tree";
  /** A dragonfly's class name. */
  public static final String DRAGONFLY = "dragonfly";

  /** The same network with GPUDirect RDMA on or off. */
  public Network withGpuDirectRdma(boolean on) {
    return new Network(nicBandwidth, latency, overhead, gap, topology, oversubscription, nodesPerSwitch,
        nodesPerGroup, globalLatency, globalShare, on, hostLatency, hostBandwidth, reduceBandwidth);
  }

  /** The same network with NICs {@code factor} times faster. */
  public Network withNicBandwidth(double bandwidth) {
    return new Network(bandwidth, latency, overhead, gap, topology, oversubscription, nodesPerSwitch,
        nodesPerGroup, globalLatency, globalShare, gpuDirectRdma, hostLatency, hostBandwidth, reduceBandwidth);
  }
}
