package io.apptrace.replay;

import io.apptrace.cost.MessageCost;
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
 * The rule that an MPI call's wait runs while the rank's GPU work goes on (docs/JOBS.md, "Replay on
 * a cluster", overlap), as a fixed point of the node replays and the network's replay.
 * Iteration 0 replays each node's ranks ({@link RankOnNode}) with their MPI calls taking no time,
 * and the job's MPI calls on the network ({@link JobReplay}) with the rank's own work between them
 * that this gives. Each later iteration replays the nodes again with every MPI call holding its
 * thread until the network's replay returned from it ({@link HostCall.Held}: work the rank issued
 * before the call runs on meanwhile, so the rank's next wait for it is shorter), on the node's
 * clock from the moment its last rank entered its first MPI call (job time 0: every rank leaves
 * MPI_Init at 0, so the ranks of a node leave it together, and leave a collective together as
 * they do in the job), and the network again with the new segments, until no call's return moved
 * by more than {@link #TOLERANCE_NS} (the node replay's clock counts whole nanoseconds: a smaller
 * move is the rounding of the network's seconds, and cannot change what the next node replay does
 * by more) or {@link #MAX_ITERATIONS} were run (the result says so). The calls are held until a
 * time, not for a duration, so that the node replay keeps the job's timeline where the two
 * agree: held for durations, ranks that leave an MPI_Allreduce together in the job could leave it
 * apart on the node, and ranks sharing a GPU would then take it in another order each iteration.
 *
 * <p>A node is <em>settled</em> ({@link RankOnNode.Replayed#settled()}) when its ranks share
 * nothing the node replay shares (each its own GPUs, at most one of them with copies, kernels that
 * reach host memory or managed memory, one thread each) and none had GPU work in flight when it
 * entered an MPI call:
 * holding a call longer then only moves the rank's later work by as much, so its segments cannot
 * change; it is not replayed again (nor its program kept), and its calls' times do not count in
 * the convergence. A job whose nodes are all settled stops after iteration 0.
 *
 * <p>Why it converges on the programs it was tried on: a segment only shrinks when a call is held
 * longer (the GPU work in flight has more time to end) and never below the rank's host work, nor
 * above iteration 0's; the network's replay turns segments into call times that are again fixed by
 * the messages and collectives. No proof covers every job (the network's NIC order, and the
 * sharing between the ranks of a node, can change with the segments): the cap keeps a job that
 * does not settle from running on, and its output says so.
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

  private static JobReplayResult replay(Job job, NodeRanks.Programs programs, Cluster cluster, Replayer.Options options,
      int maxIterations) throws IOException, TraceException, ReplayException, NodeFileException {
    JobReplay.checkHolds(job, cluster);
    Map<Integer, List<RankTrace>> byNode = new TreeMap<>();
    for (RankTrace t : job.ranks()) {
      byNode.computeIfAbsent(cluster.nodeOf(t.rank()), k -> new ArrayList<>()).add(t);
    }
    List<List<RankTrace>> groups = new ArrayList<>(byNode.values());
    List<Integer> nodeIds = new ArrayList<>(byNode.keySet());
    // the matching is made once iteration 0 has dropped the settled nodes' programs (less memory at
    // once), unless a node's replay needs the messages' copies before
    JobMatching[] matching = new JobMatching[1];
    MessageCost cost = new MessageCost(cluster);
    Map<List<Object>, MessageCost.Price> prices = new java.util.HashMap<>();
    List<long[][]> held = new ArrayList<>();
    List<long[][]> ncclHeld = new ArrayList<>();
    for (List<RankTrace> ranks : groups) {
      held.add(ranks.stream().map(t -> new long[t.calls().size()]).toArray(long[][]::new));
    }
    // iteration 0: each node's ranks merged and replayed; a settled node's program is not kept
    List<NodeRanks> nodes = new ArrayList<>();
    List<RankOnNode.Replayed> replayed = new ArrayList<>();
    Map<Integer, List<NcclLaunches.Launch>> launches = new TreeMap<>();
    for (First x : perNode(groups.size(), g -> {
      NodeRanks node = NodeRanks.of(groups.get(g), programs, cluster, options.deviceMap());
      if (node.linkWork()) { // the messages' copies share the links with the ranks' own
        if (matching[0] == null) {
          matching[0] = JobMatching.of(job);
        }
        node = node.withLegs(MessageLegs.on(nodeIds.get(g), matching[0], cost, prices));
      }
      long[][] nccl = new long[groups.get(g).size()][];
      for (int k = 0; k < nccl.length; k++) {
        nccl[k] = new long[node.launches(k).size()];
        launches.put(groups.get(g).get(k).rank(), node.launches(k));
      }
      ncclHeld.add(nccl);
      RankOnNode.Replayed r = RankOnNode.replay(node, cluster, options, held.get(g), nccl, null);
      return new First(r.settled() ? null : node, r);
    })) {
      nodes.add(x.node());
      replayed.add(x.replayed());
    }
    JobMatching matched = matching[0] != null ? matching[0] : JobMatching.of(job);
    NcclReplay nccl = new NcclReplay(job, cluster, launches);
    List<double[]> legStarts = new ArrayList<>(java.util.Collections.nCopies(groups.size(), (double[]) null));
    NcclReplay.Accounting ncclTimes;
    JobReplayResult result;
    long change;
    int iteration = 0;
    while (true) {
      if (iteration > 0) {
        // a settled node's segments cannot change: it is not replayed again
        List<Integer> again = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
          if (!replayed.get(g).settled()) {
            again.add(g);
          }
        }
        List<RankOnNode.Replayed> fresh = perNode(again.size(), i -> RankOnNode.replay(nodes.get(again.get(i)),
            cluster, options, held.get(again.get(i)), ncclHeld.get(again.get(i)), legStarts.get(again.get(i))));
        for (int i = 0; i < again.size(); i++) {
          replayed.set(again.get(i), fresh.get(i));
        }
      }
      List<RankSegments> segments = new ArrayList<>();
      List<double[]> firstCalls = new ArrayList<>();
      List<Boolean> settled = new ArrayList<>();
      for (RankOnNode.Replayed r : replayed) {
        segments.addAll(r.segments());
        firstCalls.add(r.firstCallNs());
        settled.add(r.settled());
      }
      JobReplay network = new JobReplay(job, cluster, segments, matched);
      if (nodes.stream().anyMatch(x -> x != null && x.legs() != null)) {
        double[][] legSeconds = new double[matched.messages().size()][];
        for (int g = 0; g < groups.size(); g++) {
          if (nodes.get(g) != null && nodes.get(g).legs() != null) {
            nodes.get(g).legs().took(replayed.get(g).legSeconds(), legSeconds);
          }
        }
        network.withLegs(legSeconds);
      }
      result = network.run();
      double[] zeros = zeros(firstCalls);
      long legMoved = 0;
      for (int g = 0; g < groups.size(); g++) {
        MessageLegs legs = nodes.get(g) == null ? null : nodes.get(g).legs();
        if (legs != null) {
          double[] starts = legs.startsNs(network, zeros[g]);
          legMoved = Math.max(legMoved, moved(legStarts.get(g), starts));
          legStarts.set(g, starts);
        }
      }
      ncclTimes = new NcclReplay.Accounting();
      Map<Integer, double[]> ncclEnds = nccl.any() ? nccl.ends(ncclStarts(groups, replayed, zeros), ncclTimes)
          : Map.of();
      iteration++;
      change = Math.max(legMoved, Math.max(nextHeld(groups, held, zeros, settled, network),
          nextNcclHeld(groups, ncclHeld, zeros, ncclEnds)));
      if (change <= TOLERANCE_NS || iteration >= maxIterations) {
        break;
      }
    }
    return result.withCoupling(new JobReplayResult.Coupling(iteration, change <= TOLERANCE_NS, change / 1e9,
        TOLERANCE_NS / 1e9)).withNccl(ncclTimes.times(), ncclTimes.perRank(), ncclTimes.notes());
  }

  /** The most a leg's start moved, ns (a leg that starts now and did not before: its start). */
  private static long moved(double[] before, double[] now) {
    long most = 0;
    for (int k = 0; k < now.length; k++) {
      double b = before == null || Double.isNaN(before[k]) ? 0 : before[k];
      double n = Double.isNaN(now[k]) ? 0 : now[k];
      most = Math.max(most, Math.round(Math.abs(n - b)));
    }
    return most;
  }

  /**
   * Per node, its job time 0 on its clock: when its last rank entered its first MPI call (every
   * rank leaves it at 0 in the job); 0 for a node whose ranks make none.
   */
  private static double[] zeros(List<double[]> firstCalls) {
    double[] out = new double[firstCalls.size()];
    for (int g = 0; g < out.length; g++) {
      double zero = Double.NEGATIVE_INFINITY;
      for (double f : firstCalls.get(g)) {
        if (!Double.isNaN(f)) {
          zero = Math.max(zero, f);
        }
      }
      out[g] = zero == Double.NEGATIVE_INFINITY ? 0 : zero;
    }
    return out;
  }

  /** Per world rank, per NCCL launch: when its stream got to it, seconds of the job's time. */
  private static Map<Integer, double[]> ncclStarts(List<List<RankTrace>> nodes, List<RankOnNode.Replayed> replayed,
      double[] zeros) {
    Map<Integer, double[]> out = new java.util.HashMap<>();
    for (int g = 0; g < nodes.size(); g++) {
      for (int k = 0; k < nodes.get(g).size(); k++) {
        double[] ns = replayed.get(g).ncclStartNs()[k];
        double[] s = new double[ns.length];
        for (int j = 0; j < ns.length; j++) {
          s[j] = (ns[j] - zeros[g]) / 1e9;
        }
        out.put(nodes.get(g).get(k).rank(), s);
      }
    }
    return out;
  }

  /** Holds each NCCL launch until the end {@link NcclReplay} gave it, on its node's clock; returns the largest move, ns. */
  private static long nextNcclHeld(List<List<RankTrace>> nodes, List<long[][]> held, double[] zeros,
      Map<Integer, double[]> ends) {
    long change = 0;
    for (int g = 0; g < nodes.size(); g++) {
      for (int k = 0; k < nodes.get(g).size(); k++) {
        double[] end = ends.get(nodes.get(g).get(k).rank());
        long[] h = held.get(g)[k];
        for (int j = 0; end != null && j < h.length; j++) {
          long ns = Double.isNaN(end[j]) ? 0 : Math.round(zeros[g] + end[j] * 1e9);
          change = Math.max(change, Math.abs(ns - h[j]));
          h[j] = ns;
        }
      }
    }
    return change;
  }

  /** A node's iteration 0: its ranks' merged program (null once settled: never replayed again), and its replay. */
  private record First(NodeRanks node, RankOnNode.Replayed replayed) {}

  /** Work on node {@code g} (its index among the job's nodes). */
  private interface NodeWork<T> {
    T on(int g) throws IOException, TraceException, ReplayException, NodeFileException;
  }

  /** {@code work} on each of {@code n} nodes, in turn; the results in the nodes' order. */
  private static <T> List<T> perNode(int n, NodeWork<T> work)
      throws IOException, TraceException, ReplayException, NodeFileException {
    List<T> out = new ArrayList<>();
    for (int g = 0; g < n; g++) {
      out.add(work.on(g));
    }
    return out;
  }

  /**
   * Holds each MPI call until the network's replay returned from it, on the node's clock: job time
   * 0 is when the node's last rank entered its first MPI call (every rank leaves it at 0 in the
   * job, so the node's ranks leave it together); returns the largest move, ns.
   */

  private static long nextHeld(List<List<RankTrace>> nodes, List<long[][]> held, double[] zeros,
      List<Boolean> settled, JobReplay network) {
    long change = 0;
    for (int g = 0; g < nodes.size(); g++) {
      if (settled.get(g)) {
        continue; // its calls' times move nothing there
      }
      List<RankTrace> node = nodes.get(g);
      double zero = zeros[g];
      for (int k = 0; k < node.size(); k++) {
        RankTrace t = node.get(k);
        long[] h = held.get(g)[k];
        for (int i = 0; i < h.length; i++) {
          long ns = Math.round(zero + network.exitSeconds(t.rank(), i) * 1e9);
          change = Math.max(change, Math.abs(ns - h[i]));
          h[i] = ns;
        }
      }
    }
    return change;
  }

}
