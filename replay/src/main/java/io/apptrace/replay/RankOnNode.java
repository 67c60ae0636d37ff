package io.apptrace.replay;

import io.apptrace.graph.DvdgBuilder;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A rank's own work re-projected on the cluster's node model (docs/JOBS.md, "Replay on a
 * cluster"): the rank's program is replayed on the node as a single trace is, on the GPU the
 * cluster gives the rank, with each of its MPI calls taking no time (the host work around it stays,
 * {@link HostCall.NotMade}); where the rank's timeline stands at each MPI call gives the work
 * between its MPI calls, which {@link JobReplay} then runs between the communication it prices.
 *
 * <p>What this approximates: the node replay does not know how long an MPI call will wait, so GPU
 * work issued before an MPI call and still running when the call is made does not overlap the
 * call's wait in the job (a rank that hides communication behind kernels is projected as if it did
 * not: an upper bound there); each rank has its node to itself (ranks sharing a node do not share
 * its links, host memory or GPUs in this replay; their messages do share its NIC).
 */
public final class RankOnNode {
  private RankOnNode() {}

  /** Every rank of the job, each read and replayed in turn ({@link #replay(RankTrace, Cluster, Replayer.Options)}). */
  public static List<RankSegments> replay(io.apptrace.job.Job job, Cluster cluster, Replayer.Options options)
      throws IOException, TraceException, ReplayException, NodeFileException {
    List<RankSegments> out = new java.util.ArrayList<>();
    for (RankTrace t : job.ranks()) {
      out.add(replay(t, cluster, options));
    }
    return out;
  }

  /** Reads the rank's trace, builds its program and replays it ({@link #replay}). */
  public static RankSegments replay(RankTrace rank, Cluster cluster, Replayer.Options options)
      throws IOException, TraceException, ReplayException, NodeFileException {
    ReplayProgram program = ProgramBuilder.of(DvdgBuilder.build(rank.file(), true));
    return replay(rank, program, cluster, options);
  }

  /**
   * Replays {@code program}, the program of {@code rank}'s trace, on the cluster's node.
   *
   * @throws ReplayException when an MPI call of the rank is not among the program's calls, or the
   *     program cannot run on the node
   */
  public static RankSegments replay(RankTrace rank, ReplayProgram program, Cluster cluster, Replayer.Options options)
      throws ReplayException, NodeFileException {
    int[][] at = positions(rank, program);
    ReplayProgram quiet = withoutMpiTime(program);
    Replayer.Options o = options.withSamples(false);
    List<Integer> devices = program.devices();
    if (devices.size() == 1 && o.deviceMap().isEmpty()) {
      o = o.withDeviceMap(Map.of(devices.get(0), cluster.gpuOf(rank.rank())));
    }
    ReplayResult r;
    try {
      r = Replayer.replay(quiet, cluster.node(), o);
    } catch (ReplayException e) {
      throw new ReplayException(rank.file() + ": rank " + rank.rank() + ": " + e.getMessage());
    }
    double[] before = new double[at.length];
    double last = 0;
    for (int i = 0; i < at.length; i++) {
      double here = r.calls().get(at[i][0]).get(at[i][1]).startNs();
      before[i] = i == 0 ? 0 : Math.max(0, here - last) / 1e9;
      last = Math.max(last, here);
    }
    double tail = at.length == 0 ? r.makespanNs() / 1e9 : Math.max(0, r.makespanNs() - last) / 1e9;
    double kernels = 0;
    double copies = 0;
    for (ReplayResult.OpTimes t : r.ops()) {
      if (Double.isNaN(t.startNs())) {
        continue;
      }
      if (program.ops().get(t.op()).kind() == ReplayProgram.Kind.KERNEL) {
        kernels += t.durationNs() / 1e9;
      } else {
        copies += t.durationNs() / 1e9;
      }
    }
    return new RankSegments(rank.rank(), before, tail, kernels, copies, RankSegments.Source.NODE, r.notes());
  }

  private record CallKey(int pid, int tid, long entryNs) {}

  /** For each MPI call of the rank, in its order: the program thread and the index of its call there. */
  private static int[][] positions(RankTrace rank, ReplayProgram program) throws ReplayException {
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

  /** The program with every MPI call taking no time. */
  private static ReplayProgram withoutMpiTime(ReplayProgram p) {
    ProgramEdit edit = new ProgramEdit(p);
    for (int t = 0; t < edit.threads(); t++) {
      List<ReplayProgram.Call> calls = edit.calls(t);
      for (int i = 0; i < calls.size(); i++) {
        ReplayProgram.Call c = calls.get(i);
        if (ApiNames.isMpi(c.name())) {
          calls.set(i, new ReplayProgram.Call(new HostCall.NotMade(), c.entryNs(), c.durationNs(), c.name(), 0,
              c.offCpuNs()));
        }
      }
    }
    return edit.build();
  }
}
