package io.apptrace.replay;

import io.apptrace.cost.CollectiveCost;
import io.apptrace.cost.MessageCost;
import io.apptrace.job.Collective;
import io.apptrace.job.Message;
import io.apptrace.node.Cluster;
import io.apptrace.proto.MpiOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's projected timeline on a cluster: when each rank ends, what its time went to, and what
 * its messages and collectives cost.
 *
 * @param cluster the cluster, as replayed on
 * @param makespan seconds from the ranks' return from MPI_Init to the last rank's end
 * @param ranks per rank
 * @param intraNode the messages within a node
 * @param interNode the messages between nodes
 * @param collectives per operation
 * @param between what each rank did between its MPI calls: its program replayed on the cluster's
 *     node, or the time its trace measured
 * @param notes what the node replays said, and what the job's replay approximates
 * @param coupling how the node replays and the network's replay came to agree ({@link JobOverlap})
 * @param nccl the NCCL launches' collectives and sends, per operation ({@link NcclReplay})
 */
public record JobReplayResult(Cluster cluster, double makespan, List<RankTime> ranks, Traffic intraNode,
    Traffic interNode, List<CollectiveTime> collectives, RankSegments.Source between, List<String> notes,
    Coupling coupling, List<NcclTime> nccl) {
  public JobReplayResult {
    ranks = List.copyOf(ranks);
    collectives = List.copyOf(collectives);
    notes = List.copyOf(notes);
    nccl = List.copyOf(nccl);
  }

  /**
   * How the node replays and the network's replay came to agree ({@link JobOverlap}).
   *
   * @param iterations node replays, each followed by the network's replay (0: the ranks took their
   *     traced time, no node replay)
   * @param converged the last iteration moved no MPI call's time by more than {@code toleranceSeconds}
   * @param largestChangeSeconds the most the last iteration moved a call's time
   * @param toleranceSeconds how far a call's time may move in an iteration that converged
   */
  public record Coupling(int iterations, boolean converged, double largestChangeSeconds, double toleranceSeconds) {
    /** No node replay: nothing to agree on. */
    public static final Coupling NONE = new Coupling(0, true, 0, 0);
  }

  /** This result, reached by {@code c}. */
  JobReplayResult withCoupling(Coupling c) {
    return new JobReplayResult(cluster, makespan, ranks, intraNode, interNode, collectives, between, notes, c, nccl);
  }

  /**
   * This result with the job's NCCL work: per operation {@code times}, and per rank the time its
   * launches took on its streams ({@code perRank}, seconds); {@code more} notes added.
   */
  JobReplayResult withNccl(List<NcclTime> times, Map<Integer, Double> perRank, List<String> more) {
    List<RankTime> rs = ranks.stream().map(t -> new RankTime(t.rank(), t.node(), t.end(), t.compute(),
        t.pointToPoint(), t.collective(), t.startup(), t.kernels(), t.copies(), t.hidden(),
        perRank.getOrDefault(t.rank(), 0.0))).toList();
    List<String> ns = new ArrayList<>(notes);
    ns.addAll(more);
    return new JobReplayResult(cluster, makespan, rs, intraNode, interNode, collectives, between, ns, coupling,
        times);
  }

  /** The ranks' communication (point-to-point and collectives), summed, seconds. */
  public double communicationSeconds() {
    return ranks.stream().mapToDouble(t -> t.pointToPoint() + t.collective()).sum();
  }

  /** Of {@link #communicationSeconds()}, the time ranks' GPU work ran meanwhile, summed (NaN: as traced). */
  public double hiddenSeconds() {
    return ranks.stream().mapToDouble(RankTime::hidden).sum();
  }

  /**
   * One rank.
   *
   * @param rank its world rank
   * @param node the node it ran on
   * @param end seconds
   * @param compute seconds of its own work between its first MPI call and its end, outside MPI
   *     calls (its kernels, copies, CUDA calls and host work: on the node model, or as traced)
   * @param pointToPoint seconds in point-to-point calls and waits
   * @param collective seconds in collectives (waiting for the last member included)
   * @param startup seconds in MPI_Init and MPI_Finalize as traced: not in the projected timeline
   *     (every rank leaves MPI_Init at 0; MPI_Finalize takes no time)
   * @param kernels seconds its kernels ran on the node's GPU, summed (NaN when as traced)
   * @param copies seconds its copies and memsets took on the node, summed (NaN when as traced)
   * @param hidden of its time in point-to-point calls and collectives, how much its own GPU work
   *     was running meanwhile on the node: communication hidden behind it (NaN when as traced)
   * @param nccl seconds its NCCL launches took on its streams, from when a stream got to one to its
   *     end (waiting for the other ranks included); part of its own work between MPI calls
   */
  public record RankTime(int rank, int node, double end, double compute, double pointToPoint, double collective,
      double startup, double kernels, double copies, double hidden, double nccl) {}

  /**
   * Messages of one kind.
   *
   * @param messages how many
   * @param bytes their bytes
   * @param seconds their transfer times summed
   * @param nicWaitSeconds time messages waited for their node's NIC (contention)
   * @param paths what carried them: path to messages
   */
  public record Traffic(long messages, long bytes, double seconds, double nicWaitSeconds, Map<String, Long> paths) {}

  /**
   * The collectives of one operation.
   *
   * @param op the operation
   * @param algorithm the algorithm priced (the last one's, when sizes differ)
   * @param operations how many
   * @param seconds their times summed (from the last member's call)
   * @param interNode how many spanned nodes
   */
  public record CollectiveTime(MpiOp op, String algorithm, long operations, double seconds, long interNode) {}

  /**
   * The NCCL work of one operation ({@link NcclReplay}): collectives, or sends with their receives.
   *
   * @param op the operation (NCCL_SEND: a send and its receive)
   * @param algorithm the algorithm priced (the last one's, when sizes differ); empty when none was
   * @param operations how many (a collective once for all its members)
   * @param bytes their bytes (a rank's buffer; an all-gather's whole vector)
   * @param seconds their times summed (from the last member's stream getting to it)
   * @param interNode how many spanned nodes
   * @param notPriced how many took no time because their members are not ranks of their own in the
   *     traces (a communicator of one process's GPUs, a peer whose trace is missing)
   */
  public record NcclTime(io.apptrace.proto.NcclOp op, String algorithm, long operations, long bytes, double seconds,
      long interNode, long notPriced) {}

  /** Collects a replay's figures. */
  static final class Builder {
    private final Cluster cluster;
    private final Map<Integer, double[]> ranks = new TreeMap<>(); // end, compute, p2p, collective, startup
    private final long[] counts = new long[4]; // intra messages, bytes, inter messages, bytes
    private final double[] seconds = new double[5]; // intra s, intra wait, inter s, inter wait
    private final Map<String, Long> intraPaths = new TreeMap<>();
    private final Map<String, Long> interPaths = new TreeMap<>();
    private final Map<MpiOp, Object[]> collectives = new TreeMap<>();

    private final Map<Integer, RankSegments> segments = new TreeMap<>();
    /** What the ranks' traces say the interposer passed through unrecorded: the note, by the ranks it concerns. */
    private final Map<String, java.util.Set<Integer>> unrecorded = new java.util.LinkedHashMap<>();

    Builder(Cluster cluster, List<RankSegments> segments) {
      this.cluster = cluster;
      segments.forEach(x -> this.segments.put(x.rank(), x));
    }

    /**
     * Notes the MPI functions each rank called that apptrace passed through unrecorded
     * ({@link io.apptrace.job.RankTrace#unrecorded()}): the replay takes their time for the rank's own work.
     */
    Builder unrecorded(io.apptrace.job.Job job) {
      for (io.apptrace.job.RankTrace t : job.ranks()) {
        Map<String, Long> u = t.unrecorded();
        if (!u.isEmpty()) {
          StringBuilder b = new StringBuilder();
          u.forEach((f, n) -> b.append(b.isEmpty() ? "" : ", ").append(f).append(" x").append(n));
          unrecorded.computeIfAbsent(b.toString(), k -> new java.util.TreeSet<>()).add(t.rank());
        }
      }
      return this;
    }

    void account(int rank, MpiOp op, double gap, double inCall, double tracedSeconds) {
      double[] r = ranks.computeIfAbsent(rank, k -> new double[5]);
      r[1] += gap;
      if (op == MpiOp.MPI_INIT || op == MpiOp.MPI_FINALIZE) {
        r[4] += tracedSeconds;
      } else if (io.apptrace.job.CollectiveMatching.isCollective(op)) {
        r[3] += inCall;
      } else {
        r[2] += inCall;
      }
    }

    /** The rank's own work after its last MPI call. */
    void tail(int rank, double seconds) {
      ranks.computeIfAbsent(rank, k -> new double[5])[1] += seconds;
    }

    void rankEnd(int rank, double end) {
      ranks.computeIfAbsent(rank, k -> new double[5])[0] = end;
    }

    /** A message priced {@code p} that took {@code took} seconds from its injection to its arrival. */
    void message(Message m, MessageCost.Price p, double took, double nicWait) {
      int i = p.interNode() ? 2 : 0;
      counts[i]++;
      counts[i + 1] += m.bytes();
      seconds[i] += took;
      seconds[i + 1] += nicWait;
      (p.interNode() ? interPaths : intraPaths).merge(p.path(), 1L, Long::sum);
    }

    void collective(Collective c, CollectiveCost.Price p, boolean interNode) {
      Object[] v = collectives.computeIfAbsent(c.op(), k -> new Object[] {"", 0L, 0.0, 0L});
      v[0] = p.algorithm();
      v[1] = (Long) v[1] + 1;
      v[2] = (Double) v[2] + p.seconds();
      v[3] = (Long) v[3] + (interNode ? 1 : 0);
    }

    JobReplayResult build() {
      List<RankTime> rs = new ArrayList<>();
      double makespan = 0;
      for (Map.Entry<Integer, double[]> e : ranks.entrySet()) {
        double[] v = e.getValue();
        RankSegments seg = segments.get(e.getKey());
        rs.add(new RankTime(e.getKey(), cluster.nodeOf(e.getKey()), v[0], v[1], v[2], v[3], v[4], seg.kernelSeconds(),
            seg.copySeconds(), seg.hiddenSeconds(), 0));
        makespan = Math.max(makespan, v[0]);
      }
      List<CollectiveTime> cs = new ArrayList<>();
      collectives.forEach((op, v) -> cs.add(new CollectiveTime(op, (String) v[0], (Long) v[1], (Double) v[2],
          (Long) v[3])));
      return new JobReplayResult(cluster, makespan, rs,
          new Traffic(counts[0], counts[1], seconds[0], seconds[1], intraPaths),
          new Traffic(counts[2], counts[3], seconds[2], seconds[3], interPaths), cs, between(), notes(),
          Coupling.NONE, List.of());
    }

    private RankSegments.Source between() {
      boolean node = segments.values().stream().anyMatch(s -> s.source() == RankSegments.Source.NODE);
      return node ? RankSegments.Source.NODE : RankSegments.Source.TRACED;
    }

    /**
     * The node replays' notes, each once with the nodes that gave it (a node's ranks are replayed
     * together), then what the replay approximates.
     */
    private List<String> notes() {
      Map<String, java.util.Set<Integer>> byNote = new java.util.LinkedHashMap<>();
      java.util.Set<Integer> nodes = new java.util.TreeSet<>();
      for (RankSegments s : segments.values()) {
        int node = cluster.nodeOf(s.rank());
        nodes.add(node);
        for (String n : s.notes()) {
          byNote.computeIfAbsent(n, k -> new java.util.TreeSet<>()).add(node);
        }
      }
      List<String> out = new ArrayList<>();
      int all = nodes.size();
      byNote.forEach((n, ns) -> out.add((ns.size() == all ? all == 1 ? "the node" : "every node" : ns.size() == 1
          ? "node " + ns.iterator().next() : ns.size() + " nodes") + ": " + n));
      unrecorded.forEach((functions, ranks) -> out.add((ranks.size() == 1 ? "rank " : "ranks ")
          + ranks.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
          + ": MPI calls apptrace does not record (" + functions + ") are NOT replayed as MPI: their time is"
          + " counted as the rank's own work and what they send is not priced"));
      out.addAll(RankSegments.approximations(between()));
      return out;
    }
  }
}
