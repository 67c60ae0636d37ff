package io.apptrace.job;

import io.apptrace.proto.NcclCall;
import io.apptrace.proto.NcclOp;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The NCCL operations of a job, joined across its ranks' traces. Collectives are matched by their
 * communicator's id and their order on it: NCCL requires every rank of a communicator to call its
 * collectives in the same order, so the k-th collective call of each rank of a communicator is one
 * operation. ncclSend and ncclRecv are matched by communicator, sender -> receiver and order: the
 * k-th send from rank a to rank b of a communicator is received by the k-th receive b posts from a.
 * Ranks here are ranks in the communicator (NcclCall.rank and peer), each call's trace giving the
 * world rank of its process. Only calls that succeeded count; group starts and ends, communicator
 * inits and destroys move no data and are not matched. A call on a communicator the trace did not
 * see made (comm_id 0) cannot be joined to another rank's: a collective is then an operation of its
 * one call, a send or a receive is left unmatched.
 */
public final class NcclMatching {
  /**
   * One call of a rank.
   *
   * @param rank the world rank of the trace that holds it
   * @param index its place among the rank's NCCL calls ({@link RankTrace#ncclCalls()})
   * @param call what it recorded
   */
  public record Call(int rank, int index, NcclCall call) {
    /** Its rank in the communicator. */
    public int commRank() {
      return call.getRank();
    }
  }

  /**
   * One collective: its members' calls, in their order in the communicator.
   *
   * @param op the operation
   * @param commId the communicator's id (0: not known; the collective is then one call)
   * @param commSize the communicator's size
   * @param sequence its place among the communicator's collectives, from 0
   * @param root the root's rank in the communicator (ncclBroadcast, ncclReduce; else -1)
   * @param calls the members' calls the traces hold
   */
  public record Collective(NcclOp op, long commId, int commSize, int sequence, int root, List<Call> calls) {
    public Collective {
      calls = List.copyOf(calls);
    }

    /** Every member's call is in the traces. */
    public boolean complete() {
      return calls.size() >= commSize;
    }
  }

  /** A send and the receive that took it. */
  public record Message(long commId, Call send, Call recv) {}

  private final List<Collective> collectives;
  private final List<Message> messages;
  private final List<Call> unmatchedSends;
  private final List<Call> unmatchedReceives;
  private final int mismatched;
  private final Map<CommRank, Integer> worldRanks;

  private NcclMatching(List<Collective> collectives, List<Message> messages, List<Call> unmatchedSends,
      List<Call> unmatchedReceives, int mismatched, Map<CommRank, Integer> worldRanks) {
    this.collectives = List.copyOf(collectives);
    this.messages = List.copyOf(messages);
    this.unmatchedSends = List.copyOf(unmatchedSends);
    this.unmatchedReceives = List.copyOf(unmatchedReceives);
    this.mismatched = mismatched;
    this.worldRanks = Map.copyOf(worldRanks);
  }

  /** The collectives, by communicator and order. */
  public List<Collective> collectives() {
    return collectives;
  }

  /** The matched sends and receives, by communicator, sender, receiver and order. */
  public List<Message> messages() {
    return messages;
  }

  /** The sends no receive in the traces took, by rank and order. */
  public List<Call> unmatchedSends() {
    return unmatchedSends;
  }

  /** The receives no send in the traces matched, by rank and order. */
  public List<Call> unmatchedReceives() {
    return unmatchedReceives;
  }

  /** Collectives whose members called different operations or named different roots (left out). */
  public int mismatched() {
    return mismatched;
  }

  /**
   * The world rank of the trace whose calls are rank {@code commRank} of communicator
   * {@code commId}; -1: no trace given holds it.
   */
  public int worldRank(long commId, int commRank) {
    return commId == 0 ? -1 : worldRanks.getOrDefault(new CommRank(commId, commRank), -1);
  }

  /** ncclAllReduce, ncclBroadcast, ncclReduce, ncclAllGather, ncclReduceScatter. */
  public static boolean isCollective(NcclOp op) {
    return op == NcclOp.NCCL_ALL_REDUCE || op == NcclOp.NCCL_BROADCAST || op == NcclOp.NCCL_REDUCE
        || op == NcclOp.NCCL_ALL_GATHER || op == NcclOp.NCCL_REDUCE_SCATTER;
  }

  /** ncclBroadcast and ncclReduce: NcclCall.peer is their root. */
  public static boolean isRooted(NcclOp op) {
    return op == NcclOp.NCCL_BROADCAST || op == NcclOp.NCCL_REDUCE;
  }

