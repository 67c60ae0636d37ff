package io.apptrace.cost;

import io.apptrace.node.Topology;

/**
 * One stretch of a transfer's way: a route of the node's topology, crossed from its first vertex
 * ({@code along}) or from its last, reading or writing at the far end. A transfer within one GPU
 * has one leg over a route of that GPU alone, with no link.
 */
public record TransferLeg(Topology.Route route, boolean along, LinkCost.Access access) {
  /** The route as the data travels it. */
  public Topology.Route travelled() {
    return along ? route : route.reversed();
  }
}
