package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.kernel.KernelClass;
import io.apptrace.kernel.KernelCoefficients;
import io.apptrace.node.Units;
import io.apptrace.validate.KernelValidation;
import io.apptrace.validate.KernelValidation.Figures;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code apptrace validate kernels} prints: per pair of GPUs the model's WMAPE and MdAPE
 * overall and per kernel class beside the baselines; with {@code --all-pairs} the matrix and the
 * means; or the same as JSON (docs/CLI.md); and the {@code --predictions} CSV.
 *
 * @param inSample whether the coefficients were fitted to this data file
 */
record KernelsReport(Path data, KernelCoefficients coefficients, boolean inSample) {

  void text(PrintWriter out, KernelValidation.Result r) {
    out.println(r.from().name() + " -> " + r.to().name() + ": " + data.getFileName());
    out.println("  " + r.sourceRows() + " rows predicted, " + r.model().pairs() + " of them measured on "
        + r.to().name() + "; coefficients " + coefficients.describe() + (inSample ? " (in-sample: fitted to this"
        + " file)" : ""));
    if (r.model().pairs() == 0) {
      out.println("  no measurements on " + r.to().name() + ": predictions only");
    } else {
      out.printf(Locale.ROOT, "  %-14s %7s %8s %8s   %-17s %-17s%n", "class", "pairs", "WMAPE", "MdAPE",
          "bandwidth ratio", "FP32 ratio");
      r.byClass().forEach((k, f) -> row(out, k.key(), f, r.baselinesByClass().get(k)));
      row(out, "overall", r.model(), r.baselines());
      StringBuilder alt = new StringBuilder();
      r.alternatives().forEach((name, f) -> alt.append(alt.length() == 0 ? "" : ", ").append(name.replace('_', ' '))
          .append(' ').append(pct(f.wmapePct())).append(" / ").append(pct(f.mdapePct())).append(" (")
          .append(f.pairs()).append(" pairs)"));
      out.println("  unfitted alternatives, WMAPE / MdAPE: " + alt);
      StringBuilder bands = new StringBuilder();
      r.byDuration().forEach((b, band) -> bands.append(bands.length() == 0 ? "" : ", ").append(b.label()).append(' ')
          .append(pct(band.figures().wmapePct())).append(" (").append(band.figures().pairs()).append(" pairs, ")
          .append(pct(band.timeSharePct())).append(" of the time)"));
      out.println("  WMAPE by measured time on " + r.to().name() + ": " + bands);
    }
    StringBuilder m = new StringBuilder();
    r.methods().forEach((k, n) -> m.append(m.length() == 0 ? "" : ", ").append(k).append(' ').append(n));
    out.println("  methods: " + m);
    r.notes().forEach(n -> out.println("  note: " + n));
  }

  private static void row(PrintWriter out, String name, Figures f, Map<String, Figures> baselines) {
    Figures bw = baselines.get("bandwidth_ratio");
    Figures fp = baselines.get("fp32_ratio");
    out.printf(Locale.ROOT, "  %-14s %7d %8s %8s   %-17s %-17s%n", name, f.pairs(), pct(f.wmapePct()),
        pct(f.mdapePct()), pct(bw.wmapePct()) + " / " + pct(bw.mdapePct()), pct(fp.wmapePct()) + " / "
        + pct(fp.mdapePct()));
  }