  private record CommRank(long commId, int rank) {}

  private record Ordered(long commId, int sequence) {}

  private record Pair(long commId, int source, int dest) {}

  private static final class Building {
    NcclOp op;
    int commSize;
    int root;
    boolean mismatch;
    final List<Call> calls = new ArrayList<>();
  }

  public static NcclMatching of(Job job) {
    Map<Ordered, Building> ordered = new LinkedHashMap<>();
    List<Collective> alone = new ArrayList<>();
    Map<Pair, ArrayDeque<Call>> sends = new LinkedHashMap<>();
    Map<Pair, ArrayDeque<Call>> recvs = new LinkedHashMap<>();
    List<Call> unmatchedSends = new ArrayList<>();
    List<Call> unmatchedReceives = new ArrayList<>();
    Map<CommRank, Integer> worldRanks = new HashMap<>();
    for (RankTrace t : job.ranks()) {
      Map<CommRank, Integer> next = new HashMap<>();
      List<NcclEvent> calls = t.ncclCalls();
      for (int i = 0; i < calls.size(); i++) {
        NcclEvent e = calls.get(i);
        NcclCall c = e.call();
        if (e.result() != 0 || c.getRank() < 0) {
          continue;
        }
        Call call = new Call(t.rank(), i, c);
        if (c.getCommId() != 0) {
          worldRanks.putIfAbsent(new CommRank(c.getCommId(), c.getRank()), t.rank());
        }
        NcclOp op = c.getOp();
        if (isCollective(op)) {
          int root = isRooted(op) ? c.getPeer() : -1;
          if (c.getCommId() == 0) {
            alone.add(new Collective(op, 0, c.getCommSize(), 0, root, List.of(call)));
            continue;
          }
          int seq = next.merge(new CommRank(c.getCommId(), c.getRank()), 1, Integer::sum) - 1;
          Building b = ordered.computeIfAbsent(new Ordered(c.getCommId(), seq), k -> new Building());
          if (b.op == null) {
            b.op = op;
            b.commSize = c.getCommSize();
            b.root = root;
          } else if (b.op != op || b.root != root) {
            b.mismatch = true;
          }
          b.calls.add(call);
        } else if (op == NcclOp.NCCL_SEND || op == NcclOp.NCCL_RECV) {
          if (c.getCommId() == 0) {
            (op == NcclOp.NCCL_SEND ? unmatchedSends : unmatchedReceives).add(call);
          } else if (op == NcclOp.NCCL_SEND) {
            sends.computeIfAbsent(new Pair(c.getCommId(), c.getRank(), c.getPeer()), k -> new ArrayDeque<>())
                .add(call);
          } else {
            recvs.computeIfAbsent(new Pair(c.getCommId(), c.getPeer(), c.getRank()), k -> new ArrayDeque<>())
                .add(call);
          }
        }
      }
    }
    List<Collective> collectives = new ArrayList<>();
    int mismatched = 0;
    for (Map.Entry<Ordered, Building> e : ordered.entrySet()) {
      Building b = e.getValue();
      if (b.mismatch) {
        mismatched++;
        continue;
      }
      b.calls.sort(Comparator.comparingInt(Call::commRank));
      collectives.add(new Collective(b.op, e.getKey().commId(), b.commSize, e.getKey().sequence(), b.root,
          b.calls));
    }
    collectives.sort(Comparator.comparingLong(Collective::commId).thenComparingInt(Collective::sequence));
    collectives.addAll(alone);
    List<Message> messages = new ArrayList<>();
    for (Map.Entry<Pair, ArrayDeque<Call>> e : sends.entrySet()) {
      ArrayDeque<Call> taken = recvs.getOrDefault(e.getKey(), new ArrayDeque<>());
      for (Call s : e.getValue()) {
        Call r = taken.poll();
        if (r == null) {
          unmatchedSends.add(s);
        } else {
          messages.add(new Message(e.getKey().commId(), s, r));
        }
      }
    }
    recvs.values().forEach(unmatchedReceives::addAll); // what no send took
    messages.sort(Comparator.comparingLong(Message::commId).thenComparingInt(m -> m.send().commRank())
        .thenComparingInt(m -> m.recv().commRank()));
    Comparator<Call> byRank = Comparator.comparingInt(Call::rank).thenComparingInt(Call::index);
    unmatchedSends.sort(byRank);
    unmatchedReceives.sort(byRank);
    return new NcclMatching(collectives, messages, unmatchedSends, unmatchedReceives, mismatched, worldRanks);
  }
}
