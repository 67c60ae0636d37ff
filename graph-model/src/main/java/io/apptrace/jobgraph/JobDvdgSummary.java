package io.apptrace.jobgraph;

import io.apptrace.graph.Allocation;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.graph.Race;
import io.apptrace.trace.Truncation;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What {@code apptrace graph} of a job's traces reports: each rank's graph (values, operations by
 * kind, the MPI and NCCL messages and collectives it took part in, races, warnings) and the job's
 * (values, operations by kind, edges, messages and their bytes, collectives by operation, and every
 * message the traces could not match, named with why; NCCL's in {@link NcclSummary}).
 *
 * @param ranks per rank, in rank order
 * @param worldSize the job's ranks, as its traces say
 * @param missingRanks the ranks of the job whose traces were not given
 * @param values values of every rank
 * @param operations operations by kind: the ranks' copies, memsets, kernels, the MPI operations
 *     ({@code mpi_message}, {@code mpi_collective}) and the NCCL ones ({@code nccl_message},
 *     {@code nccl_allreduce}, ... {@link NcclOperation#KINDS})
 * @param edges edges of the job's graph
 * @param messages matched messages
 * @param messageBytes their bytes
 * @param collectives collectives by MPI function
 * @param incompleteCollectives collectives some of whose members' traces were not given
 * @param mismatchedCollectives collectives whose members called different operations (not in the
 *     graph)
 * @param unmatched the sends and receives no trace matched, by rank and peer
 * @param unrecordedBuffers MPI buffers whose address the traces do not give
 * @param nccl the NCCL operations: messages, collectives, what was not matched
 */
public record JobDvdgSummary(List<RankSummary> ranks, int worldSize, List<Integer> missingRanks, long values,
    Map<String, Long> operations, long edges, long messages, long messageBytes, Map<String, Long> collectives,
    int incompleteCollectives, int mismatchedCollectives, List<Unmatched> unmatched, int unrecordedBuffers,
    NcclSummary nccl) {
  public JobDvdgSummary {
    ranks = List.copyOf(ranks);
    missingRanks = List.copyOf(missingRanks);
    operations = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(operations));
    collectives = java.util.Collections.unmodifiableMap(new TreeMap<>(collectives));
    unmatched = List.copyOf(unmatched);
  }

  /**
   * One rank's graph.
   *
   * @param operations its copies, memsets and kernels (its MPI and NCCL operations are the job's)
   * @param sent MPI messages it sent that a receive matched, and their bytes ({@code sentBytes})
   * @param received MPI messages it received that a send matched, and their bytes
   * @param collectives MPI collectives it took part in
   * @param certainRaces races in its graph whose two ends' extents are known; {@code possibleRaces}
   *     the others (an MPI call's buffer access among them when a send reads what a kernel not yet
   *     known finished may write)
   * @param warnings its graph's warnings by kind
   * @param truncation where reading its trace stopped early, if it did
   * @param nccl its NCCL messages and collectives
   */
  public record RankSummary(int rank, String file, String host, int values, int allocations,
      int implicitAllocations, Map<OpKind, Integer> operations, long sent, long sentBytes, long received,
      long receivedBytes, long collectives, long certainRaces, long possibleRaces, Map<String, Long> warnings,
      Optional<Truncation> truncation, NcclSummary.RankTraffic nccl) {
    public RankSummary {
      operations = java.util.Collections.unmodifiableMap(new EnumMap<>(operations));
      warnings = Map.copyOf(warnings);
    }
  }

  /**
   * Sends (or receives) of one rank to (from) one peer that no trace matched.
   *
   * @param send sends (else receives)
   * @param rank the rank that made them
   * @param peer the destination, or the source (-1: MPI_ANY_SOURCE, never seen completed)
   * @param count how many
   * @param bytes their bytes
   * @param reason why: the peer's trace was not given, or it holds no matching call
   */
  public record Unmatched(boolean send, int rank, int peer, long count, long bytes, String reason) {}

  public static JobDvdgSummary of(JobDvdg g) {
    Map<Integer, long[]> traffic = new TreeMap<>(); // sent, sentBytes, received, receivedBytes, collectives
    Map<String, Long> operations = new LinkedHashMap<>();
    for (OpKind k : OpKind.values()) {
      operations.put(k.key(), 0L);
    }
    operations.put("mpi_message", 0L);
    operations.put("mpi_collective", 0L);
    NcclOperation.KINDS.forEach(k -> operations.put(k, 0L));
    for (NcclOperation n : g.ncclOperations()) {
      operations.merge(n.kindKey(), 1L, Long::sum);
    }
    NcclSummary nccl = NcclSummary.of(g);
    long messages = 0;
    long messageBytes = 0;
    Map<String, Long> collectives = new TreeMap<>();
    int incomplete = 0;
    Map<Ends, long[]> unmatchedBy = new LinkedHashMap<>();
    TreeSet<Integer> given = new TreeSet<>();
    g.ranks().forEach(r -> given.add(r.rank()));
    for (MpiOperation m : g.mpiOperations()) {
      operations.merge(m.kindKey(), 1L, Long::sum);
      switch (m.kind()) {
        case MESSAGE -> {
          messages++;
          messageBytes += m.bytes();
          long[] s = traffic.computeIfAbsent(m.source(), k -> new long[5]);
          s[0]++;
          s[1] += m.bytes();
          long[] d = traffic.computeIfAbsent(m.dest(), k -> new long[5]);
          d[2]++;
          d[3] += m.bytes();
        }
        case COLLECTIVE -> {
          collectives.merge(m.name(), 1L, Long::sum);
          incomplete += m.members().size() < m.commSize() ? 1 : 0;
          m.members().forEach(r -> traffic.computeIfAbsent(r, k -> new long[5])[4]++);
        }
        case UNMATCHED_SEND, UNMATCHED_RECEIVE -> {
          boolean send = m.kind() == MpiOperation.Kind.UNMATCHED_SEND;
          long[] u = unmatchedBy.computeIfAbsent(new Ends(send, send ? m.source() : m.dest(),
              send ? m.dest() : m.source()), k -> new long[2]);
          u[0]++;
          u[1] += m.bytes();
        }
      }
    }
    List<Unmatched> unmatched = new ArrayList<>();
    unmatchedBy.forEach((k, v) -> unmatched.add(new Unmatched(k.send(), k.rank(), k.peer(), v[0], v[1],
        reason(k.send(), k.peer(), given))));
    unmatched.sort(java.util.Comparator.comparing((Unmatched u) -> !u.send()).thenComparingInt(Unmatched::rank)
        .thenComparingInt(Unmatched::peer));
    List<RankSummary> ranks = new ArrayList<>();
    long values = 0;
    for (JobDvdg.RankGraph r : g.ranks()) {
      RankSummary s = rank(r, traffic.getOrDefault(r.rank(), new long[5]), nccl.rank(r.rank()));
      ranks.add(s);
      values += s.values();
      s.operations().forEach((k, n) -> operations.merge(k.key(), (long) n, Long::sum));
    }
    List<Integer> missing = new ArrayList<>();
    for (int r = 0; r < g.job().worldSize(); r++) {
      if (!given.contains(r)) {
        missing.add(r);
      }
    }
    return new JobDvdgSummary(ranks, g.job().worldSize(), missing, values, operations,
        g.view().edgeSet().size(), messages, messageBytes, collectives, incomplete,
        g.accesses().mismatchedCollectives(), unmatched, g.accesses().unrecorded(), nccl);
  }

  /** Unmatched sends (or receives) of a rank to (from) a peer. */
  private record Ends(boolean send, int rank, int peer) {}

  private static String reason(boolean send, int peer, TreeSet<Integer> given) {
    if (peer < 0) {
      return "from MPI_ANY_SOURCE, never seen completed";
    }
    if (!given.contains(peer)) {
      return "no trace of rank " + peer;
    }
    return "rank " + peer + "'s trace has no matching " + (send ? "receive" : "send");
  }

  private static RankSummary rank(JobDvdg.RankGraph r, long[] t, NcclSummary.RankTraffic nccl) {
    Dvdg d = r.dvdg();
    OperationTable ops = d.operations();
    Map<OpKind, Integer> kinds = new EnumMap<>(OpKind.class);
    for (int op : r.local()) {
      kinds.merge(ops.kind(op), 1, Integer::sum);
    }
    long certain = d.races().stream().filter(Race::certain).count();
    int implicit = (int) d.allocations().stream().filter(Allocation::implicit).count();
    return new RankSummary(r.rank(), r.trace().file().toString(), r.trace().host(), d.values().size(),
        d.allocations().size(), implicit, kinds, t[0], t[1], t[2], t[3], t[4], certain, d.races().size() - certain,
        d.warnings().counts(), r.truncation(), nccl);
  }
}