  void text(PrintWriter out, List<KernelValidation.Result> results, boolean leaveOneOut) {
    out.println("every ordered pair of " + data.getFileName() + "'s GPUs; " + (leaveOneOut
        ? "leave-one-GPU-out: for each target, coefficients fitted without its rows"
        : "coefficients " + coefficients.describe() + (inSample ? " (in-sample: fitted to this file)" : "")));
    out.printf(Locale.ROOT, "  %-48s %7s %9s %9s %9s %9s %9s%n", "from -> to", "pairs", "model", "bandwidth", "FP32",
        "habitat", "roofline");
    for (KernelValidation.Result r : results) {
      out.printf(Locale.ROOT, "  %-48s %7d %9s %9s %9s %9s %9s%n", r.from().name() + " -> " + r.to().name(),
          r.model().pairs(), pct(r.model().wmapePct()), pct(r.baselines().get("bandwidth_ratio").wmapePct()),
          pct(r.baselines().get("fp32_ratio").wmapePct()), pct(r.alternatives().get("habitat_waves").wmapePct()),
          pct(r.alternatives().get("roofline_ratio").wmapePct()));
    }
    out.printf(Locale.ROOT, "  %-48s %7s %9s %9s %9s %9s %9s%n", "mean WMAPE over the pairs", "",
        pct(mean(results, r -> r.model())), pct(mean(results, r -> r.baselines().get("bandwidth_ratio"))),
        pct(mean(results, r -> r.baselines().get("fp32_ratio"))),
        pct(mean(results, r -> r.alternatives().get("habitat_waves"))),
        pct(mean(results, r -> r.alternatives().get("roofline_ratio"))));
    long beaten = results.stream().filter(KernelsReport::beatsBoth).count();
    out.println("  the model's WMAPE is below both baselines on " + beaten + " of " + results.size() + " pairs");
    out.println("  mean WMAPE per class over the pairs (model; bandwidth ratio; FP32 ratio):");
    for (Map.Entry<KernelClass, double[]> e : classMeans(results).entrySet()) {
      double[] v = e.getValue();
      out.printf(Locale.ROOT, "    %-14s %9s %9s %9s  (%d pairs of GPUs)%n", e.getKey().key(), pct(v[0]), pct(v[1]),
          pct(v[2]), (int) v[3]);
    }
    out.println("  mean WMAPE per band of measured time over the pairs (model; share of the time):");
    for (Map.Entry<KernelValidation.DurationBand, double[]> e : bandMeans(results).entrySet()) {
      double[] v = e.getValue();
      out.printf(Locale.ROOT, "    %-14s %9s %9s  (%d pairs of GPUs)%n", e.getKey().label(), pct(v[0]), pct(v[1]),
          (int) v[2]);
    }
  }

  /** Per duration band: mean WMAPE over the pairs that have the band, mean share of the time, number of pairs. */
  static Map<KernelValidation.DurationBand, double[]> bandMeans(List<KernelValidation.Result> results) {
    Map<KernelValidation.DurationBand, double[]> sums = new EnumMap<>(KernelValidation.DurationBand.class);
    for (KernelValidation.Result r : results) {
      r.byDuration().forEach((b, band) -> {
        double[] s = sums.computeIfAbsent(b, x -> new double[3]);
        s[0] += band.figures().wmapePct();
        s[1] += band.timeSharePct();
        s[2]++;
      });
    }
    sums.values().forEach(s -> {
      s[0] /= s[2];
      s[1] /= s[2];
    });
    return sums;
  }

  static boolean beatsBoth(KernelValidation.Result r) {
    double m = r.model().wmapePct();
    return m < r.baselines().get("bandwidth_ratio").wmapePct() && m < r.baselines().get("fp32_ratio").wmapePct();
  }

  static double mean(List<KernelValidation.Result> results, java.util.function.Function<KernelValidation.Result,
      Figures> f) {
    return results.stream().mapToDouble(r -> f.apply(r).wmapePct()).filter(v -> !Double.isNaN(v)).average()
        .orElse(Double.NaN);
  }

  /** Per class: mean model WMAPE, mean bandwidth-ratio WMAPE, mean FP32-ratio WMAPE, number of pairs of GPUs. */
  static Map<KernelClass, double[]> classMeans(List<KernelValidation.Result> results) {
    Map<KernelClass, double[]> sums = new EnumMap<>(KernelClass.class);
    for (KernelValidation.Result r : results) {
      r.byClass().forEach((k, f) -> {
        double[] s = sums.computeIfAbsent(k, x -> new double[4]);
        s[0] += f.wmapePct();
        s[1] += r.baselinesByClass().get(k).get("bandwidth_ratio").wmapePct();
        s[2] += r.baselinesByClass().get(k).get("fp32_ratio").wmapePct();
        s[3]++;
      });
    }
    sums.values().forEach(s -> {
      for (int i = 0; i < 3; i++) {
        s[i] /= s[3];
      }
    });
    return sums;
  }

