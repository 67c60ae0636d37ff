package io.apptrace.replay;

import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import io.apptrace.validate.ErrorStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the replay of one node tells a user beyond the timeline: the error of its operation times
 * against the trace's measured ones (WMAPE, docs/COST-MODEL.md), and advice (the stream-count
 * estimates of docs/REPLAY.md; what pinning pageable memory would save, Abdelhafez et al. 2019,
 * sec. VIII, lesson 1).
 */
public final class ReplayReport {
  /**
   * The error of one class of operations.
   *
   * @param peakBw the Peak-BW baseline's error (copies only; else null)
   * @param backOfEnvelope the back-of-envelope baseline's error (copies only; else null)
   */
  public record ClassError(ErrorStats model, ErrorStats peakBw, ErrorStats backOfEnvelope) {}

  private ReplayReport() {}

  /**
   * The replayed timeline against the measured one: how far each operation's replayed start is
   * from its measured start (both from the trace's first call), and the makespans.
   *
   * @param ops operations with measured GPU times that the replay ran
   */
  public record TimelineError(int ops, double meanStartErrorNs, double maxStartErrorNs, long measuredMakespanNs,
      double projectedMakespanNs) {
    /** The mean start error as a share of the measured makespan (the self-check's figure), %. */
    public double meanStartErrorPct() {
      return 100.0 * meanStartErrorNs / Math.max(1, measuredMakespanNs);
    }

    /** (projected - measured) / measured, %. */
    public double makespanErrorPct() {
      return 100.0 * (projectedMakespanNs - measuredMakespanNs) / Math.max(1, measuredMakespanNs);
    }
  }

