package io.apptrace.jobgraph;

import io.apptrace.job.Job;
import io.apptrace.job.NcclMatching;
import io.apptrace.proto.NcclCall;
import io.apptrace.proto.NcclOp;
import io.apptrace.trace.ApiNames;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A job's NCCL operations ({@link NcclMatching}) and the device buffers each reads and writes, rank
 * by rank ({@link NcclBuffers}): every access is at its call, in stream order on the call's stream
 * (the work NCCL queues there runs after what the stream held before and before what comes after).
 * A send or receive the traces cannot match reads or writes its own end only.
 *
 * @param operations the job's NCCL operations: matched messages, then collectives, then the sends
 *     and then the receives no trace matched
 * @param accesses every buffer access, by operation
 * @param unrecorded buffers the traces do not give the address of (captured by an apptrace that did
 *     not record NCCL buffers): their operations join fewer values
 * @param mismatchedCollectives collectives whose members called different operations (left out)
 */
public record NcclAccesses(List<NcclOperation> operations, List<BufferAccess> accesses, int unrecorded,
    int mismatchedCollectives) {
  public NcclAccesses {
    operations = List.copyOf(operations);
    accesses = List.copyOf(accesses);
  }

  public static NcclAccesses of(Job job) {
    NcclMatching m = NcclMatching.of(job);
    List<NcclOperation> ops = new ArrayList<>();
    List<BufferAccess> accesses = new ArrayList<>();
    int[] unrecorded = {0};
    for (NcclMatching.Message msg : m.messages()) {
      NcclCall send = msg.send().call();
      NcclCall recv = msg.recv().call();
      long bytes = Math.min(send.getBytes(), recv.getBytes());
      ops.add(new NcclOperation(NcclOperation.Kind.MESSAGE, NcclOp.NCCL_SEND, msg.commId(), bytes,
          msg.send().rank(), msg.recv().rank(), send.getRank(), recv.getRank(),
          new ArrayList<>(new TreeSet<>(List.of(msg.send().rank(), msg.recv().rank()))), 2, 2));
      int op = ops.size() - 1;
      access(accesses, unrecorded, op, msg.send(), false, send.getSendBuffer(), send.getBytes());
      access(accesses, unrecorded, op, msg.recv(), true, recv.getRecvBuffer(), bytes);
    }
    for (NcclMatching.Collective col : m.collectives()) {
      TreeSet<Integer> members = new TreeSet<>();
      col.calls().forEach(c -> members.add(c.rank()));
      int rooted = col.root();
      ops.add(new NcclOperation(NcclOperation.Kind.COLLECTIVE, col.op(), col.commId(),
          col.calls().stream().mapToLong(c -> c.call().getBytes()).max().orElse(0),
          rooted >= 0 ? m.worldRank(col.commId(), rooted) : -1, -1, rooted, -1, new ArrayList<>(members),
          col.commSize(), col.calls().size()));
      int op = ops.size() - 1;
      for (NcclMatching.Call c : col.calls()) {
        for (CollectiveBuffers.Buffer b : NcclBuffers.of(c.call(), rooted >= 0 && c.commRank() == rooted)) {
          access(accesses, unrecorded, op, c, b.write(), b.address(), b.bytes());
        }
      }
    }
    for (NcclMatching.Call c : m.unmatchedSends()) {
      NcclCall send = c.call();
      ops.add(new NcclOperation(NcclOperation.Kind.UNMATCHED_SEND, NcclOp.NCCL_SEND, send.getCommId(),
          send.getBytes(), c.rank(), m.worldRank(send.getCommId(), send.getPeer()), send.getRank(), send.getPeer(),
          List.of(c.rank()), 2, 1));
      access(accesses, unrecorded, ops.size() - 1, c, false, send.getSendBuffer(), send.getBytes());
    }
    for (NcclMatching.Call c : m.unmatchedReceives()) {
      NcclCall recv = c.call();
      ops.add(new NcclOperation(NcclOperation.Kind.UNMATCHED_RECEIVE, NcclOp.NCCL_RECV, recv.getCommId(),
          recv.getBytes(), m.worldRank(recv.getCommId(), recv.getPeer()), c.rank(), recv.getPeer(), recv.getRank(),
          List.of(c.rank()), 2, 1));
      access(accesses, unrecorded, ops.size() - 1, c, true, recv.getRecvBuffer(), recv.getBytes());
    }
    return new NcclAccesses(ops, accesses, unrecorded[0], m.mismatched());
  }

  /**
   * A buffer of {@code bytes} at {@code address}; nothing when it moves no bytes, counted when its
   * address is not known.
   */
  private static void access(List<BufferAccess> out, int[] unrecorded, int op, NcclMatching.Call c, boolean write,
      long address, long bytes) {
    if (bytes <= 0) {
      return;
    }
    if (address == 0) {
      unrecorded[0]++;
      return;
    }
    out.add(new BufferAccess(op, c.rank(), c.index(), write, address, bytes, true, ApiNames.nccl(c.call().getOp()),
        true, c.call().getStream()));
  }
}