  ObjectNode json(ObjectMapper mapper, KernelValidation.Result r) {
    ObjectNode o = mapper.createObjectNode();
    o.put("from", r.from().name());
    o.put("to", r.to().name());
    o.put("pairs", r.model().pairs());
    pct(o, "wmape_pct", r.model().wmapePct());
    pct(o, "mdape_pct", r.model().mdapePct());
    ObjectNode byClass = o.putObject("by_class");
    r.byClass().forEach((k, f) -> byClass.set(k.key(), figures(mapper, f)));
    ObjectNode baselines = o.putObject("baselines");
    r.baselines().forEach((k, f) -> baselines.set(k, figures(mapper, f)));
    o.put("data", data.toString());
    o.put("source_rows", r.sourceRows());
    o.put("coefficients", coefficients.describe());
    o.put("in_sample", inSample);
    ObjectNode bc = o.putObject("baselines_by_class");
    r.baselinesByClass().forEach((k, m) -> {
      ObjectNode c = bc.putObject(k.key());
      m.forEach((name, f) -> c.set(name, figures(mapper, f)));
    });
    ObjectNode alternatives = o.putObject("alternatives");
    r.alternatives().forEach((k, f) -> alternatives.set(k, figures(mapper, f)));
    ObjectNode byDuration = o.putObject("by_duration");
    r.byDuration().forEach((b, band) -> {
      ObjectNode d = figures(mapper, band.figures());
      pct(d, "time_share_pct", band.timeSharePct());
      byDuration.set(b.key(), d);
    });
    ObjectNode methods = o.putObject("methods");
    r.methods().forEach(methods::put);
    ArrayNode notes = o.putArray("notes");
    r.notes().forEach(notes::add);
    return o;
  }

  ObjectNode json(ObjectMapper mapper, List<KernelValidation.Result> results, boolean leaveOneOut) {
    ObjectNode o = mapper.createObjectNode();
    o.put("data", data.toString());
    o.put("leave_one_out", leaveOneOut);
    o.put("coefficients", leaveOneOut ? "refitted for each target without its rows" : coefficients.describe());
    o.put("in_sample", inSample);
    pct(o, "mean_wmape_pct", mean(results, KernelValidation.Result::model));
    ObjectNode mb = o.putObject("mean_baselines_wmape_pct");
    for (String b : KernelValidation.BASELINES) {
      pct(mb, b, mean(results, r -> r.baselines().get(b)));
    }
    ObjectNode ma = o.putObject("mean_alternatives_wmape_pct");
    for (String a : KernelValidation.ALTERNATIVES) {
      pct(ma, a, mean(results, r -> r.alternatives().get(a)));
    }
    o.put("pairs_below_both_baselines", results.stream().filter(KernelsReport::beatsBoth).count());
    ObjectNode cm = o.putObject("mean_by_class_wmape_pct");
    classMeans(results).forEach((k, v) -> {
      ObjectNode c = cm.putObject(k.key());
      pct(c, "model", v[0]);
      pct(c, "bandwidth_ratio", v[1]);
      pct(c, "fp32_ratio", v[2]);
      c.put("gpu_pairs", (int) v[3]);
    });
    ObjectNode bm = o.putObject("mean_by_duration");
    bandMeans(results).forEach((b, v) -> {
      ObjectNode d = bm.putObject(b.key());
      pct(d, "wmape_pct", v[0]);
      pct(d, "time_share_pct", v[1]);
      d.put("gpu_pairs", (int) v[2]);
    });
    ArrayNode pairs = o.putArray("pairs");
    results.forEach(r -> pairs.add(json(mapper, r)));
    return o;
  }

  private static ObjectNode figures(ObjectMapper mapper, Figures f) {
    ObjectNode o = mapper.createObjectNode();
    o.put("pairs", f.pairs());
    pct(o, "wmape_pct", f.wmapePct());
    pct(o, "mdape_pct", f.mdapePct());
    return o;
  }

  /** A percentage rounded to 0.01 (null when there is none). */
  private static void pct(ObjectNode o, String key, double v) {
    if (Double.isNaN(v)) {
      o.putNull(key);
    } else {
      o.put(key, Math.round(v * 100) / 100.0);
    }
  }

  private static String pct(double v) {
    return Double.isNaN(v) ? "-" : Units.fixed(v, 1) + "%";
  }

  /** The {@code --predictions} CSV: one row per source row, {@code measured_us} empty where the target has none. */
  static void writePredictions(Path file, KernelValidation.Result r) {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write("op,shape,kernel_name,class,from_us,measured_us,predicted_us\n");
      for (KernelValidation.Compared c : r.rows()) {
        w.write(csv(c.source().op()) + ',' + csv(c.source().shape()) + ',' + csv(c.source().kernelName()) + ','
            + c.prediction().kernelClass().key() + ',' + number(c.source().timeUs()) + ','
            + (Double.isNaN(c.measuredUs()) ? "" : number(c.measuredUs())) + ',' + number(c.predictedUs()) + '\n');
      }
    } catch (IOException e) {
      throw new UserException(file + ": cannot write it (" + e.getMessage() + ")");
    }
  }

  private static String number(double v) {
    return Units.fixed(v, 4);
  }

  private static String csv(String s) {
    if (s == null) {
      return "";
    }
    return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }
}
