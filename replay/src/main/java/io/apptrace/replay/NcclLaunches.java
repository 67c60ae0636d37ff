package io.apptrace.replay;

import io.apptrace.job.NcclEvent;
import io.apptrace.job.NcclMatching;
import io.apptrace.job.RankTrace;
import io.apptrace.proto.NcclOp;
import io.apptrace.trace.ApiNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The work a rank's NCCL calls put on its streams (docs/JOBS.md, "NCCL"): each collective, send or
 * receive made outside a group is one launch at its call; those made between {@code ncclGroupStart}
 * and the outermost {@code ncclGroupEnd} of a thread are one launch at that {@code ncclGroupEnd}, as
 * NCCL runs a group's operations as one kernel (on the first one's stream). Calls that failed, and
 * calls that put nothing on a stream (communicators, groups themselves), launch nothing.
 */
final class NcclLaunches {
  /**
   * One launch.
   *
   * @param thread the program's thread of the call that launches it
   * @param call that call's index among the thread's calls
   * @param pid the process (as the trace numbers it)
   * @param stream the stream handle of its first operation (0: the default stream)
   * @param parts the NCCL calls it runs, in the order they were made
   */
  record Launch(int thread, int call, int pid, long stream, List<NcclEvent> parts) {
    /** Its name on a timeline: the NCCL function, or {@code ncclGroupEnd} for a group. */
    String name() {
      return parts.size() == 1 ? ApiNames.nccl(parts.get(0).call().getOp()) : "ncclGroupEnd";
    }

    /** Its bytes: the largest buffer of its parts. */
    long bytes() {
      return parts.stream().mapToLong(e -> e.call().getBytes()).max().orElse(0);
    }
  }

  private NcclLaunches() {}

  /** Whether an NCCL call puts work on its stream. */
  static boolean launches(NcclOp op) {
    return NcclMatching.isCollective(op) || op == NcclOp.NCCL_SEND || op == NcclOp.NCCL_RECV;
  }

  /**
   * The merged stream a launch of a rank's program {@code p} runs on: its stream in the program (the
   * default stream for handle 0; the merged program numbers them from {@code base}), or, when the
   * program has none such (no other work used it), a new stream of {@code pid} (the rank's process,
   * as merged) on {@code device}, added to {@code streams}.
   */
  static int stream(ReplayProgram p, Launch l, List<io.apptrace.graph.CallLog.Stream> streams, int base, int pid,
      int device) {
    for (int s = 0; s < p.streams().size(); s++) {
      io.apptrace.graph.CallLog.Stream x = p.streams().get(s);
      if (x.pid() == l.pid() && (l.stream() == 0 ? x.legacy() : x.handle() == l.stream())) {
        return s + base;
      }
    }
    streams.add(new io.apptrace.graph.CallLog.Stream(pid, device, l.stream() == 0, true, false, l.stream()));
    return streams.size() - 1;
  }

  private record CallKey(int pid, int tid, long entryNs) {}

  /**
   * The launches of {@code rank}'s NCCL calls in its program {@code program}, in the order they were
   * made.
   *
   * @throws ReplayException when an NCCL call of the rank is not among its program's calls
   */
  static List<Launch> of(RankTrace rank, ReplayProgram program) throws ReplayException {
    if (rank.ncclCalls().isEmpty()) {
      return List.of();
    }
    Map<CallKey, int[]> byKey = new HashMap<>();
    for (int t = 0; t < program.threads().size(); t++) {
      ReplayProgram.HostThread h = program.threads().get(t);
      List<ReplayProgram.Call> calls = h.calls();
      for (int i = 0; i < calls.size(); i++) {
        if (ApiNames.isNccl(calls.get(i).name())) {
          byKey.put(new CallKey(h.pid(), h.tid(), calls.get(i).entryNs()), new int[] {t, i});
        }
      }
    }
    List<Launch> out = new ArrayList<>();
    Map<Long, Integer> depth = new HashMap<>(); // per thread (pid << 32 | tid)
    Map<Long, List<NcclEvent>> pending = new HashMap<>();
    for (NcclEvent e : rank.ncclCalls()) {
      NcclOp op = e.call().getOp();
      long thread = (long) e.pid() << 32 | (e.tid() & 0xffffffffL);
      int d = depth.getOrDefault(thread, 0);
      if (op == NcclOp.NCCL_GROUP_START) {
        depth.put(thread, d + 1);
      } else if (op == NcclOp.NCCL_GROUP_END && d > 0) {
        depth.put(thread, d - 1);
        List<NcclEvent> parts = pending.get(thread);
        if (d == 1 && parts != null && !parts.isEmpty()) {
          out.add(launch(rank, byKey, e, parts));
          pending.remove(thread);
        }
      } else if (launches(op) && e.result() == 0) {
        if (d > 0) {
          pending.computeIfAbsent(thread, k -> new ArrayList<>()).add(e);
        } else {
          out.add(launch(rank, byKey, e, List.of(e)));
        }
      }
    }
    return out;
  }

  private static Launch launch(RankTrace rank, Map<CallKey, int[]> byKey, NcclEvent at, List<NcclEvent> parts)
      throws ReplayException {
    int[] p = byKey.get(new CallKey(at.pid(), at.tid(), at.entryNs()));
    if (p == null) {
      throw new ReplayException(rank.file() + ": rank " + rank.rank() + "'s NCCL call "
          + ApiNames.nccl(at.call().getOp()) + " at " + at.entryNs() + " ns is not among its program's calls");
    }
    return new Launch(p[0], p[1], at.pid(), parts.get(0).call().getStream(), List.copyOf(parts));
  }
}
