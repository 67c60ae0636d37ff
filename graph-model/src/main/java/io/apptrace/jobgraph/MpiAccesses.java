package io.apptrace.jobgraph;

import io.apptrace.job.Collective;
import io.apptrace.job.CollectiveMatching;
import io.apptrace.job.Job;
import io.apptrace.job.Message;
import io.apptrace.job.MessageMatching;
import io.apptrace.job.RankTrace;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiOp;
import io.apptrace.trace.ApiNames;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A job's MPI operations and the buffers each reads and writes, rank by rank: a message reads the
 * sender's send buffer at the send's post and writes the receiver's receive buffer at the call
 * that completed the receive (its Wait, for MPI_Irecv; its post, when the trace holds no
 * completion: a correct program does not touch a receive buffer before then); a send or receive
 * the traces cannot match reads or writes its own end only; a collective's members read and write
 * at their calls what {@link CollectiveBuffers} says, a nonblocking collective's members read at
 * their call and write at the Wait or Test that completed their request (at the call when the trace
 * holds no completion).
 *
 * @param operations the job's MPI operations: matched messages, then collectives, then the sends
 *     and receives no trace matched
 * @param accesses every buffer access, by operation
 * @param unrecorded buffers the traces do not give the address of (captured by an apptrace that did
 *     not record MPI buffers): their operations join fewer values
 * @param mismatchedCollectives collectives whose members called different operations (left out)
 */
public record MpiAccesses(List<MpiOperation> operations, List<BufferAccess> accesses, int unrecorded,
    int mismatchedCollectives) {
  public MpiAccesses {
    operations = List.copyOf(operations);
    accesses = List.copyOf(accesses);
  }

  public static MpiAccesses of(Job job) {
    Collector c = new Collector(job);
    MessageMatching m = MessageMatching.of(job);
    for (Message msg : m.messages()) {
      MpiCall send = c.call(msg.source(), msg.sendPost());
      MpiCall recv = c.call(msg.dest(), msg.recvPost());
      int op = c.operation(new MpiOperation(MpiOperation.Kind.MESSAGE, ApiNames.mpi(send.getOp()) + " -> "
          + ApiNames.mpi(recv.getOp()), msg.comm(), msg.tag(), msg.bytes(), msg.source(), msg.dest(),
          new ArrayList<>(new TreeSet<>(List.of(msg.source(), msg.dest()))), 2));
      c.access(op, msg.source(), msg.sendPost(), false, send.getSendBuffer(), msg.bytes(), msg.sendDevice(),
          send.getOp());
      c.access(op, msg.dest(), msg.recvDone() >= 0 ? msg.recvDone() : msg.recvPost(), true, recv.getRecvBuffer(),
          msg.bytes(), msg.recvDevice(), recv.getOp());
    }
    CollectiveMatching cm = CollectiveMatching.of(job);
    for (Collective col : cm.collectives()) {
      boolean rooted = rooted(CollectiveMatching.blocking(col.op()));
      int op = c.operation(new MpiOperation(MpiOperation.Kind.COLLECTIVE, ApiNames.mpi(col.op()), col.comm(), -1,
          col.bytes(), rooted ? col.root() : -1, -1, new ArrayList<>(new TreeSet<>(col.calls().keySet())),
          col.commSize()));
      for (int r : new TreeSet<>(col.calls().keySet())) {
        int index = col.calls().get(r);
        MpiCall call = c.call(r, index);
        int done = col.nonblocking() ? c.completion(r, call.getRequest(), index) : index;
        for (CollectiveBuffers.Buffer b : CollectiveBuffers.of(call, rooted && col.root() == r)) {
          c.access(op, r, b.write() ? done : index, b.write(), b.address(), b.bytes(), call.getDeviceBuffer(),
              call.getOp());
        }
      }
    }
    for (MessageMatching.Half h : m.unmatchedSends()) {
      MpiCall send = c.call(h.rank(), h.post());
      int op = c.operation(new MpiOperation(MpiOperation.Kind.UNMATCHED_SEND, ApiNames.mpi(send.getOp()), h.comm(),
          h.tag(), h.bytes(), h.rank(), h.peer(), List.of(h.rank()), 2));
      c.access(op, h.rank(), h.post(), false, send.getSendBuffer(), h.bytes(), h.device(), send.getOp());
    }
    for (MessageMatching.Half h : m.unmatchedReceives()) {
      MpiCall recv = c.call(h.rank(), h.post());
      int op = c.operation(new MpiOperation(MpiOperation.Kind.UNMATCHED_RECEIVE, ApiNames.mpi(recv.getOp()),
          h.comm(), h.tag(), h.bytes(), h.peer(), h.rank(), List.of(h.rank()), 2));
      c.access(op, h.rank(), h.done() >= 0 ? h.done() : h.post(), true, recv.getRecvBuffer(), h.bytes(), h.device(),
          recv.getOp());
    }
    return new MpiAccesses(c.operations, c.accesses, c.unrecorded, cm.mismatched());
  }

  /** Collectives with a root: MPI_Bcast, MPI_Reduce, MPI_Gather, MPI_Scatter. */
  static boolean rooted(MpiOp op) {
    return op == MpiOp.MPI_BCAST || op == MpiOp.MPI_REDUCE || op == MpiOp.MPI_GATHER || op == MpiOp.MPI_SCATTER;
  }

  /** The operations and accesses as they are found. */
  private static final class Collector {
    final Job job;
    final List<MpiOperation> operations = new ArrayList<>();
    final List<BufferAccess> accesses = new ArrayList<>();
    int unrecorded;

    Collector(Job job) {
      this.job = job;
    }

    MpiCall call(int rank, int index) {
      RankTrace t = job.rank(rank);
      return t.calls().get(index).call();
    }

    /** The index of the rank's call that completed request {@code request}; {@code otherwise} when none did. */
    int completion(int rank, long request, int otherwise) {
      if (request == 0) {
        return otherwise;
      }
      java.util.Map<Long, Integer> done = completions.computeIfAbsent(rank, r -> {
        java.util.Map<Long, Integer> m = new java.util.HashMap<>();
        for (io.apptrace.job.MpiEvent e : job.rank(r).calls()) {
          e.call().getCompletedList().forEach(d -> m.putIfAbsent(d.getRequest(), e.index()));
        }
        return m;
      });
      return done.getOrDefault(request, otherwise);
    }

    /** Per rank, request to the index of the call that completed it. */
    private final java.util.Map<Integer, java.util.Map<Long, Integer>> completions = new java.util.HashMap<>();

    int operation(MpiOperation op) {
      operations.add(op);
      return operations.size() - 1;
    }

    /** A buffer of {@code bytes} at {@code address}; nothing when it moves no bytes, counted when its address is not known. */
    void access(int op, int rank, int call, boolean write, long address, long bytes, boolean device, MpiOp function) {
      if (bytes <= 0) {
        return;
      }
      if (address == 0) {
        unrecorded++;
        return;
      }
      accesses.add(new BufferAccess(op, rank, call, write, address, bytes, device, ApiNames.mpi(function)));
    }
  }
}
