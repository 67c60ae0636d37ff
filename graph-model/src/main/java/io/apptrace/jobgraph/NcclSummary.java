package io.apptrace.jobgraph;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The NCCL operations of a job's graph, as {@code apptrace graph} reports them beside the MPI ones
 * ({@link JobDvdgSummary}): matched messages and their bytes, collectives by function, and every
 * send and receive the traces could not match, named with why.
 *
 * @param messages matched ncclSend/ncclRecv pairs
 * @param messageBytes their bytes
 * @param collectives collectives by NCCL function ({@code ncclAllReduce}...)
 * @param incompleteCollectives collectives some of whose members' calls are not in the traces
 * @param mismatchedCollectives collectives whose members called different operations (not in the
 *     graph)
 * @param unmatched the sends and receives no trace matched, by rank and peer (the peer's world
 *     rank; -1 when no trace holds the communicator's rank, which the reason names)
 * @param unrecordedBuffers NCCL buffers whose address the traces do not give
 * @param ranks each world rank's part, by rank (ranks that made no NCCL operation are absent)
 */
public record NcclSummary(long messages, long messageBytes, Map<String, Long> collectives, int incompleteCollectives,
    int mismatchedCollectives, List<JobDvdgSummary.Unmatched> unmatched, int unrecordedBuffers,
    Map<Integer, RankTraffic> ranks) {
  public NcclSummary {
    collectives = Collections.unmodifiableMap(new TreeMap<>(collectives));
    unmatched = List.copyOf(unmatched);
    ranks = Collections.unmodifiableMap(new TreeMap<>(ranks));
  }

  /**
   * One rank's NCCL operations.
   *
   * @param sent messages it sent that a receive matched, and their bytes ({@code sentBytes})
   * @param received messages it received that a send matched, and their bytes
   * @param collectives collectives it took part in
   */
  public record RankTraffic(long sent, long sentBytes, long received, long receivedBytes, long collectives) {
    /** A rank without NCCL operations. */
    public static final RankTraffic NONE = new RankTraffic(0, 0, 0, 0, 0);
  }

  /** This rank's part (none when it made no NCCL operation). */
  public RankTraffic rank(int rank) {
    return ranks.getOrDefault(rank, RankTraffic.NONE);
  }

  public static NcclSummary of(JobDvdg g) {
    Map<Integer, long[]> traffic = new TreeMap<>(); // sent, sentBytes, received, receivedBytes, collectives
    long messages = 0;
    long messageBytes = 0;
    Map<String, Long> collectives = new TreeMap<>();
    int incomplete = 0;
    Map<Ends, long[]> unmatchedBy = new LinkedHashMap<>();
    for (NcclOperation n : g.ncclOperations()) {
      switch (n.kind()) {
        case MESSAGE -> {
          messages++;
          messageBytes += n.bytes();
          long[] s = traffic.computeIfAbsent(n.source(), k -> new long[5]);
          s[0]++;
          s[1] += n.bytes();
          long[] d = traffic.computeIfAbsent(n.dest(), k -> new long[5]);
          d[2]++;
          d[3] += n.bytes();
        }
        case COLLECTIVE -> {
          collectives.merge(n.name(), 1L, Long::sum);
          incomplete += n.incomplete() ? 1 : 0;
          n.members().forEach(r -> traffic.computeIfAbsent(r, k -> new long[5])[4]++);
        }
        case UNMATCHED_SEND, UNMATCHED_RECEIVE -> {
          boolean send = n.kind() == NcclOperation.Kind.UNMATCHED_SEND;
          int rank = send ? n.source() : n.dest();
          int peer = send ? n.dest() : n.source();
          int commPeer = send ? n.commDest() : n.commSource();
          long[] u = unmatchedBy.computeIfAbsent(new Ends(send, rank, peer, reason(send, n.comm(), peer, commPeer)),
              k -> new long[2]);
          u[0]++;
          u[1] += n.bytes();
        }
      }
    }
    List<JobDvdgSummary.Unmatched> unmatched = new ArrayList<>();
    unmatchedBy.forEach((k, v) -> unmatched.add(new JobDvdgSummary.Unmatched(k.send(), k.rank(), k.peer(), v[0], v[1],
        k.reason())));
    unmatched.sort(Comparator.comparing((JobDvdgSummary.Unmatched u) -> !u.send())
        .thenComparingInt(JobDvdgSummary.Unmatched::rank).thenComparingInt(JobDvdgSummary.Unmatched::peer));
    Map<Integer, RankTraffic> ranks = new TreeMap<>();
    traffic.forEach((r, t) -> ranks.put(r, new RankTraffic(t[0], t[1], t[2], t[3], t[4])));
    NcclAccesses a = g.ncclAccesses();
    return new NcclSummary(messages, messageBytes, collectives, incomplete, a.mismatchedCollectives(), unmatched,
        a.unrecorded(), ranks);
  }

  /** Unmatched sends (or receives) of a rank to (from) a peer, for one reason. */
  private record Ends(boolean send, int rank, int peer, String reason) {}

  private static String reason(boolean send, long comm, int peer, int commPeer) {
    if (comm == 0) {
      return "its communicator was not seen made (no id to join its ranks)";
    }
    if (peer < 0) {
      return "no trace holds rank " + commPeer + " of its communicator";
    }
    return "rank " + peer + "'s trace has no matching " + (send ? "ncclRecv" : "ncclSend");
  }
}