  /** The timeline error, when the trace has measured GPU times (imports, CUPTI captures). */
  public static java.util.Optional<TimelineError> timeline(ReplayResult r) {
    ReplayProgram p = r.program();
    long measured = p.measuredMakespanNs();
    if (measured < 0) {
      return java.util.Optional.empty();
    }
    long first = p.firstEntryNs();
    int n = 0;
    double sum = 0;
    double max = 0;
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = p.ops().get(t.op());
      if (!op.measured() || Double.isNaN(t.startNs())) {
        continue;
      }
      double err = Math.abs(t.startNs() - (op.measuredStartNs() - first));
      sum += err;
      max = Math.max(max, err);
      n++;
    }
    if (n == 0) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new TimelineError(n, sum / n, max, measured, r.makespanNs()));
  }

  /**
   * Per class ({@code kernels}, {@code memsets}, each transfer kind) and {@code overall}: the
   * projected durations of the operations the replay priced against their measured ones; empty
   * when the trace measured nothing on a GPU.
   */
  public static Map<String, ClassError> errors(ReplayResult r) {
    Map<String, ClassError> out = new TreeMap<>();
    ClassError all = new ClassError(new ErrorStats(), new ErrorStats(), new ErrorStats());
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = r.program().ops().get(t.op());
      if (!op.measured() || op.measuredDurationNs() <= 0 || Double.isNaN(t.endNs())) {
        continue;
      }
      String klass = classOf(op);
      ClassError e = out.computeIfAbsent(klass, k -> new ClassError(new ErrorStats(), new ErrorStats(), new ErrorStats()));
      double actual = op.measuredDurationNs();
      e.model().add(actual, t.durationNs());
      all.model().add(actual, t.durationNs());
      if (!Double.isNaN(r.peakBwNs(t.op()))) {
        e.peakBw().add(actual, r.peakBwNs(t.op()));
        e.backOfEnvelope().add(actual, r.backOfEnvelopeNs(t.op()));
      }
    }
    if (!out.isEmpty()) {
      out.put("overall", all);
    }
    return out;
  }

  /** A class's measured and projected time on a node the trace was not taken on. */
  public record ClassSpeedup(int operations, double measuredNs, double projectedNs) {
    public double speedup() {
      return measuredNs / Math.max(1.0, projectedNs);
    }
  }

  /**
   * Per class, as {@link #errors}, and {@code overall}: the measured durations against the projected
   * ones, for a node the trace was not taken on (where they are a baseline, not a reference).
   */
  public static Map<String, ClassSpeedup> speedups(ReplayResult r) {
    Map<String, ClassSpeedup> out = new TreeMap<>();
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = r.program().ops().get(t.op());
      if (!op.measured() || op.measuredDurationNs() <= 0 || Double.isNaN(t.endNs())) {
        continue;
      }
      for (String k : List.of(classOf(op), "overall")) {
        out.merge(k, new ClassSpeedup(1, op.measuredDurationNs(), t.durationNs()), (a, b) -> new ClassSpeedup(
            a.operations() + b.operations(), a.measuredNs() + b.measuredNs(), a.projectedNs() + b.projectedNs()));
      }
    }
    return out;
  }

  private static String classOf(ReplayProgram.Op op) {
    return switch (op.kind()) {
      case KERNEL -> "kernels";
      case MEMSET -> "memsets";
      case COLLECTIVE -> "communication";
      case COPY -> op.transfer() == null ? "host copies" : op.transfer().key();
    };
  }

  /** Advice for the program on this node, one paragraph each. */
  public static List<String> advice(ReplayResult r) {
    List<String> out = new ArrayList<>();
    try {
      pipelines(r, out);
      pageable(r, out);
    } catch (NodeFileException e) {
      out.add("no advice: " + e.getMessage());
    }
    return out;
  }

  /** Streams that copy in, compute and copy out: the stream-count estimates of docs/REPLAY.md. */
  private static void pipelines(ReplayResult r, List<String> out) throws NodeFileException {
    ReplayProgram p = r.program();
    Map<Integer, long[]> perStream = new TreeMap<>(); // stream -> [h2d ops, kernels, d2h ops]
    Map<Integer, double[]> sums = new TreeMap<>(); // stream -> [B_hd, t_E ns, B_dh]
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = p.ops().get(t.op());
      if (op.stream() < 0 || Double.isNaN(t.endNs())) {
        continue;
      }
      long[] c = perStream.computeIfAbsent(op.stream(), k -> new long[3]);
      double[] s = sums.computeIfAbsent(op.stream(), k -> new double[3]);
      if (op.kind() == ReplayProgram.Kind.KERNEL) {
        c[1]++;
        s[1] += t.durationNs();
      } else if (op.transfer() != null && op.transfer().way() == TransferKind.Way.H2D) {
        c[0]++;
        s[0] += op.bytes();
      } else if (op.transfer() != null && op.transfer().way() == TransferKind.Way.D2H) {
        c[2]++;
        s[2] += op.bytes();
      }
    }
    Map<Integer, List<Integer>> byDevice = new TreeMap<>();
    perStream.forEach((s, c) -> {
      if (c[0] > 0 && c[1] > 0 && c[2] > 0) {
        byDevice.computeIfAbsent(p.streams().get(s).device(), d -> new ArrayList<>()).add(s);
      }
    });
    TransferModel m = new TransferModel(r.node());
    for (Map.Entry<Integer, List<Integer>> e : byDevice.entrySet()) {
      int device = r.options().deviceMap().getOrDefault(e.getKey(), e.getKey());
      if (device >= r.node().gpus().size()) {
        continue;
      }
      Node.Gpu gpu = r.node().gpus().get(device);
      double bhd = 0;
      double bdh = 0;
      double te = 0;
      for (int s : e.getValue()) {
        bhd += sums.get(s)[0];
        te += sums.get(s)[1] * 1e-9;
        bdh += sums.get(s)[2];
      }
      int ns = e.getValue().size();
      long chains = 0; // independent copy-kernel-copy chains: the most streams the program can use
      for (int s : e.getValue()) {
        long[] c = perStream.get(s);
        chains += Math.min(c[0], Math.min(c[1], c[2]));
      }
      double gHd = perByte(m, TransferKind.PINNED_H2D, (long) bhd, device);
      double gDh = perByte(m, TransferKind.PINNED_D2H, (long) bdh, device);
      double g = Math.min(m.gap(TransferKind.PINNED_H2D), m.gap(TransferKind.PINNED_D2H));
      boolean kernelDominant = te > bhd * gHd + bdh * gDh;
      // the device categories of van Werkhoven et al. 2014, sec. IV, said in words, the letter after them
      String category = gpu.implicitSync() ? "implicit synchronization, " + gpu.copyEngines() + " copy engine(s):"
          + " van Werkhoven et al. 2014's category a"
          : gpu.copyEngines() == 1
              ? "one copy engine, no implicit synchronization: van Werkhoven et al. 2014's category b"
          : gpu.copyEngines() + " copy engines, no implicit synchronization: van Werkhoven et al. 2014's category c";
      StringBuilder a = new StringBuilder(String.format(Locale.ROOT, "copy/compute pipeline on %s over %d stream%s"
          + " (%s): %s in, %s out, %s of kernels; %s dominate.", gpu.id(), ns, ns == 1 ? "" : "s",
          category, Units.size((long) bhd), Units.size((long) bdh), Units.time(te),
          kernelDominant ? "kernels" : "transfers"));
      // the stream-count estimates (docs/REPLAY.md; van Werkhoven et al. 2014, sec. VI)
      if (g <= 0) {
        a.append(" No gap g is known for this node, so no stream-count estimate.");
      } else if (gpu.implicitSync()) {
        double best = kernelDominant ? Math.sqrt(bhd * gHd / g) : Math.sqrt(te / (2 * g));
        a.append(streamCount(Math.max(1, Math.round(best)), ns, chains, gpu.id(),
            kernelDominant ? " (sqrt(B_hd * G_hd / g))" : " (sqrt(t_E / (2g)))"));
      } else if (gpu.copyEngines() >= 2 && !kernelDominant) {
        double best = bhd > bdh ? Math.sqrt((bdh * gDh + te) / g) : Math.sqrt((bhd * gHd + te) / g);
        a.append(streamCount(Math.max(1, Math.round(best)), ns, chains, gpu.id(), ""));
      } else {
        a.append(" More streams hide more of the transfers until the kernels or one engine set the pace"
            + " (van Werkhoven et al. 2014, sec. VI), who give no closed-form count for this case.");
      }
      out.add(a.toString());
    }
  }

  /**
   * The stream-count estimate of van Werkhoven et al. 2014 (sec. VI), within what the program allows:
   * no more streams than its independent copy-kernel-copy chains. An estimate the replay did not try,
   * and said so.
   */
  private static String streamCount(long best, int used, long chains, String gpu, String formula) {
    if (best <= used) {
      return String.format(Locale.ROOT, " The estimate of van Werkhoven et al. 2014%s of the best stream count, about"
          + " %d, is no more than the %d you use.", formula, best, used);
    }
    if (used >= chains) {
      return String.format(Locale.ROOT, " The estimate of van Werkhoven et al. 2014%s of the best stream count (about"
          + " %d) needs the data split into more pieces than the %d independent copy-kernel-copy chain%s the program"
          + " has on %s, each on its own stream already: no stream count is advised.", formula, best, chains,
          chains == 1 ? "" : "s", gpu);
    }
    return String.format(Locale.ROOT, " The estimate of van Werkhoven et al. 2014%s: about %d streams for its %d"
        + " independent chains (you use %d; an estimate, not replayed).", formula, Math.min(best, chains), chains, used);
  }

  /** Seconds per byte of a large pinned transfer on the GPU's local route (the G of van Werkhoven et al. 2014). */
  private static double perByte(TransferModel m, TransferKind k, long bytes, int gpu) throws NodeFileException {
    long n = Math.max(bytes, 1 << 20);
    TransferEstimate e = m.estimate(k, n, TransferModel.Endpoints.gpu(gpu), TransferModel.Setting.MEASURED);
    return (e.seconds() - e.latency().seconds()) / n;
  }

  /** Pageable copies: what pinning saves on this node, replayed, and when it pays for itself. */
  private static void pageable(ReplayResult r, List<String> out) throws NodeFileException {
    ReplayProgram p = r.program();
    int count = 0;
    long bytes = 0;
    double pageableNs = 0;
    List<ReplayProgram.Op> copies = new ArrayList<>();
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = p.ops().get(t.op());
      TransferKind k = op.transfer();
      if ((k != TransferKind.PAGEABLE_H2D && k != TransferKind.PAGEABLE_D2H) || Double.isNaN(t.endNs())) {
        continue;
      }
      count++;
      bytes += op.bytes();
      pageableNs += t.durationNs();
      copies.add(op);
    }
    if (count == 0) {
      return;
    }
    // the change replayed: the same program with these copies from pinned memory (docs/REPLAY.md, "Advice")
    ReplayResult pinned;
    try {
      pinned = Replayer.replay(PinPageable.of(p), r.node(), r.options().withSamples(false));
    } catch (ReplayException e) {
      return; // the program does not run there at all: the report says so elsewhere
    }
    double save = r.makespanNs() - pinned.makespanNs();
    StringBuilder a = new StringBuilder(String.format(Locale.ROOT, "%d cop%s from or to pageable memory (%s) take%s %s"
        + " on %s; replayed from pinned memory, the makespan is %s: ", count, count == 1 ? "y" : "ies",
        Units.size(bytes), count == 1 ? "s" : "", Units.time(pageableNs * 1e-9), r.node().name(),
        Units.time(pinned.makespanNs() * 1e-9)));
    if (save <= 0) {
      a.append("no shorter (the copies are not what sets the makespan), so pinning is not advised.");
      out.add(a.toString());
      return;
    }
    a.append(String.format(Locale.ROOT, "%s less (%.1f%%).", Units.time(save * 1e-9),
        100 * save / Math.max(1, r.makespanNs())));
    // Abdelhafez et al. 2019, sec. VIII, lesson 1: pinning pays once its cost is amortized over the copies
    copies.sort(java.util.Comparator.comparingLong(ReplayProgram.Op::bytes));
    ReplayProgram.Op median = copies.get(copies.size() / 2);
    io.apptrace.node.HostOverheads h = r.node().hostOverheads();
    long pinNs = h.costNs(io.apptrace.node.ApiClass.HOST_REGISTER, median.bytes());
    double copiesToPay = pinNs / (save / count);
    a.append(String.format(Locale.ROOT, " Pinning a buffer of the median copy's size (%s) costs %s on %s (cudaHostRegister"
        + " in its host-overhead model, %s): it pays for itself after about %.1f copies of it (Abdelhafez et al. 2019,"
        + " sec. VIII, lesson 1). '--what-if pin-pageable' replays it with each buffer's pinning charged.", Units.size(median.bytes()), Units.time(pinNs * 1e-9), r.node().name(), h.source(),
        Math.max(copiesToPay, 0.1)));
    out.add(a.toString());
  }


  private static int gpu(ReplayResult r, ReplayProgram.Op op) {
    int d = Math.max(op.device(), 0);
    return r.options().deviceMap().getOrDefault(d, d);
  }

  /** The breakdown's classes, in report order, with the copies by kind and the calls by kind after them. */
  public static Map<String, Double> orderedBreakdown(ReplayResult r) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String k : List.of("kernels", "memsets", "copies", "calls", "host", "idle")) {
      out.put(k, r.breakdown().getOrDefault(k, 0.0));
    }
    r.breakdown().forEach((k, v) -> {
      if (k.startsWith("copies ")) {
        out.put(k, v);
      }
    });
    for (String k : List.of("calls launch", "calls sync", "calls other")) {
      if (r.breakdown().containsKey(k)) {
        out.put(k, r.breakdown().get(k));
      }
    }
    return out;
  }
}
