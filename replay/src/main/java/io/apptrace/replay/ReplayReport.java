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
      String klass = op.kind() == ReplayProgram.Kind.KERNEL ? "kernels" : op.kind() == ReplayProgram.Kind.MEMSET
          ? "memsets" : op.transfer() == null ? "host copies" : op.transfer().key();
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
        a.append(String.format(Locale.ROOT, " The best stream count by the estimate of van Werkhoven et al. 2014"
            + " (%s): about %d (you use %d).",
            kernelDominant ? "sqrt(B_hd * G_hd / g)" : "sqrt(t_E / (2g))", Math.max(1, Math.round(best)), ns));
      } else if (gpu.copyEngines() >= 2 && !kernelDominant) {
        double best = bhd > bdh ? Math.sqrt((bdh * gDh + te) / g) : Math.sqrt((bhd * gHd + te) / g);
        a.append(String.format(Locale.ROOT, " The best stream count by the estimate of van Werkhoven et al. 2014:"
            + " about %d (you use %d).",
            Math.max(1, Math.round(best)), ns));
      } else {
        a.append(" More streams hide more of the transfers until the kernels or one engine set the pace"
            + " (van Werkhoven et al. 2014, sec. VI), who give no closed-form count for this case.");
      }
      out.add(a.toString());
    }
  }

  /** Seconds per byte of a large pinned transfer on the GPU's local route (the G of van Werkhoven et al. 2014). */
  private static double perByte(TransferModel m, TransferKind k, long bytes, int gpu) throws NodeFileException {
    long n = Math.max(bytes, 1 << 20);
    TransferEstimate e = m.estimate(k, n, TransferModel.Endpoints.gpu(gpu), TransferModel.Setting.MEASURED);
    return (e.seconds() - e.latency().seconds()) / n;
  }

  private record PricedCopy(TransferKind kind, long bytes, int gpu) {}

  /** A pageable copy's time alone on the node, and the same copy's from pinned memory, ns. */
  private static double[] pageableAndPinnedNs(TransferModel m, PricedCopy c) throws NodeFileException {
    TransferModel.Endpoints where = TransferModel.Endpoints.gpu(c.gpu());
    return new double[] {m.estimate(c.kind(), c.bytes(), where, TransferModel.Setting.MEASURED).seconds() * 1e9,
        m.estimate(c.kind().pinnedOfSameWay(), c.bytes(), where, TransferModel.Setting.MEASURED).seconds() * 1e9};
  }

  /** Pageable copies: what pinning would save on this node, and when it pays for itself. */
  private static void pageable(ReplayResult r, List<String> out) throws NodeFileException {
    ReplayProgram p = r.program();
    TransferModel m = new TransferModel(r.node());
    int count = 0;
    long bytes = 0;
    double pageableNs = 0;
    double pinnedNs = 0;
    List<ReplayProgram.Op> copies = new ArrayList<>();
    Map<PricedCopy, double[]> priced = new HashMap<>();
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = p.ops().get(t.op());
      TransferKind k = op.transfer();
      if (k != TransferKind.PAGEABLE_H2D && k != TransferKind.PAGEABLE_D2H) {
        continue;
      }
      int gpu = gpu(r, op);
      if (gpu >= r.node().gpus().size()) {
        continue;
      }
      count++;
      bytes += op.bytes();
      // long traces repeat a few sizes many times: each (kind, size, GPU) is priced once
      PricedCopy key = new PricedCopy(k, op.bytes(), gpu);
      double[] both = priced.get(key);
      if (both == null) {
        both = pageableAndPinnedNs(m, key);
        priced.put(key, both);
      }
      pageableNs += both[0];
      pinnedNs += both[1];
      copies.add(op);
    }
    if (count == 0) {
      return;
    }
    double save = pageableNs - pinnedNs;
    StringBuilder a = new StringBuilder(String.format(Locale.ROOT, "%d cop%s from or to pageable memory (%s) take%s %s"
        + " on %s; from pinned memory %s %s, %s less (%.1f%% of the makespan).", count,
        count == 1 ? "y" : "ies", Units.size(bytes), count == 1 ? "s" : "", Units.time(pageableNs * 1e-9),
        r.node().name(), count == 1 ? "it would take" : "they would take", Units.time(pinnedNs * 1e-9),
        Units.time(save * 1e-9), 100 * save / Math.max(1, r.makespanNs())));
    ReplayProgram.Provenance prov = p.provenance();
    if (prov.pinnedBytes() > 0 && prov.pinNs() > 0 && save > 0) {
      // Abdelhafez et al. 2019, sec. VIII, lesson 1: pinning pays once its cost is amortized over the copies
      double perByte = (double) prov.pinNs() / prov.pinnedBytes();
      copies.sort(java.util.Comparator.comparingLong(ReplayProgram.Op::bytes));
      ReplayProgram.Op median = copies.get(copies.size() / 2);
      TransferModel.Endpoints where = TransferModel.Endpoints.gpu(gpu(r, median));
      double saveOne = (m.estimate(median.transfer(), median.bytes(), where, TransferModel.Setting.MEASURED).seconds()
          - m.estimate(median.transfer().pinnedOfSameWay(), median.bytes(), where, TransferModel.Setting.MEASURED)
              .seconds()) * 1e9;
      double copiesToPay = perByte * median.bytes() / Math.max(saveOne, 1e-9);
      a.append(String.format(Locale.ROOT, " Pinning cost %s per MiB in this trace%s: a %s buffer (the median copy) pays"
          + " for its pinning after about %.1f copies of it (Abdelhafez et al. 2019, sec. VIII, lesson 1).",
          Units.time(perByte * (1 << 20) * 1e-9), prov.simulated() ? " (on the simulated device: not a real figure)"
              : "", Units.size(median.bytes()), copiesToPay));
    } else {
      a.append(" The trace pins no memory, so the cost of pinning here is unknown: pinning pays once the copies of a"
          + " buffer have saved more than its cudaHostAlloc or cudaHostRegister costs"
          + " (Abdelhafez et al. 2019, sec. VIII, lesson 1).");
    }
    out.add(a.toString());
  }

  private static int gpu(ReplayResult r, ReplayProgram.Op op) {
    int d = Math.max(op.device(), 0);
    return r.options().deviceMap().getOrDefault(d, d);
  }

  /** The breakdown's classes, in report order, with the copies by kind after "copies". */
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
    return out;
  }
}
