package io.apptrace.cost;

import io.apptrace.proto.MpiOp;

/**
 * What a collective costs, by the algorithms MPICH uses and Thakur and Gropp (2003) price, as
 * Choi, Bhatele and Richards do: alpha the latency of one message, beta the time per byte, gamma
 * the time per byte of a reduction, p the ranks, n the bytes of a rank's contribution (N = p n
 * the whole of a gathered vector). {@code lg} is the logarithm base 2 rounded up.
 *
 * <pre>
 * Barrier         dissemination                 lg p alpha
 * Bcast           n &lt; 12 KiB or p &lt; 8: binomial tree   lg p (alpha + n beta)
 *                 else scatter + ring allgather  (lg p + p - 1) alpha + 2 (p-1)/p n beta
 * Reduce          binomial tree                 lg p (alpha + n beta + n gamma)
 * Allreduce       n &lt;= 2 KiB: recursive doubling   lg p (alpha + n beta + n gamma)
 *                 else ring (reduce-scatter + allgather)
 *                                               2 (p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma
 * Allgather       N &lt; 512 KiB, p a power of 2: recursive doubling   lg p alpha + (p-1)/p N beta
 *                 else ring                     (p-1) alpha + (p-1)/p N beta
 * Alltoall        n &lt;= 256 B: Bruck           lg p alpha + n p / 2 lg p beta
 *                 else pairwise exchange        (p-1) (alpha + n beta)
 * Gather, Scatter binomial tree                 lg p alpha + (p-1)/p N beta
 * Reduce_scatter_block  recursive halving       lg p alpha + (p-1)/p N beta + (p-1)/p N gamma
 * </pre>
 */
public final class CollectiveCost {
  private CollectiveCost() {}

  /**
   * The algorithm and its time.
   *
   * @param algorithm its name
   * @param seconds its time
   */
  public record Price(String algorithm, double seconds) {}

  /** {@code ceil(log2 p)}. */
  public static int lg(int p) {
    return p <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(p - 1);
  }

  public static Price of(MpiOp op, int p, long n, double alpha, double beta, double gamma) {
    if (p <= 1) {
      return new Price("none (one rank)", 0);
    }
    int lg = lg(p);
    double f = (p - 1) / (double) p;
    double big = (double) p * n;
    return switch (op) {
      case MPI_BARRIER -> new Price("dissemination", lg * alpha);
      case MPI_BCAST -> n < 12 * 1024 || p < 8
          ? new Price("binomial tree", lg * (alpha + n * beta))
          : new Price("scatter + ring allgather", (lg + p - 1) * alpha + 2 * f * n * beta);
      case MPI_REDUCE -> new Price("binomial tree", lg * (alpha + n * beta + n * gamma));
      case MPI_ALLREDUCE -> n <= 2048
          ? new Price("recursive doubling", lg * (alpha + n * beta + n * gamma))
          : new Price("ring", 2 * (p - 1) * alpha + 2 * f * n * beta + f * n * gamma);
      case MPI_ALLGATHER -> big < 512 * 1024 && Integer.bitCount(p) == 1
          ? new Price("recursive doubling", lg * alpha + f * big * beta)
          : new Price("ring", (p - 1) * alpha + f * big * beta);
      case MPI_ALLTOALL -> n <= 256
          ? new Price("Bruck", lg * alpha + n * p / 2.0 * lg * beta)
          : new Price("pairwise exchange", (p - 1) * (alpha + n * beta));
      case MPI_GATHER, MPI_SCATTER -> new Price("binomial tree", lg * alpha + f * big * beta);
      case MPI_REDUCE_SCATTER_BLOCK -> new Price("recursive halving", lg * alpha + f * n * beta + f * n * gamma);
      default -> throw new IllegalArgumentException("not a collective: " + op);
    };
  }

  /** Ring algorithms send one message per node boundary at a time; the others all ranks of a node at once. */
  public static boolean ring(String algorithm) {
    return algorithm.startsWith("ring") || algorithm.contains("ring allgather");
  }
}
