package io.apptrace.job;

import io.apptrace.proto.MpiOp;
import io.apptrace.proto.NcclOp;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a job's ranks sent each other: per rank, per ordered pair of ranks, and per kind of
 * collective; and the NCCL calls its ranks made, per operation.
 *
 * @param ranks per rank, in rank order
 * @param pairs per (source, destination), in that order; only pairs that exchanged messages
 * @param collectives per operation: how many, and the bytes of the ranks' contributions
 * @param unmatchedSends sends no receive in the traces took
 * @param unmatchedReceives receives no send matched
 * @param mismatchedCollectives collectives whose members called different operations
 * @param nccl per NCCL operation (ncclAllReduce, ncclSend...), in NcclOp order: calls and bytes
 */
public record JobTraffic(List<RankTraffic> ranks, List<PairTraffic> pairs, List<CollectiveTraffic> collectives,
    int unmatchedSends, int unmatchedReceives, int mismatchedCollectives, List<NcclTraffic> nccl) {
  public JobTraffic {
    ranks = List.copyOf(ranks);
    pairs = List.copyOf(pairs);
    collectives = List.copyOf(collectives);
    nccl = List.copyOf(nccl);
  }

  /**
   * One rank: its trace, host, MPI calls recorded, the messages it sent and received, its
   * collectives, and the MPI functions it called that apptrace passed through unrecorded (with
   * how many times; {@link RankTrace#unrecorded()}).
   */
  public record RankTraffic(int rank, String file, String host, int localRank, int mpiCalls, long sent,
      long sentBytes, long received, long receivedBytes, long collectives, Map<String, Long> unrecorded) {
    public RankTraffic {
      unrecorded = java.util.Collections.unmodifiableMap(new TreeMap<>(unrecorded));
    }
  }

  /** The messages from one rank to another. */
  public record PairTraffic(int source, int dest, long messages, long bytes, long deviceMessages) {}

  /** The collectives of one kind: operations, and the bytes of all ranks' contributions. */
  public record CollectiveTraffic(MpiOp op, long operations, long calls, long bytes) {}

  /**
   * The NCCL calls of one operation, over all ranks: how many, how many failed, the bytes they
   * named (NcclCall.bytes: each rank's send buffer), and on how many communicators.
   */
  public record NcclTraffic(NcclOp op, long calls, long failed, long bytes, long communicators) {}

  public static JobTraffic of(Job job) {
    MessageMatching m = MessageMatching.of(job);
    CollectiveMatching c = CollectiveMatching.of(job);
    Map<Integer, long[]> perRank = new TreeMap<>(); // sent, sentBytes, received, receivedBytes, collectives
    Map<Long, long[]> perPair = new TreeMap<>();
    for (Message msg : m.messages()) {
      long[] s = perRank.computeIfAbsent(msg.source(), k -> new long[5]);
      s[0]++;
      s[1] += msg.bytes();
      long[] r = perRank.computeIfAbsent(msg.dest(), k -> new long[5]);
      r[2]++;
      r[3] += msg.bytes();
      long[] p = perPair.computeIfAbsent(((long) msg.source() << 32) | msg.dest(), k -> new long[3]);
      p[0]++;
      p[1] += msg.bytes();
      p[2] += msg.sendDevice() || msg.recvDevice() ? 1 : 0;
    }
    Map<MpiOp, long[]> perOp = new TreeMap<>();
    for (Collective col : c.collectives()) {
      long[] o = perOp.computeIfAbsent(col.op(), k -> new long[3]);
      o[0]++;
      o[1] += col.calls().size();
      o[2] += col.bytes() * col.calls().size();
      for (int rank : col.calls().keySet()) {
        perRank.computeIfAbsent(rank, k -> new long[5])[4]++;
      }
    }
    List<RankTraffic> ranks = new ArrayList<>();
    for (RankTrace t : job.ranks()) {
      long[] v = perRank.getOrDefault(t.rank(), new long[5]);
      ranks.add(new RankTraffic(t.rank(), t.file().toString(), t.host(), t.localRank(), t.calls().size(), v[0], v[1],
          v[2], v[3], v[4], t.unrecorded()));
    }
    List<PairTraffic> pairs = new ArrayList<>();
    perPair.forEach((k, v) -> pairs.add(new PairTraffic((int) (k >>> 32), (int) (long) k, v[0], v[1], v[2])));
    List<CollectiveTraffic> cols = new ArrayList<>();
    perOp.forEach((op, v) -> cols.add(new CollectiveTraffic(op, v[0], v[1], v[2])));
    return new JobTraffic(ranks, pairs, cols, m.unmatchedSends().size(), m.unmatchedReceives().size(), c.mismatched(),
        nccl(job));
  }

  private static List<NcclTraffic> nccl(Job job) {
    Map<NcclOp, long[]> perOp = new TreeMap<>(); // calls, failed, bytes
    Map<NcclOp, Set<Long>> comms = new TreeMap<>();
    for (RankTrace t : job.ranks()) {
      for (NcclEvent e : t.ncclCalls()) {
        NcclOp op = e.call().getOp();
        long[] v = perOp.computeIfAbsent(op, k -> new long[3]);
        v[0]++;
        v[1] += e.result() != 0 ? 1 : 0;
        v[2] += e.call().getBytes();
        if (e.call().getCommId() != 0) {
          comms.computeIfAbsent(op, k -> new HashSet<>()).add(e.call().getCommId());
        }
      }
    }
    List<NcclTraffic> out = new ArrayList<>();
    perOp.forEach((op, v) -> out.add(new NcclTraffic(op, v[0], v[1], v[2], comms.getOrDefault(op, Set.of()).size())));
    return out;
  }
}
