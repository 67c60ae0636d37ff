package io.apptrace.cost;

import io.apptrace.node.Node;
import io.apptrace.node.Topology;

/**
 * The effective bandwidth of a route for a transfer of n bytes: the least of its links' effective
 * bandwidths (Abdelhafez et al. 2019, eq. 2 per link, {@link LinkCost}), each crossed in the
 * direction the data goes, and the link that bounds it.
 */
final class RouteBandwidth {
  private RouteBandwidth() {}

  /**
   * The effective bandwidth of a route for data moving along it ({@code along}: from its first
   * vertex to its last) or back: the least of its links' (Abdelhafez et al. 2019, eq. 2 per link).
   */
  static double of(Topology.Route r, double n, LinkCost.Access access, boolean along) {
    double bw = Double.POSITIVE_INFINITY;
    for (int k = 0; k < r.links().size(); k++) {
      bw = Math.min(bw, LinkCost.effectiveBandwidth(r.links().get(k), n, access, r.fromA(k, along)));
    }
    return bw;
  }

  /** The route's slowest link for a transfer of n bytes (the link that bounds it). */
  static Node.Link bounding(Topology.Route r, double n, LinkCost.Access access, boolean along) {
    Node.Link worst = null;
    double least = Double.POSITIVE_INFINITY;
    for (int k = 0; k < r.links().size(); k++) {
      double bw = LinkCost.effectiveBandwidth(r.links().get(k), n, access, r.fromA(k, along));
      if (bw < least) {
        least = bw;
        worst = r.links().get(k);
      }
    }
    return worst;
  }
}
