package io.apptrace.job;

import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiOp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The collective operations of a job: the k-th collective call of every member of a communicator
 * is one operation (MPI requires the members to call a communicator's collectives, blocking and
 * nonblocking alike, in the same order; a nonblocking one matches only the same nonblocking one).
 *
 * @param collectives the operations, by communicator and order
 * @param mismatched operations whose members called different collectives (the traces are not of
 *     one run, or a rank's trace lost calls)
 */
public record CollectiveMatching(List<Collective> collectives, int mismatched) {
  public CollectiveMatching {
    collectives = List.copyOf(collectives);
  }

  /** The collective operations, blocking ({@code MPI_Barrier}...) and nonblocking ({@code MPI_Ibarrier}...). */
  public static boolean isCollective(MpiOp op) {
    return switch (op) {
      case MPI_BARRIER, MPI_BCAST, MPI_REDUCE, MPI_ALLREDUCE, MPI_ALLGATHER, MPI_ALLTOALL, MPI_GATHER, MPI_SCATTER,
          MPI_REDUCE_SCATTER_BLOCK -> true;
      default -> isNonblocking(op);
    };
  }

  /** The nonblocking collectives: the call starts the operation, a Wait or Test of its request completes it. */
  public static boolean isNonblocking(MpiOp op) {
    return switch (op) {
      case MPI_IBARRIER, MPI_IBCAST, MPI_IREDUCE, MPI_IALLREDUCE, MPI_IALLGATHER, MPI_IALLTOALL -> true;
      default -> false;
    };
  }

  /**
   * The blocking collective a nonblocking one does the work of ({@code MPI_Iallreduce}: {@code
   * MPI_Allreduce}): its buffers, its algorithm and its price; any other operation itself.
   */
  public static MpiOp blocking(MpiOp op) {
    return switch (op) {
      case MPI_IBARRIER -> MpiOp.MPI_BARRIER;
      case MPI_IBCAST -> MpiOp.MPI_BCAST;
      case MPI_IREDUCE -> MpiOp.MPI_REDUCE;
      case MPI_IALLREDUCE -> MpiOp.MPI_ALLREDUCE;
      case MPI_IALLGATHER -> MpiOp.MPI_ALLGATHER;
      case MPI_IALLTOALL -> MpiOp.MPI_ALLTOALL;
      default -> op;
    };
  }

  private record Key(long comm, int sequence) {}

  private static final class Building {
    MpiOp op;
    int commSize;
    int root;
    long bytes;
    boolean mismatch;
    final Map<Integer, Integer> calls = new HashMap<>();
  }

  public static CollectiveMatching of(Job job) {
    Map<Key, Building> ops = new LinkedHashMap<>();
    for (RankTrace t : job.ranks()) {
      Map<Long, Integer> next = new HashMap<>();
      for (MpiEvent e : t.calls()) {
        MpiCall c = e.call();
        if (e.result() != 0 || !isCollective(c.getOp())) {
          continue;
        }
        int seq = next.merge(c.getComm(), 1, Integer::sum) - 1;
        Building b = ops.computeIfAbsent(new Key(c.getComm(), seq), k -> new Building());
        if (b.op == null) {
          b.op = c.getOp();
          b.commSize = c.getCommSize();
          b.root = c.getPeer();
        } else if (b.op != c.getOp()) {
          b.mismatch = true;
        }
        b.bytes = Math.max(b.bytes, c.getBytes());
        b.calls.put(t.rank(), e.index());
      }
    }
    List<Collective> out = new ArrayList<>();
    int mismatched = 0;
    for (Map.Entry<Key, Building> e : ops.entrySet()) {
      Building b = e.getValue();
      if (b.mismatch) {
        mismatched++;
        continue;
      }
      out.add(new Collective(b.op, e.getKey().comm(), b.commSize, e.getKey().sequence(), b.root, b.bytes, b.calls));
    }
    out.sort(Comparator.comparingLong(Collective::comm).thenComparingInt(Collective::sequence));
    return new CollectiveMatching(out, mismatched);
  }
}
