package io.apptrace.replay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The what-if {@code streams=N} (docs/REPLAY.md, "Application what-ifs"): on a device whose work a
 * process issues to one stream, the chains of work that share no memory (operations joined when
 * they touch one allocation, as the DVDG records it) are dealt round-robin to N new streams; a
 * synchronization of the old stream becomes one of the device. A device already using several
 * streams or events keeps its own (their order would need the program's own logic) and the
 * report says so.
 */
final class SpreadStreams {
  private SpreadStreams() {}

  static String apply(ProgramEdit e, ProgramValues values, int n) {
    // the one stream each (pid, device) issues to, or -2 when several
    Map<Long, Integer> streamOf = new HashMap<>();
    for (ReplayProgram.Op o : e.ops()) {
      long key = ((long) e.streams().get(o.stream()).pid() << 32) | o.device();
      streamOf.merge(key, o.stream(), (a, b) -> a.equals(b) ? a : -2);
    }
    boolean events = usesEvents(e);
    List<String> kept = new ArrayList<>();
    Map<Integer, int[]> newStreams = new HashMap<>();
    streamOf.forEach((key, s) -> {
      if (s < 0 || events) {
        kept.add("pid " + (key >> 32) + " device " + (key & 0xffffffffL) + " (several streams or events)");
      } else {
        newStreams.put(s, null); // dealt out below, if it holds chains to deal
      }
    });
    int[] chain = chains(e, values);
    Map<Integer, java.util.Set<Integer>> chainsOn = new HashMap<>();
    for (ReplayProgram.Op o : e.ops()) {
      if (newStreams.containsKey(o.stream())) {
        chainsOn.computeIfAbsent(o.stream(), k -> new java.util.HashSet<>()).add(chain[o.id()]);
      }
    }
    chainsOn.forEach((s, cs) -> {
      if (cs.size() < 2) {
        newStreams.remove(s);
        kept.add("stream " + s + " (one chain of work: every operation on it shares memory with another)");
      }
    });
    for (Map.Entry<Integer, int[]> x : newStreams.entrySet()) {
      int[] ns = new int[n];
      for (int i = 0; i < n; i++) {
        ns[i] = e.newStream(e.streams().get(x.getKey()).pid(), e.streams().get(x.getKey()).device());
      }
      x.setValue(ns);
    }
    Map<Integer, Integer> chainIndex = new HashMap<>();
    int moved = 0;
    int[][] issuers = e.issuers();
    for (ReplayProgram.Op o : e.ops()) {
      int[] ns = newStreams.get(o.stream());
      if (ns == null || issuers[o.id()] == null) {
        continue;
      }
      int k = chainIndex.computeIfAbsent(chain[o.id()], c -> chainIndex.size());
      int s = ns[k % n];
      e.set(ProgramEdit.with(o, o.transfer(), o.bytes(), s, o.synchronous()));
      int[] at = issuers[o.id()];
      ReplayProgram.Call c = e.calls(at[0]).get(at[1]);
      e.calls(at[0]).set(at[1], new ReplayProgram.Call(new HostCall.IssueOp(o.id(), s), c.entryNs(), c.durationNs(),
          c.name(), c.bytes(), c.offCpuNs()));
      moved++;
    }
    for (int t = 0; t < e.threads(); t++) {
      List<ReplayProgram.Call> calls = e.calls(t);
      for (int i = 0; i < calls.size(); i++) {
        ReplayProgram.Call c = calls.get(i);
        if (c.what() instanceof HostCall.SyncStream ss && newStreams.containsKey(ss.stream())) {
          calls.set(i, new ReplayProgram.Call(new HostCall.SyncDevice(e.streams().get(ss.stream()).device()),
              c.entryNs(), c.durationNs(), c.name(), c.bytes(), c.offCpuNs()));
        }
      }
    }
    return String.format(Locale.ROOT, "%d operation(s) in %d independent chain(s) dealt to %d stream(s)%s", moved,
        chainIndex.size(), n, kept.isEmpty() ? "" : "; kept as they were: "
            + String.join(", ", kept));
  }

  private static boolean usesEvents(ProgramEdit e) {
    for (int t = 0; t < e.threads(); t++) {
      for (ReplayProgram.Call c : e.calls(t)) {
        if (c.what() instanceof HostCall.RecordEvent || c.what() instanceof HostCall.WaitEvent) {
          return true;
        }
      }
    }
    return false;
  }

  /** Each operation's chain: the least operation id joined to it through a shared allocation. */
  private static int[] chains(ProgramEdit e, ProgramValues values) {
    int[] parent = new int[e.ops().size()];
    for (int i = 0; i < parent.length; i++) {
      parent[i] = i;
    }
    Map<Integer, Integer> lastOnAllocation = new HashMap<>();
    for (int op = 0; op < parent.length; op++) {
      List<ProgramValues.Region> touched = new ArrayList<>(values.reads(op));
      touched.addAll(values.writes(op));
      for (ProgramValues.Region r : touched) {
        Integer prev = lastOnAllocation.put(r.allocation(), op);
        if (prev != null) {
          union(parent, prev, op);
        }
      }
    }
    int[] out = new int[parent.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = find(parent, i);
    }
    return out;
  }

  private static int find(int[] parent, int i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  private static void union(int[] parent, int a, int b) {
    int ra = find(parent, a);
    int rb = find(parent, b);
    if (ra != rb) {
      parent[Math.max(ra, rb)] = Math.min(ra, rb);
    }
  }
}
