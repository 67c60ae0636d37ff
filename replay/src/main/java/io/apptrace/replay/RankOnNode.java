package io.apptrace.replay;

import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import io.apptrace.proto.MpiOp;
import io.apptrace.trace.ApiNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ranks of one node re-projected on the cluster's node model (docs/JOBS.md, "Replay on a
 * cluster"): their merged program ({@link NodeRanks}) is replayed on the node as a single trace is,
 * with each MPI call held until the job's replay returned from it ({@link HostCall.Held}: the thread
 * waits, the GPUs go on with what it issued before). Where each rank's timeline stands at each MPI
 * call gives its own work between its MPI calls ({@link RankSegments}), which {@link JobReplay} then
 * runs between the communication it prices; {@link JobOverlap} repeats the two until they agree.
 * It also says whether the node is settled (its segments cannot change with the calls' times) and,
 * per rank, how long its MPI calls held it while its own GPU work ran (communication hidden behind
 * it).
 */
public final class RankOnNode {
  private RankOnNode() {}

  /**
   * One replay of a node's ranks.
   *
   * @param segments per rank of the node, in {@link NodeRanks#ranks()}' order
   * @param firstCallNs per rank, when it entered its first MPI call on the node's timeline (NaN: it
   *     makes none)
   * @param ncclStartNs per rank, per NCCL launch ({@link NcclLaunches}): when its stream got to it
   *     on the node's timeline (NaN: never)
   * @param legSeconds per message copy on the node ({@link NodeRanks#legs()}): how long it took from
   *     its issue to its end, seconds (NaN: not issued; empty: none)
   * @param settled holding the node's MPI calls for other times cannot change its segments: its
   *     ranks share nothing ({@link NodeRanks#sharesNothing()}) and none had GPU work in flight when
   *     it entered an MPI call, so a call held longer only moves the rank's later work by as much
   */
  record Replayed(List<RankSegments> segments, double[] firstCallNs, double[][] ncclStartNs, double[] legSeconds,
      boolean settled) {}

  /**
   * Replays the node's ranks with rank {@code k}'s MPI call {@code i} held until {@code heldNs[k][i]} on
   * the node's clock, its NCCL launch {@code j} until {@code ncclNs[k][j]}, and the messages' copies
   * on the node issued at {@code legStartNs} (null: none).
   *
   * @throws ReplayException when the merged program cannot run on the node
   */
  static Replayed replay(NodeRanks ranks, Cluster cluster, Replayer.Options options, long[][] heldNs,
      long[][] ncclNs, double[] legStartNs) throws ReplayException, NodeFileException {
    Replayer.Options o = options.withSamples(false).withDeviceMap(Map.of()); // the merge mapped the devices
    ReplayResult r;
    try {
      r = Replayer.replay(ranks.held(heldNs, ncclNs, legStartNs), cluster.node(), o);
    } catch (ReplayException e) {
      RankTrace first = ranks.ranks().get(0);
      throw new ReplayException(first.file() + ": " + (ranks.ranks().size() == 1 ? "rank " + first.rank()
          : "the ranks of node " + cluster.nodeOf(first.rank())) + ": " + e.getMessage());
    }
    List<RankSegments> out = new ArrayList<>();
    double[] firstCall = new double[ranks.ranks().size()];
    double[][] ncclStart = new double[ranks.ranks().size()][];
    boolean settled = ranks.sharesNothing();
    for (int k = 0; k < ranks.ranks().size(); k++) {
      RankTrace rank = ranks.ranks().get(k);
      int n = rank.calls().size();
      double[] before = new double[n];
      double lastExit = 0;
      double[] entry = new double[n];
      double[] exit = new double[n];
      for (int i = 0; i < n; i++) {
        int[] at = ranks.mpiCall(k, i);
        ReplayResult.CallTimes t = r.calls().get(at[0]).get(at[1]);
        entry[i] = t.startNs();
        exit[i] = t.endNs();
        // the rank's own work since its previous MPI call returned: never the calls' held time
        before[i] = i == 0 ? 0 : Math.max(0, entry[i] - lastExit) / 1e9;
        lastExit = i == 0 ? exit[i] : Math.max(lastExit, exit[i]);
      }
      firstCall[k] = n == 0 ? Double.NaN : entry[0];
      double end = 0;
      for (int t = ranks.firstThread(k); t < ranks.endThread(k); t++) {
        for (ReplayResult.CallTimes c : r.calls().get(t)) {
          end = Math.max(end, c.endNs());
        }
      }
      double kernels = 0;
      double copies = 0;
      List<double[]> busy = new ArrayList<>();
      for (int op = ranks.firstOp(k); op < ranks.endOp(k); op++) {
        ReplayResult.OpTimes t = r.ops().get(op);
        if (Double.isNaN(t.startNs())) {
          continue;
        }
        end = Math.max(end, t.endNs());
        ReplayProgram.Kind kind = ranks.program().ops().get(op).kind();
        if (kind == ReplayProgram.Kind.COLLECTIVE) {
          continue; // communication, timed by the job's replay: neither the rank's own work nor busy
        }
        if (kind == ReplayProgram.Kind.KERNEL) {
          kernels += t.durationNs() / 1e9;
        } else {
          copies += t.durationNs() / 1e9;
        }
        if (r.gpu(op) >= 0) {
          busy.add(new double[] {t.startNs(), t.endNs()});
        }
      }
      double tail = n == 0 ? end / 1e9 : Math.max(0, end - lastExit) / 1e9;
      double hidden = hidden(rank, entry, exit, busy) / 1e9;
      settled = settled && !inFlight(ranks, k, r);
      ncclStart[k] = new double[ranks.launches(k).size()];
      for (int j = 0; j < ncclStart[k].length; j++) {
        ncclStart[k][j] = r.ops().get(ranks.ncclOp(k, j)).startNs();
      }
      out.add(new RankSegments(rank.rank(), before, tail, kernels, copies, hidden, RankSegments.Source.NODE,
          r.notes()));
    }
    double[] legSeconds = new double[ranks.legs() == null ? 0 : ranks.legs().refs().size()];
    for (int k = 0; k < legSeconds.length; k++) {
      ReplayResult.OpTimes t = r.ops().get(ranks.legs().op(k));
      legSeconds[k] = (t.endNs() - t.issueNs()) / 1e9;
    }
    return new Replayed(out, firstCall, ncclStart, legSeconds, settled);
  }

  /**
   * Whether GPU work rank {@code k} issued was still running when one of its threads entered an MPI
   * call: each thread's calls in order, the latest end of the operations they issued so far against
   * each held call's start.
   */
  static boolean inFlight(NodeRanks ranks, int k, ReplayResult r) {
    for (int t = ranks.firstThread(k); t < ranks.endThread(k); t++) {
      List<ReplayProgram.Call> calls = ranks.program().threads().get(t).calls();
      double lastEnd = Double.NEGATIVE_INFINITY;
      for (int i = 0; i < calls.size(); i++) {
        ReplayProgram.Call c = calls.get(i);
        if (c.what() instanceof HostCall.Held && lastEnd > r.calls().get(t).get(i).startNs()) {
          return true;
        }
        for (int op : c.issuedOps()) {
          double end = r.ops().get(op).endNs();
          lastEnd = Math.max(lastEnd, Double.isNaN(end) ? Double.POSITIVE_INFINITY : end);
        }
      }
    }
    return false;
  }


  /**
   * How long the rank's MPI calls (not MPI_Init and MPI_Finalize) held its thread while its GPU work
   * ran: each call's span against the union of its operations' spans, ns.
   */
  static double hidden(RankTrace rank, double[] entry, double[] exit, List<double[]> busy) {
    busy.sort((a, b) -> Double.compare(a[0], b[0]));
    // the union of the operations' spans, as disjoint intervals in time order
    List<double[]> union = new ArrayList<>();
    for (double[] b : busy) {
      double[] last = union.isEmpty() ? null : union.get(union.size() - 1);
      if (last != null && b[0] <= last[1]) {
        last[1] = Math.max(last[1], b[1]);
      } else {
        union.add(new double[] {b[0], b[1]});
      }
    }
    double[] starts = union.stream().mapToDouble(x -> x[0]).toArray();
    double sum = 0;
    for (int i = 0; i < entry.length; i++) {
      MpiOp op = rank.calls().get(i).call().getOp();
      if (op == MpiOp.MPI_INIT || op == MpiOp.MPI_FINALIZE || !(exit[i] > entry[i])) {
        continue;
      }
      int j = Arrays.binarySearch(starts, entry[i]);
      j = j >= 0 ? j : Math.max(0, -j - 2);
      for (; j < union.size() && union.get(j)[0] < exit[i]; j++) {
        sum += Math.max(0, Math.min(exit[i], union.get(j)[1]) - Math.max(entry[i], union.get(j)[0]));
      }
    }
    return sum;
  }

  private record CallKey(int pid, int tid, long entryNs) {}

  /** For each MPI call of the rank, in its order: the program thread and the index of its call there. */
  static int[][] positions(RankTrace rank, ReplayProgram program) throws ReplayException {
    Map<CallKey, int[]> byKey = new HashMap<>();
    for (int t = 0; t < program.threads().size(); t++) {
      ReplayProgram.HostThread h = program.threads().get(t);
      List<ReplayProgram.Call> calls = h.calls();
      for (int i = 0; i < calls.size(); i++) {
        if (ApiNames.isMpi(calls.get(i).name())) {
          byKey.put(new CallKey(h.pid(), h.tid(), calls.get(i).entryNs()), new int[] {t, i});
        }
      }
    }
    int[][] at = new int[rank.calls().size()][];
    for (MpiEvent e : rank.calls()) {
      int[] p = byKey.get(new CallKey(e.pid(), e.tid(), e.entryNs()));
      if (p == null) {
        throw new ReplayException(rank.file() + ": rank " + rank.rank() + "'s MPI call " + e.index() + " ("
            + ApiNames.mpi(e.call().getOp()) + ") is not among its program's calls");
      }
      at[e.index()] = p;
    }
    return at;
  }
}
