package io.apptrace.job;

import io.apptrace.proto.MpiOp;
import java.util.Map;

/**
 * One collective operation of a communicator: the calls its ranks made, matched by their order on
 * the communicator (MPI requires every member to call the communicator's collectives in the same
 * order).
 *
 * @param op the operation, as its members called it ({@code MPI_Iallreduce} for a nonblocking one)
 * @param comm the communicator's id
 * @param commSize its size
 * @param sequence the operation's place among the communicator's collectives, from 0
 * @param root the root's world rank (rooted operations; else 0)
 * @param bytes the message size of the cost formulas: a rank's contribution (the largest of the
 *     ranks')
 * @param calls each member's call: world rank to the index of the call among the rank's MPI calls
 */
public record Collective(MpiOp op, long comm, int commSize, int sequence, int root, long bytes,
    Map<Integer, Integer> calls) {
  public Collective {
    calls = Map.copyOf(calls);
  }

  /** A nonblocking collective: its members' calls start it, the Wait or Test of each one's request completes it there. */
  public boolean nonblocking() {
    return CollectiveMatching.isNonblocking(op);
  }

  /** Every member's call was found in the traces. */
  public boolean complete() {
    return calls.size() == commSize;
  }
}
