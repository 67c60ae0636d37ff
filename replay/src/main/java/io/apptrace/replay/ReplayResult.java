package io.apptrace.replay;

import io.apptrace.node.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A program's projected timeline on one node: every operation's and call's times, the makespan,
 * its critical path and the breakdown of the makespan along it, and link utilization over time.
 * Times are nanoseconds from the start of the first call.
 */
public final class ReplayResult {
  /** One operation's projected times. */
  public record OpTimes(int op, double issueNs, double startNs, double endNs, String engine) {
    public double durationNs() {
      return endNs - startNs;
    }
  }

  /** One host call's projected times. */
  public record CallTimes(int thread, int index, double startNs, double endNs) {}

  /**
   * One stretch of the critical path.
   *
   * @param what "kernel", "memset", "copy", "host" (a call or the time between calls), "idle"
   * @param label the operation or call's name, or what the time was
   * @param op the operation, or -1
   * @param klass the breakdown class it counts in: {@code kernels}, {@code memsets},
   *     {@code copies <kind>}, {@code calls} (a CUDA call's own time), {@code host} (host compute), {@code idle}
   */
  public record Segment(String what, String label, double startNs, double endNs, int op, String klass) {}

  /** A link direction's utilization over time: (time ns, fraction busy) points. */
  public record LinkUse(String name, List<double[]> points) {}

  private final ReplayProgram program;
  private final Node node;
  private final Replayer.Options options;
  private final List<OpTimes> ops;
  private final List<List<CallTimes>> calls;
  private final double makespan;
  private final List<Segment> criticalPath;
  private final Map<String, Double> breakdown;
  private final List<LinkUse> links;
  private final List<String> notes;
  private final boolean[] lowerBound;
  private final boolean[] modelled;
  private final Map<String, Double> engineBusy;

  private ReplayResult(ReplayProgram program, Node node, Replayer.Options options, List<OpTimes> ops,
      List<List<CallTimes>> calls, double makespan, List<Segment> criticalPath, Map<String, Double> breakdown,
      List<LinkUse> links, List<String> notes, boolean[] lowerBound, boolean[] modelled, Map<String, Double> engineBusy) {
    this.program = program;
    this.node = node;
    this.options = options;
    this.ops = ops;
    this.calls = calls;
    this.makespan = makespan;
    this.criticalPath = criticalPath;
    this.breakdown = breakdown;
    this.links = links;
    this.notes = notes;
    this.lowerBound = lowerBound;
    this.modelled = modelled;
    this.engineBusy = engineBusy;
  }

  /** This result with one more note. */
  public ReplayResult withNote(String note) {
    List<String> more = new ArrayList<>(notes);
    more.add(note);
    return new ReplayResult(program, node, options, ops, calls, makespan, criticalPath, breakdown, links,
        List.copyOf(more), lowerBound, modelled, engineBusy);
  }

