package io.apptrace.replay;

import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The what-if {@code async-copies} (docs/REPLAY.md, "Application what-ifs"): a synchronous copy
 * from pinned host memory to a GPU becomes a cudaMemcpyAsync on a copy stream of its own, so the
 * host goes on at once. It still starts after everything issued before it on its own stream (an
 * event recorded there, waited for on the copy stream), and the first later operation of each
 * stream that reads or overwrites what it writes waits for an event recorded after it, as the
 * DVDG's dependencies require. Copies to the host stay synchronous: the host reads their result,
 * and the trace does not record when. Pageable copies stay synchronous too (the driver stages
 * them; combine with {@code pin-pageable}). The trace does not see the host's own writes either:
 * a program that refills the source buffer right after the copy returns needs it synchronous.
 */
final class AsyncCopies {
  private AsyncCopies() {}

  static String apply(ProgramEdit e, ProgramValues values) {
    int[][] issuers = e.issuers();
    Map<Long, Integer> copyStreams = new HashMap<>();
    Map<Integer, int[]> made = new HashMap<>(); // copy -> {copy stream, event before, event done}
    Map<Integer, List<int[]>> waits = new HashMap<>(); // dependent op -> {stream, event}
    Map<Integer, List<Integer>> byAllocation = byAllocation(e, values);
    for (ReplayProgram.Op o : e.ops()) {
      if (!o.synchronous() || o.transfer() != TransferKind.PINNED_H2D || e.isDropped(o.id())
          || issuers[o.id()] == null) {
        continue;
      }
      int pid = e.pid(issuers[o.id()][0]);
      int cs = copyStreams.computeIfAbsent(((long) pid << 32) | o.device(), k -> e.newStream(pid, o.device()));
      int[] m = {cs, e.newEvent(), e.newEvent()};
      made.put(o.id(), m);
      e.set(ProgramEdit.with(o, o.transfer(), o.bytes(), cs, false));
      Set<Integer> waited = new HashSet<>(List.of(cs));
      for (ProgramValues.Region w : values.writes(o.id())) {
        for (int later : byAllocation.getOrDefault(w.allocation(), List.of())) {
          if (later <= o.id() || e.isDropped(later) || !values.dependsOn(later, o.id())) {
            continue;
          }
          if (waited.add(e.op(later).stream())) {
            waits.computeIfAbsent(later, k -> new ArrayList<>()).add(new int[] {e.op(later).stream(), m[2]});
          }
          if (values.writes(later).stream().anyMatch(w::overlaps)) {
            break; // what it wrote is replaced: later readers depend on the new writer
          }
        }
      }
    }
    for (int t = 0; t < e.threads(); t++) {
      e.rewrite(t, c -> {
        int op = c.issuedOp();
        if (op < 0 || (!made.containsKey(op) && !waits.containsKey(op))) {
          return List.of(c);
        }
        List<ReplayProgram.Call> out = new ArrayList<>();
        for (int[] w : waits.getOrDefault(op, List.of())) {
          out.add(new ReplayProgram.Call(new HostCall.WaitEvent(w[0], w[1]), c.entryNs(), 0, "cudaStreamWaitEvent"));
        }
        int[] m = made.get(op);
        if (m == null) {
          out.add(c);
          return out;
        }
        int own = ((HostCall.IssueOp) c.what()).stream();
        out.add(new ReplayProgram.Call(new HostCall.RecordEvent(own, m[1]), c.entryNs(), 0, "cudaEventRecord"));
        out.add(new ReplayProgram.Call(new HostCall.WaitEvent(m[0], m[1]), c.entryNs(), 0, "cudaStreamWaitEvent"));
        out.add(new ReplayProgram.Call(new HostCall.IssueOp(op, m[0]), c.entryNs(), c.durationNs(), "cudaMemcpyAsync",
            c.bytes(), c.offCpuNs()));
        out.add(new ReplayProgram.Call(new HostCall.RecordEvent(m[0], m[2]), c.entryNs() + c.durationNs(), 0,
            "cudaEventRecord"));
        return out;
      });
    }
    return String.format(Locale.ROOT, "%d synchronous cop%s to a GPU made asynchronous on a copy stream", made.size(),
        made.size() == 1 ? "y" : "ies");
  }

  /** The operations touching each allocation, in id order. */
  private static Map<Integer, List<Integer>> byAllocation(ProgramEdit e, ProgramValues values) {
    Map<Integer, List<Integer>> out = new HashMap<>();
    for (int op = 0; op < e.ops().size(); op++) {
      Set<Integer> seen = new HashSet<>();
      for (ProgramValues.Region r : values.reads(op)) {
        if (seen.add(r.allocation())) {
          out.computeIfAbsent(r.allocation(), k -> new ArrayList<>()).add(op);
        }
      }
      for (ProgramValues.Region r : values.writes(op)) {
        if (seen.add(r.allocation())) {
          out.computeIfAbsent(r.allocation(), k -> new ArrayList<>()).add(op);
        }
      }
    }
    return out;
  }
}
