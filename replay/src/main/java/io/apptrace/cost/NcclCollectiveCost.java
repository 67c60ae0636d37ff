package io.apptrace.cost;

import io.apptrace.proto.NcclOp;

/**
 * What an NCCL collective costs, by the algorithms NCCL runs (docs/JOBS.md, "NCCL"): rings for
 * every collective (Patarasuk and Yuan 2009: bandwidth-optimal, each rank sends and receives
 * (p-1)/p of the data per pass), and for all-reduce also the double binary tree (Sanders, Speck and
 * Träff 2009; NCCL 2.4 and later, Jeaugey 2019), whose latency grows with lg p instead of p. NCCL
 * picks per call the algorithm its own tuning model predicts fastest; here the cheaper of the two
 * prices. alpha is the latency of one step between two ranks, beta the time per byte over the
 * slowest link a step crosses, p the ranks, n the bytes of the call's buffer, N the whole of a
 * gathered or scattered vector (p times a rank's part). The reduction's own time on the GPU (its
 * memory bandwidth, hundreds of GB/s) is left out.
 *
 * <pre>
 * AllReduce      ring (reduce-scatter + all-gather)   2 (p-1) alpha + 2 (p-1)/p n beta
 *                double binary tree (reduce + broadcast, pipelined)   2 lg p alpha + 2 n beta
 * Broadcast      ring, pipelined                      (p-1) alpha + n beta
 * Reduce         ring, pipelined                      (p-1) alpha + n beta
 * AllGather      ring                                 (p-1) alpha + (p-1)/p N beta
 * ReduceScatter  ring                                 (p-1) alpha + (p-1)/p N beta
 * </pre>
 */
public final class NcclCollectiveCost {
  private NcclCollectiveCost() {}

  /**
   * The algorithm and time of a collective of {@code p} ranks.
   *
   * @param n the call's bytes as recorded ({@code NcclCall.bytes}: a rank's buffer; for
   *     ReduceScatter its send buffer, N)
   * @param total the gathered vector's bytes for AllGather ({@code NcclCall.total_bytes}, N)
   */
  public static CollectiveCost.Price of(NcclOp op, int p, long n, long total, double alpha, double beta) {
    if (p <= 1) {
      return new CollectiveCost.Price("none (one rank)", 0);
    }
    double f = (p - 1) / (double) p;
    return switch (op) {
      case NCCL_ALL_REDUCE -> {
        double ring = 2 * (p - 1) * alpha + 2 * f * n * beta;
        double tree = 2 * CollectiveCost.lg(p) * alpha + 2.0 * n * beta;
        yield tree < ring ? new CollectiveCost.Price("double binary tree", tree)
            : new CollectiveCost.Price("ring", ring);
      }
      case NCCL_BROADCAST, NCCL_REDUCE -> new CollectiveCost.Price("ring (pipelined)", (p - 1) * alpha + n * beta);
      case NCCL_ALL_GATHER -> new CollectiveCost.Price("ring", (p - 1) * alpha + f * total * beta);
      case NCCL_REDUCE_SCATTER -> new CollectiveCost.Price("ring", (p - 1) * alpha + f * n * beta);
      default -> throw new IllegalArgumentException("not an NCCL collective: " + op);
    };
  }
}
