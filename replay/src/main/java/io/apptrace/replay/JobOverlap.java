package io.apptrace.replay;

import io.apptrace.graph.DvdgBuilder;
import io.apptrace.job.Job;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rule that an MPI call's wait runs while the rank's GPU work goes on (docs/JOBS.md, "Overlap of
 * GPU work with communication"), as a fixed point of the node replays and the network's replay.
 * Iteration 0 replays each node's ranks ({@link RankOnNode}) with their MPI calls taking no time,
 * and the job's MPI calls on the network ({@link JobReplay}) with the rank's own work between them
 * that this gives. Each later iteration replays the nodes again with every MPI call holding its
 * thread for the time the network's replay gave it, entry to return ({@link HostCall.Held}: work
 * the rank issued before the call runs on meanwhile, so the rank's next wait for it is shorter),
 * and the network again with the new segments, until no call's time moved by more than
 * {@link #TOLERANCE_NS} (the node replay's clock counts whole nanoseconds: a smaller move is the
 * rounding of the network's seconds, and cannot change what the next node replay does by more) or
 * {@link #MAX_ITERATIONS} were run (the result says so). A rank's first MPI call (MPI_Init) also
 * holds it until the node's last rank has entered its own: in the job every rank leaves it at 0.
 *
 * <p>Why it converges on the programs it was tried on: a segment only shrinks when a call is held
 * longer (the GPU work in flight has more time to end) and never below the rank's host work, nor
 * above iteration 0's; the network's replay turns segments into call times that are again fixed by
 * the messages and collectives; where no GPU work is in flight at any MPI call and no other rank
 * shares the node, the second node replay gives the first one's segments and the iteration stops
 * there. No proof covers every job (the network's NIC order can change with the segments): the cap
 * keeps a job that does not settle from running on, and its output says so.
 */
public final class JobOverlap {
  /** Iterations at most (node replays, each followed by the network's). */
  public static final int MAX_ITERATIONS = 10;
  /** How far, in ns, a call's time may move in an iteration that ends the fixed point. */
  public static final long TOLERANCE_NS = 1;

  private JobOverlap() {}

  /** Reads each rank's program from its trace, then replays the job ({@link #replay(Job, List, Cluster, Replayer.Options, int)}). */
  public static JobReplayResult replay(Job job, Cluster cluster, Replayer.Options options)
      throws IOException, TraceException, ReplayException, NodeFileException {
    return replay(job, t -> ProgramBuilder.of(DvdgBuilder.build(t.file(), true)), cluster, options, MAX_ITERATIONS);
  }

  /**
   * Replays the job with {@code programs}, the programs of its ranks' traces (in {@link Job#ranks()}'
   * order), running at most {@code maxIterations}.
   */
  public static JobReplayResult replay(Job job, List<ReplayProgram> programs, Cluster cluster,
      Replayer.Options options, int maxIterations) throws ReplayException, NodeFileException {
    Map<RankTrace, ReplayProgram> byRank = new java.util.IdentityHashMap<>();
    for (int i = 0; i < job.ranks().size(); i++) {
      byRank.put(job.ranks().get(i), programs.get(i));
    }
    try {
      return replay(job, byRank::get, cluster, options, maxIterations);
    } catch (IOException | TraceException e) {
      throw new IllegalStateException(e); // the programs are given: nothing is read
    }
  }

  /** Where a rank's program comes from. */
  private interface Programs {
    ReplayProgram of(RankTrace t) throws IOException, TraceException;
  }

  private static JobReplayResult replay(Job job, Programs programs, Cluster cluster, Replayer.Options options,
      int maxIterations) throws IOException, TraceException, ReplayException, NodeFileException {
    JobReplay.checkHolds(job, cluster);
    Map<Integer, List<RankTrace>> byNode = new TreeMap<>();
    for (RankTrace t : job.ranks()) {
      byNode.computeIfAbsent(cluster.nodeOf(t.rank()), k -> new ArrayList<>()).add(t);
    }
    List<NodeRanks> nodes = new ArrayList<>();
    List<long[][]> held = new ArrayList<>();
    for (List<RankTrace> ranks : byNode.values()) {
      List<ReplayProgram> ps = new ArrayList<>();
      for (RankTrace t : ranks) {
        ps.add(programs.of(t));
      }
      nodes.add(NodeRanks.of(ranks, ps, cluster, options.deviceMap()));
      held.add(ranks.stream().map(t -> new long[t.calls().size()]).toArray(long[][]::new));
    }
    JobReplayResult result;
    long change;
    int iteration = 0;
    while (true) {
      List<RankSegments> segments = new ArrayList<>();
      List<double[]> firstCalls = new ArrayList<>();
      for (int g = 0; g < nodes.size(); g++) {
        RankOnNode.Replayed r = RankOnNode.replay(nodes.get(g), cluster, options, held.get(g));
        segments.addAll(r.segments());
        firstCalls.add(r.firstCallNs());
      }
      JobReplay network = new JobReplay(job, cluster, segments);
      result = network.run();
      iteration++;
      change = nextHeld(nodes, held, firstCalls, network);
      if (change <= TOLERANCE_NS || iteration >= maxIterations) {
        break;
      }
    }
    return result.withCoupling(new JobReplayResult.Coupling(iteration, change <= TOLERANCE_NS, change / 1e9,
        TOLERANCE_NS / 1e9));
  }

  /**
   * Sets each MPI call's held time to what the network's replay gave it (a rank's first call also
   * waits for the node's last rank to enter its own); returns the largest move, ns.
   */
  private static long nextHeld(List<NodeRanks> nodes, List<long[][]> held, List<double[]> firstCalls,
      JobReplay network) {
    long change = 0;
    for (int g = 0; g < nodes.size(); g++) {
      NodeRanks node = nodes.get(g);
      double[] first = firstCalls.get(g);
      double last = Double.NEGATIVE_INFINITY;
      for (double f : first) {
        if (!Double.isNaN(f)) {
          last = Math.max(last, f);
        }
      }
      for (int k = 0; k < node.ranks().size(); k++) {
        RankTrace t = node.ranks().get(k);
        long[] h = held.get(g)[k];
        for (int i = 0; i < h.length; i++) {
          long ns = Math.round(network.inCallSeconds(t.rank(), i) * 1e9);
          if (i == 0) {
            ns += Math.round(last - first[k]);
          }
          change = Math.max(change, Math.abs(ns - h[i]));
          h[i] = ns;
        }
      }
    }
    return change;
  }
}
