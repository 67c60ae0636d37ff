package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The part of a program a replay projects (docs/REPLAY.md, "Regions of interest"): every instance
 * of a named range ({@code --roi NAME}) or one ({@code NAME#k}); from a call or mark to another
 * ({@code --roi-from}, {@code --roi-to}); or from the first copy, memset or kernel on
 * ({@code --skip-setup}). The region's calls keep their order and the host time between them;
 * time between two instances of a range is left out (the instances follow each other); what was
 * issued outside the region is left out.
 *
 * @param description what the region is, as the report says it
 * @param windows the trace's time spans kept, ascending and disjoint: [start, end) in trace ns
 */
public record RegionOfInterest(String description, List<long[]> windows) {
  /** Thrown for a region the trace does not have. */
  public static final class NotFound extends Exception {
    NotFound(String message) {
      super(message);
    }
  }

  /** From the first call that issues a copy, memset or kernel, to the end. */
  public static RegionOfInterest skipSetup(ReplayProgram p) throws NotFound {
    long first = Long.MAX_VALUE;
    for (ReplayProgram.HostThread t : p.threads()) {
      for (ReplayProgram.Call c : t.calls()) {
        if (c.issuedOps().length > 0) {
          first = Math.min(first, c.entryNs());
          break;
        }
      }
    }
    if (first == Long.MAX_VALUE) {
      throw new NotFound("--skip-setup: the trace issues no copy, memset or kernel");
    }
    return new RegionOfInterest("from the first copy, memset or kernel on (--skip-setup)",
        List.<long[]>of(new long[] {first, Long.MAX_VALUE}));
  }

  /**
   * Every instance of the range named {@code spec}, or its k-th with {@code NAME#k} (from 1). A
   * name with a number, {@code NAME#N}, is an instance of NAME too (Kineto names its steps
   * {@code ProfilerStep#N}); a range named exactly {@code spec} as written comes first: with steps
   * 550 to 554, {@code ProfilerStep#552} is step 552, {@code ProfilerStep#3} the third
   * (step 552 as well), {@code ProfilerStep} all five.
   */
  public static RegionOfInterest range(ReplayProgram p, String spec) throws NotFound {
    Named n = Named.of(spec, "--roi");
    List<CallLog.Range> exact = new ArrayList<>();
    List<CallLog.Range> found = new ArrayList<>();
    for (CallLog.Range r : p.ranges()) {
      if (n.k > 0 && n.exactly(r.name(), r.domain())) {
        exact.add(r);
      }
      if (n.inFamily(r.name(), r.domain())) {
        found.add(r);
      }
    }
    if (!exact.isEmpty()) {
      return new RegionOfInterest("range '" + spec + "', " + exact.size() + " instance(s)", windows(exact));
    }
    found.sort(java.util.Comparator.comparingLong(CallLog.Range::startNs));
    if (found.isEmpty()) {
      throw new NotFound("--roi: the trace has no range named '" + n.name + "'" + known(rangeNames(p)));
    }
    if (n.k > found.size()) {
      String first = found.get(0).name();
      String last = found.get(found.size() - 1).name();
      throw new NotFound("--roi: the trace has " + (first.equals(n.name) && last.equals(n.name) ? ""
          : "no range named '" + spec + "', and ") + found.size() + " instance(s) of range '" + n.name + "'"
          + (first.equals(last) ? "" : " (" + first + " to " + last + ")") + ", not " + n.k);
    }
    if (n.k == 0) {
      return new RegionOfInterest("range '" + n.name + "', " + found.size() + " instance(s)", windows(found));
    }
    CallLog.Range r = found.get(n.k - 1);
    return new RegionOfInterest("range '" + n.name + "', instance " + n.k + " of " + found.size()
        + (r.name().equals(n.name) ? "" : " (" + r.name() + ")"), windows(List.of(r)));
  }

  private static List<long[]> windows(List<CallLog.Range> ranges) {
    List<long[]> w = new ArrayList<>();
    for (CallLog.Range r : ranges) {
      w.add(new long[] {r.startNs(), r.endNs()});
    }
    return merge(w);
  }

  /**
   * From the entry of the call or the time of the mark {@code from} (its k-th with {@code #k}; null:
   * the start) to the end of the call or the time of the mark {@code to} (null: the end).
   */
  public static RegionOfInterest between(ReplayProgram p, String from, String to) throws NotFound {
    long start = from == null ? Long.MIN_VALUE : at(p, Named.of(from, "--roi-from"), true);
    // up to the end of the call, inclusive: a call entered at that very time is inside
    long end = to == null ? Long.MAX_VALUE : at(p, Named.of(to, "--roi-to"), false) + 1;
    if (end <= start) {
      throw new NotFound("--roi-to: '" + to + "' is not after '" + from + "' in the trace");
    }
    return new RegionOfInterest("from " + (from == null ? "the start" : "'" + from + "'") + " to "
        + (to == null ? "the end" : "'" + to + "'"), List.<long[]>of(new long[] {start, end}));
  }

  /**
   * The entry (start) or exit (end) of the k-th call, or the time of the k-th mark, named so (as
   * for ranges: one named exactly as written comes first, and {@code NAME#N} is an instance of NAME).
   */
  private static long at(ReplayProgram p, Named n, boolean start) throws NotFound {
    List<Long> times = new ArrayList<>();
    if (n.k > 0) {
      for (CallLog.Mark m : p.marks()) {
        if (n.exactly(m.name(), m.domain())) {
          times.add(m.ns());
        }
      }
      if (!times.isEmpty()) {
        return java.util.Collections.min(times);
      }
    }
    for (ReplayProgram.HostThread t : p.threads()) {
      for (ReplayProgram.Call c : t.calls()) {
        if (n.inFamily(c.name(), "")) {
          times.add(start ? c.entryNs() : c.entryNs() + c.durationNs());
        }
      }
    }
    for (CallLog.Mark m : p.marks()) {
      if (n.inFamily(m.name(), m.domain())) {
        times.add(m.ns());
      }
    }
    times.sort(null);
    if (times.isEmpty()) {
      LinkedHashSet<String> names = new LinkedHashSet<>();
      p.marks().forEach(m -> names.add(m.name()));
      throw new NotFound(n.flag + ": the trace has no call or mark named '" + n.name + "'" + known(names));
    }
    int k = n.k > 0 ? n.k : 1;
    if (k > times.size()) {
      throw new NotFound(n.flag + ": the trace has " + times.size() + " call(s) or mark(s) named '" + n.name
          + "', not " + k);
    }
    return times.get(k - 1);
  }

  private static LinkedHashSet<String> rangeNames(ReplayProgram p) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    p.ranges().forEach(r -> names.add(r.name()));
    return names;
  }

  private static String known(java.util.Collection<String> names) {
    if (names.isEmpty()) {
      return " (it names no range or mark: capture with 'apptrace run', which records NVTX ranges and marks, or"
          + " import a profile with user annotations)";
    }
    List<String> some = new ArrayList<>(names).subList(0, Math.min(8, names.size()));
    return " (it has: " + String.join(", ", some) + (names.size() > some.size() ? ", ..." : "") + ")";
  }

  private static List<long[]> merge(List<long[]> w) {
    w.sort(java.util.Comparator.comparingLong(a -> a[0]));
    List<long[]> out = new ArrayList<>();
    for (long[] x : w) {
      if (!out.isEmpty() && x[0] <= out.get(out.size() - 1)[1]) {
        out.get(out.size() - 1)[1] = Math.max(out.get(out.size() - 1)[1], x[1]);
      } else {
        out.add(x.clone());
      }
    }
    return out;
  }

  /**
   * A name as written ({@code spec}): NAME with an optional {@code #k} (k from 1), NAME perhaps
   * {@code domain:name}.
   */
  private record Named(String spec, String name, int k, String flag) {
    static Named of(String spec, String flag) throws NotFound {
      int hash = spec.lastIndexOf('#');
      if (hash > 0 && numbered(spec, hash)) {
        int k;
        try {
          k = Integer.parseInt(spec.substring(hash + 1));
        } catch (NumberFormatException e) {
          throw new NotFound(flag + ": '" + spec + "': the instance number is too large");
        }
        if (k < 1) {
          throw new NotFound(flag + ": '" + spec + "': instances count from 1");
        }
        return new Named(spec, spec.substring(0, hash), k, flag);
      }
      return new Named(spec, spec, 0, flag);
    }

    /** Whether {@code s} ends in '#' and digits from {@code hash} on. */
    private static boolean numbered(String s, int hash) {
      return hash + 1 < s.length() && s.substring(hash + 1).chars().allMatch(Character::isDigit);
    }

    /** Whether {@code n} of {@code domain} is named {@code spec} as written. */
    boolean exactly(String n, String domain) {
      return spec.equals(n) || (!domain.isEmpty() && spec.equals(domain + ":" + n));
    }

    /** Whether {@code n} of {@code domain} is NAME, or NAME#N (an instance numbered by the program). */
    boolean inFamily(String n, String domain) {
      return is(n) || (!domain.isEmpty() && is(domain + ":" + n));
    }

    private boolean is(String full) {
      return full.equals(name) || (full.length() > name.length() + 1 && full.startsWith(name)
          && full.charAt(name.length()) == '#' && numbered(full, name.length()));
    }
  }

  /** The program cut to the region: its calls, the operations they issue, times closed up between windows. */
  public ReplayProgram cut(ReplayProgram p) {
    List<ReplayProgram.HostThread> threads = new ArrayList<>();
    int[] newId = new int[p.ops().size()];
    java.util.Arrays.fill(newId, -1);
    List<ReplayProgram.Op> ops = new ArrayList<>();
    // first pass: the operations issued inside, in id order
    boolean[] kept = new boolean[p.ops().size()];
    for (ReplayProgram.HostThread t : p.threads()) {
      for (ReplayProgram.Call c : t.calls()) {
        if (inside(c.entryNs()).isPresent()) {
          for (int op : c.issuedOps()) {
            kept[op] = true;
          }
        }
      }
    }
    for (int i = 0; i < kept.length; i++) {
      if (kept[i]) {
        ReplayProgram.Op o = p.ops().get(i);
        newId[i] = ops.size();
        long shift = o.measured() ? removedBefore(o.measuredStartNs()) : 0;
        ops.add(new ReplayProgram.Op(ops.size(), o.kind(), o.name(), o.stream(), o.device(), o.peerDevice(),
            o.transfer(), o.bytes(), o.numa(), o.measured() ? o.measuredStartNs() - shift : o.measuredStartNs(),
            o.measured() ? o.measuredEndNs() - shift : o.measuredEndNs(), o.touchedBytes(), o.mappedReadBytes(),
            o.mappedWriteBytes(), o.blocks(), o.synchronous(), o.launch()));
      }
    }
    List<int[]> callMap = new ArrayList<>(); // per thread: a call's index in the region, or -1
    for (ReplayProgram.HostThread t : p.threads()) {
      List<ReplayProgram.Call> calls = new ArrayList<>();
      int[] map = new int[t.calls().size()];
      callMap.add(map);
      for (int k = 0; k < t.calls().size(); k++) {
        ReplayProgram.Call c = t.calls().get(k);
        map[k] = -1;
        if (inside(c.entryNs()).isEmpty()) {
          continue;
        }
        map[k] = calls.size();
        long shift = removedBefore(c.entryNs());
        calls.add(c.moved(c.entryNs() - shift, op -> newId[op]));
      }
      threads.add(new ReplayProgram.HostThread(t.pid(), t.tid(), calls));
    }
    List<CallLog.Range> ranges = new ArrayList<>();
    for (CallLog.Range r : p.ranges()) {
      if (inside(r.startNs()).isPresent()) {
        ranges.add(new CallLog.Range(r.thread(), r.name(), r.domain(), r.startNs() - removedBefore(r.startNs()),
            r.endNs() - removedBefore(r.startNs())));
      }
    }
    List<CallLog.Mark> marks = new ArrayList<>();
    for (CallLog.Mark m : p.marks()) {
      if (inside(m.ns()).isPresent()) {
        marks.add(new CallLog.Mark(m.thread(), m.name(), m.domain(), m.ns() - removedBefore(m.ns())));
      }
    }
    java.util.Set<Integer> contexts = new java.util.HashSet<>(p.contextsBefore());
    long start = windows.get(0)[0];
    for (ReplayProgram.HostThread t : p.threads()) {
      for (ReplayProgram.Call c : t.calls()) {
        if (c.entryNs() < start && !(c.what() instanceof HostCall.NotMade)
            && (!(c.what() instanceof HostCall.HostWork) || io.apptrace.node.ApiClass.createsContext(c.name()))) {
          contexts.add(t.pid()); // its context was created before the region
          break;
        }
      }
    }
    List<ReplayProgram.Managed> managed = new ArrayList<>();
    for (ReplayProgram.Managed m : p.managed()) {
      // what happens outside the region still moves the data: kept, but not priced (-1)
      if (m instanceof ReplayProgram.Managed.Access a) {
        int id = a.op() >= 0 && kept[a.op()] ? newId[a.op()] : -1;
        managed.add(new ReplayProgram.Managed.Access(id, a.allocation(), a.bytes(), a.allocationBytes(), a.device(),
            a.prefetch(), a.writes()));
      } else if (m instanceof ReplayProgram.Managed.HostSync h) {
        int[] map = callMap.get(h.thread());
        managed.add(new ReplayProgram.Managed.HostSync(h.thread(), h.call() >= 0 ? map[h.call()] : -1));
      }
    }
    return new ReplayProgram(ops, p.streams(), threads, p.events(), p.provenance(), p.sourceDevices())
        .withAnnotations(ranges, marks).withContextsBefore(contexts).withManaged(managed);
  }

  private Optional<long[]> inside(long ns) {
    for (long[] w : windows) {
      if (ns >= w[0] && ns < w[1]) {
        return Optional.of(w);
      }
    }
    return Optional.empty();
  }

  /** The time left out between the windows before {@code ns} (not before the first: the start stays). */
  private long removedBefore(long ns) {
    long removed = 0;
    for (int i = 1; i < windows.size() && windows.get(i)[0] <= ns; i++) {
      removed += windows.get(i)[0] - windows.get(i - 1)[1];
    }
    return removed;
  }

  /** What the report says of the region: its description, and what of the trace it keeps. */
  public String summary(ReplayProgram whole, ReplayProgram cut) {
    int calls = cut.threads().stream().mapToInt(t -> t.calls().size()).sum();
    int all = whole.threads().stream().mapToInt(t -> t.calls().size()).sum();
    return String.format(Locale.ROOT, "region of interest: %s: %d of %d calls, %d of %d operations; the rest of the"
        + " trace is left out", description, calls, all, cut.ops().size(), whole.ops().size());
  }
}
