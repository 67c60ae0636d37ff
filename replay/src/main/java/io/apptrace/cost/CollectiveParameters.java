package io.apptrace.cost;

import io.apptrace.node.Cluster;
import io.apptrace.node.Network;
import io.apptrace.node.NodeFileException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Thakur and Gropp's alpha, beta and gamma for the members of one collective on a cluster: within
 * one node, a message between two of its GPUs (device buffers) or through shared memory; across
 * nodes, the slowest pair of nodes the members span (LogGP's L + 2o, and G), with beta multiplied
 * by the members that share a node's NIC at once (every algorithm but the rings, whose steps cross
 * each node boundary with one message).
 *
 * @param alpha seconds per message
 * @param beta seconds per byte
 * @param gamma seconds per byte reduced
 * @param sharing the members on the busiest node (they share its NIC)
 * @param interNode the members span nodes
 */
public record CollectiveParameters(double alpha, double beta, double gamma, int sharing, boolean interNode) {

  /** beta for an algorithm: shared by the members on a node unless the algorithm is a ring. */
  public double beta(String algorithm) {
    return interNode && !CollectiveCost.ring(algorithm) ? beta * sharing : beta;
  }

  public static CollectiveParameters of(MessageCost cost, Collection<Integer> ranks, boolean device)
      throws NodeFileException {
    Cluster c = cost.cluster();
    Network n = c.network();
    double gamma = 1 / n.reduceBandwidth();
    Map<Integer, Integer> perNode = new HashMap<>();
    int first = -1;
    int other = -1;
    for (int r : ranks) {
      int node = c.nodeOf(r);
      perNode.merge(node, 1, Integer::sum);
      if (first < 0) {
        first = r;
      } else if (other < 0 && r != first) {
        other = r;
      }
    }
    int sharing = perNode.values().stream().mapToInt(Integer::intValue).max().orElse(1);
    if (perNode.size() > 1) {
      double bw = Double.MAX_VALUE;
      double lat = 0;
      for (int a : perNode.keySet()) {
        for (int b : perNode.keySet()) {
          if (a != b) {
            double[] w = cost.wire(a, b);
            bw = Math.min(bw, w[0]);
            lat = Math.max(lat, w[1]);
          }
        }
      }
      return new CollectiveParameters(lat + 2 * n.overhead(), 1 / bw, gamma, sharing, true);
    }
    if (other < 0) {
      return new CollectiveParameters(0, 0, gamma, 1, false);
    }
    // within a node: a 1-byte and a 1 MiB message between two members give alpha and beta
    MessageCost.Price one = cost.of(first, other, 1, device, device);
    MessageCost.Price mib = cost.of(first, other, 1 << 20, device, device);
    double beta = (mib.seconds() - one.seconds()) / ((1 << 20) - 1);
    return new CollectiveParameters(one.seconds() - beta, beta, gamma, sharing, false);
  }
}
