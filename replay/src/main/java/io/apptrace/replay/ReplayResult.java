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
  /**
   * One operation's projected times.
   *
   * @param slackNs how much later it could end before the makespan grows ({@link Slack}); NaN when
   *     it did not run or the replay was not asked for it ({@link Replayer.Options#withSlack})
   */
  public record OpTimes(int op, double issueNs, double startNs, double endNs, String engine, double slackNs) {
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
   *     {@code copies <kind>}, {@code calls launch|sync|other} (a CUDA call's own time: one that
   *     issues work, one that waits for it or wakes after, any other), {@code host} (host
   *     compute), {@code idle}
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

  private Map<String, Double> linkBusy = Map.of();

  /**
   * How long each link direction (and each CPU's memory, "cpu0 memory") carried data, ns, by
   * name ({@code cpu0->plx0}); those that carried none are left out.
   */
  public Map<String, Double> linkBusy() {
    return linkBusy;
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
    double[] slack = new double[issue.length];
    // a view, not an object per operation: replays of millions of operations
    List<OpTimes> ops = new java.util.AbstractList<>() {
      @Override
      public OpTimes get(int i) {
        String engine = engineOf[i] >= 0 ? engineNames[engineOf[i]] : gpuOf[i] < 0 ? "host" : "none";
        return new OpTimes(i, issue[i], start[i], end[i], engine, slack[i]);
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
    if (o.slack()) {
      System.arraycopy(Slack.of(tl, makespan), 0, slack, 0, slack.length);
    } else {
      java.util.Arrays.fill(slack, Double.NaN);
    }
    CriticalPath cp = new CriticalPath(p, start, end, tl.dispatchDelay(), t.causeType, t.causeId, t.issuedBy, callBase,
        callStart, callEnd, tl.callEndCause());
    List<Segment> path = cp.walk(makespan);
    Map<String, Double> breakdown = new LinkedHashMap<>();
    for (String k : List.of("kernels", "memsets", "copies", "calls", "host", "idle")) {
      breakdown.put(k, 0.0);
    }
    for (Segment s : path) {
      // "copies <kind>" and "calls <kind>" count in their class and apart
      int sub = s.klass().indexOf(' ');
      String k = sub > 0 ? s.klass().substring(0, sub) : s.klass();
      breakdown.merge(k, s.endNs() - s.startNs(), Double::sum);
      if (sub > 0) {
        breakdown.merge(s.klass(), s.endNs() - s.startNs(), Double::sum);
      }
    }
    String[] names = new String[links.resources()];
    for (int r = 0; r < names.length; r++) {
      names[r] = resourceName(links, r);
    }
    List<LinkUse> uses = new ArrayList<>();
    Map<String, Double> linkBusy = new TreeMap<>();
    for (int r = 0; r < links.resources(); r++) {
      if (links.busyNs(r) > 0) {
        linkBusy.put(names[r], links.busyNs(r));
      }
      if (o.samples()) {
        List<double[]> pts = links.samples(r);
        if (pts.stream().anyMatch(x -> x[1] > 0)) {
          uses.add(new LinkUse(names[r], pts));
        }
      }
    }
    ReplayResult r = new ReplayResult(p, node, o, ops, calls, makespan, path, breakdown,
        uses, List.copyOf(notes), t.lowerBound, t.modelled, busy);
    r.peakBwNs = t.peakBwNs;
    r.boeNs = t.boeNs;
    r.events = tl.events();
    r.linkBusy = Collections.unmodifiableMap(linkBusy);
    r.resourceNames = names;
    r.resources = t.resources;
    r.flowStart = t.flowStart;
    r.gpuOf = t.gpuOf;
    r.peerGpuOf = t.peerGpuOf;
    return r;
  }

  /** A resource of the link-sharing model as people name it: {@code cpu0->gpu0}, {@code cpu0 memory}. */
  private static String resourceName(Links links, int r) {
    if (links.isMemory(r)) {
      return links.memoryOf(r).id() + " memory";
    }
    Node.Link l = links.links().get(r / 2);
    return r % 2 == 0 ? l.a() + "->" + l.b() : l.b() + "->" + l.a();
  }

  private String[] resourceNames;
  private int[][] resources;
  private double[] flowStart;
  private int[] gpuOf;
  private int[] peerGpuOf;

  /** The node's GPU (its index in the node's GPUs) an operation ran on, a GPU-to-GPU copy's source; -1: the host. */
  public int gpu(int op) {
    return gpuOf[op];
  }

  /** A GPU-to-GPU copy's destination GPU on the node (else as {@link #gpu(int)}). */
  public int peerGpu(int op) {
    return peerGpuOf[op];
  }

  /**
   * What a copy's bytes crossed, as {@link #linkUse()} names it: each link direction of its route
   * ({@code cpu0->gpu0}) and each host memory ({@code cpu0 memory}); empty for an operation that
   * crossed none (kernels, memsets, copies kept at their measured times).
   */
  public List<String> route(int op) {
    if (Double.isNaN(flowStart[op]) || resources[op] == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>(resources[op].length);
    for (int r : resources[op]) {
      out.add(resourceNames[r]);
    }
    return out;
  }

  /** When a copy's bytes started to cross its route (its fixed part over), ns; NaN when they crossed none. */
  public double flowStartNs(int op) {
    return flowStart[op];
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