  /** The result of a replay: its timeline, read into makespan, critical path, breakdown and link use. */
  static ReplayResult of(Timeline tl, Node node, Replayer.Options o) {
    ReplayProgram p = tl.program();
    OpTable t = tl.ops();
    double[] issue = t.issue;
    double[] start = t.start;
    double[] end = t.end;
    int[] engineOf = t.engineOf;
    int[] gpuOf = t.gpuOf;
    String[] engineNames = tl.engineNames();
    int[] callBase = tl.callBase();
    double[] callStart = tl.callStart();
    double[] callEnd = tl.callEnd();
    Links links = tl.links();
    List<String> notes = new ArrayList<>(tl.notes());
    // a view, not an object per operation: replays of millions of operations
    List<OpTimes> ops = new java.util.AbstractList<>() {
      @Override
      public OpTimes get(int i) {
        String engine = engineOf[i] >= 0 ? engineNames[engineOf[i]] : gpuOf[i] < 0 ? "host" : "none";
        return new OpTimes(i, issue[i], start[i], end[i], engine);
      }

      @Override
      public int size() {
        return issue.length;
      }
    };
    double makespan = 0;
    double[] busyOf = new double[engineNames.length];
    for (int i = 0; i < issue.length; i++) {
      if (!Double.isNaN(end[i])) {
        makespan = Math.max(makespan, end[i]);
        if (engineOf[i] >= 0) {
          busyOf[engineOf[i]] += end[i] - start[i];
        }
      }
    }
    Map<String, Double> busy = new TreeMap<>();
    for (int e = 0; e < busyOf.length; e++) {
      if (busyOf[e] > 0) {
        busy.put(engineNames[e], busyOf[e]);
      }
    }
    List<List<CallTimes>> calls = new ArrayList<>();
    for (int th = 0; th < p.threads().size(); th++) {
      int thread = th;
      int base = callBase[th];
      int n = callBase[th + 1] - base;
      calls.add(new java.util.AbstractList<>() {
        @Override
        public CallTimes get(int i) {
          return new CallTimes(thread, i, callStart[base + i], callEnd[base + i]);
        }

        @Override
        public int size() {
          return n;
        }
      });
      for (int c = base; c < base + n; c++) {
        makespan = Math.max(makespan, callEnd[c]);
      }
    }
    for (int i = 0; i < issue.length; i++) {
      if (Double.isNaN(end[i])) {
        notes.add("operation " + i + " (" + p.ops().get(i).name() + ") never ran: it waits for work that never"
            + " completes in the trace (a stream or event the trace does not show finishing)");
        break;
      }
    }
    CriticalPath cp = new CriticalPath(p, start, end, tl.dispatchDelay(), t.causeType, t.causeId, t.issuedBy, callBase,
        callStart, callEnd, tl.callEndCause());
    List<Segment> path = cp.walk(makespan);
    Map<String, Double> breakdown = new LinkedHashMap<>();
    for (String k : List.of("kernels", "memsets", "copies", "calls", "host", "idle")) {
      breakdown.put(k, 0.0);
    }
    for (Segment s : path) {
      String k = s.klass().startsWith("copies ") ? "copies" : s.klass();
      breakdown.merge(k, s.endNs() - s.startNs(), Double::sum);
      if (s.klass().startsWith("copies ")) {
        breakdown.merge(s.klass(), s.endNs() - s.startNs(), Double::sum);
      }
    }
    List<LinkUse> uses = new ArrayList<>();
    if (o.samples()) {
      for (int r = 0; r < links.resources(); r++) {
        List<double[]> pts = links.samples(r);
        if (pts.stream().noneMatch(x -> x[1] > 0)) {
          continue;
        }
        if (links.isMemory(r)) {
          uses.add(new LinkUse(links.memoryOf(r).id() + " memory", pts));
          continue;
        }
        Node.Link l = links.links().get(r / 2);
        boolean forward = r % 2 == 0;
        uses.add(new LinkUse(forward ? l.a() + "->" + l.b() : l.b() + "->" + l.a(), pts));
      }
    }
    ReplayResult r = new ReplayResult(p, node, o, ops, calls, makespan, path, breakdown,
        uses, List.copyOf(notes), t.lowerBound, t.modelled, busy);
    r.peakBwNs = t.peakBwNs;
    r.boeNs = t.boeNs;
    r.events = tl.events();
    return r;
  }

  public ReplayProgram program() {
    return program;
  }

  public Node node() {
    return node;
  }

  public Replayer.Options options() {
    return options;
  }

  public List<OpTimes> ops() {
    return ops;
  }

  /** Per thread, per call. */
  public List<List<CallTimes>> calls() {
    return calls;
  }

  public double makespanNs() {
    return makespan;
  }

  public List<Segment> criticalPath() {
    return criticalPath;
  }

  /**
   * The makespan along the critical path, by class: {@code kernels}, {@code memsets},
   * {@code copies} (and {@code copies <kind>} for each kind), {@code host}, {@code idle}. The
   * first five add up to the makespan.
   */
  public Map<String, Double> breakdown() {
    return breakdown;
  }

  public List<LinkUse> linkUse() {
    return links;
  }

  public List<String> notes() {
    return notes;
  }

  /** Whether an operation was priced at the kernel lower bound (no measured time). */
  public boolean lowerBound(int op) {
    return lowerBound[op];
  }

  /** Whether an operation's duration was modelled (not kept as measured). */
  public boolean modelled(int op) {
    return modelled[op];
  }

  private double[] peakBwNs;
  private double[] boeNs;

  /** A copy's Peak-BW baseline time alone on the node, ns (NaN for other operations). */
  public double peakBwNs(int op) {
    return peakBwNs[op];
  }

  /** A copy's back-of-envelope baseline time, ns (NaN for other operations). */
  public double backOfEnvelopeNs(int op) {
    return boeNs[op];
  }

  long events;

  /**
   * The discrete events the replay ran: its work, which depends on what the program does, not on
   * how long it takes.
   */
  public long events() {
    return events;
  }

  /** Busy time of each engine, ns. */
  public Map<String, Double> engineBusy() {
    return engineBusy;
  }
}
