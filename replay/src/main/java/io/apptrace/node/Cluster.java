package io.apptrace.node;

import java.util.List;

/**
 * A cluster model (docs/JOBS.md, "Cluster files"): identical nodes of one node model, the ranks of
 * a job placed on them, and the network between them.
 *
 * @param name the cluster's name
 * @param description one line
 * @param sources where its figures come from
 * @param node the node model of every node
 * @param nodes how many nodes
 * @param ranksPerNode ranks on each node; rank r runs on node r / ranksPerNode (block placement)
 * @param gpus the node GPU (index) each local rank runs on: local rank i on gpus[i % size]
 * @param network the network between the nodes
 */
public record Cluster(String name, String description, List<String> sources, Node node, int nodes, int ranksPerNode,
    List<Integer> gpus, Network network) {
  public Cluster {
    sources = List.copyOf(sources);
    gpus = List.copyOf(gpus);
  }

  /** The node world rank {@code rank} runs on. */
  public int nodeOf(int rank) {
    return rank / ranksPerNode;
  }

  /** The node GPU (index) world rank {@code rank} runs on. */
  public int gpuOf(int rank) {
    return gpus.get((rank % ranksPerNode) % gpus.size());
  }

  /** The ranks the cluster holds. */
  public int ranks() {
    return nodes * ranksPerNode;
  }

  /** The same cluster with another node count, NIC bandwidth or GPUDirect RDMA setting (what-if). */
  public Cluster with(int nodes, Network network) {
    return new Cluster(name, description, sources, node, nodes, ranksPerNode, gpus, network);
  }
}
