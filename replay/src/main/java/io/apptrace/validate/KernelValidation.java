package io.apptrace.validate;

import io.apptrace.kernel.Dim3;
import io.apptrace.kernel.KernelAlternatives;
import io.apptrace.kernel.KernelClass;
import io.apptrace.kernel.KernelFacts;
import io.apptrace.kernel.KernelTimeModel;
import io.apptrace.kernel.Prediction;
import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The kernel model against measured kernel times (docs/ACCURACY.md, "Kernels on another GPU"):
 * every row of the source GPU is predicted on the target GPU; where the target has a row of the
 * same operation and shape, the prediction is compared with it, beside the datasheet-ratio
 * baselines and the unfitted alternatives of {@link KernelAlternatives}.
 */
public final class KernelValidation {
  /** The baselines' names in outputs. */
  public static final List<String> BASELINES = List.of("bandwidth_ratio", "fp32_ratio");
  /** The alternatives' names in outputs. */
  public static final List<String> ALTERNATIVES = List.of("habitat_waves", "roofline_ratio");

  private KernelValidation() {}

  /** One source row, its prediction and the target's measurement ({@code NaN} when it has none). */
  public record Compared(KernelTimesCsv.Row source, Prediction prediction, double measuredUs) {
    public double predictedUs() {
      return prediction.seconds() * 1e6;
    }
  }

  /** Accuracy over compared pairs: how many, WMAPE and MdAPE (NaN without pairs). */
  public record Figures(long pairs, double wmapePct, double mdapePct) {
    static Figures of(ApeStats s) {
      return new Figures(s.count(), s.wmapePct(), s.mdapePct());
    }
  }

  /**
   * The bands of measured time on the target that {@link Result#byDuration} splits the pairs into:
   * a few long kernels can carry most of a WMAPE, and which band the error sits in says whether the
   * model misses the long kernels or the many short ones.
   */
  public enum DurationBand {
    UNDER_1MS("lt_1ms", "< 1 ms", 1e3),
    MS_1_TO_10("1_10ms", "1-10 ms", 1e4),
    MS_10_TO_100("10_100ms", "10-100 ms", 1e5),
    OVER_100MS("ge_100ms", ">= 100 ms", Double.POSITIVE_INFINITY);

    private final String key;
    private final String label;
    private final double upperUs;

    DurationBand(String key, String label, double upperUs) {
      this.key = key;
      this.label = label;
      this.upperUs = upperUs;
    }

    public String key() {
      return key;
    }

    public String label() {
      return label;
    }

    /** The band of a measured time in microseconds. */
    public static DurationBand of(double us) {
      for (DurationBand b : values()) {
        if (us < b.upperUs) {
          return b;
        }
      }
      return OVER_100MS;
    }
  }

  /** The figures of one duration band and its share of the measured time of all pairs, in percent. */
  public record Band(Figures figures, double timeSharePct) {}

  /**
   * The comparison of one ordered pair of GPUs.
   *
   * @param sourceRows rows of the source GPU (each predicted)
   * @param model the model's figures over the rows the target measured
   * @param byClass the same per kernel class (of the source row's kernel name)
   * @param baselines the figures of {@link #BASELINES}, and {@code baselinesByClass} per class
   * @param alternatives the figures of {@link #ALTERNATIVES} over the rows they can price
   * @param byDuration the model's figures per band of the target's measured time
   * @param methods how many predictions each method of the model gave
   * @param notes what the model said it lacked or assumed, each once
   * @param rows every source row's prediction, when asked for
   */
  public record Result(GpuSpec from, GpuSpec to, int sourceRows, Figures model, Map<KernelClass, Figures> byClass,
      Map<String, Figures> baselines, Map<KernelClass, Map<String, Figures>> baselinesByClass,
      Map<String, Figures> alternatives, Map<DurationBand, Band> byDuration, Map<String, Long> methods, List<String> notes, List<Compared> rows) {}

  /**
   * The catalogue entry of each distinct {@code gpu} value of the data (absent when it names no
   * catalogued GPU).
   */
  public static Map<String, Optional<GpuSpec>> gpus(List<KernelTimesCsv.Row> data, GpuCatalogue catalogue) {
    Map<String, Optional<GpuSpec>> out = new TreeMap<>();
    for (KernelTimesCsv.Row r : data) {
      out.computeIfAbsent(r.gpu(), catalogue::find);
    }
    return out;
  }

  /** The catalogued GPUs of the data, in the order they first appear. */
  public static List<GpuSpec> catalogued(List<KernelTimesCsv.Row> data, GpuCatalogue catalogue) {
    Map<String, GpuSpec> out = new LinkedHashMap<>();
    Map<String, Optional<GpuSpec>> byText = gpus(data, catalogue);
    for (KernelTimesCsv.Row r : data) {
      byText.get(r.gpu()).ifPresent(g -> out.putIfAbsent(g.name(), g));
    }
    return List.copyOf(out.values());
  }

  /**
   * Predicts every row of {@code from} on {@code to} and compares with {@code to}'s rows.
   *
   * @param keepRows whether the result keeps every row's prediction (for {@code --predictions})
   */
  public static Result run(List<KernelTimesCsv.Row> data, GpuCatalogue catalogue, GpuSpec from, GpuSpec to,
      KernelTimeModel model, boolean keepRows) {
    Map<String, Optional<GpuSpec>> gpus = gpus(data, catalogue);
    List<KernelTimesCsv.Row> sources = new ArrayList<>();
    Map<String, Double> measured = new HashMap<>();
    Map<String, Double> floorUs = new HashMap<>();
    for (KernelTimesCsv.Row r : data) {
      String g = gpus.get(r.gpu()).map(GpuSpec::name).orElse("");
      if (g.equals(from.name())) {
        sources.add(r);
        floorUs.merge(r.op(), r.timeUs(), Math::min);
      }
      if (g.equals(to.name())) {
        measured.putIfAbsent(key(r), r.timeUs());
      }
    }
    ApeStats all = new ApeStats();
    Map<KernelClass, ApeStats> byClass = new EnumMap<>(KernelClass.class);
    Map<String, ApeStats> baselines = stats(BASELINES);
    Map<KernelClass, Map<String, ApeStats>> baselinesByClass = new EnumMap<>(KernelClass.class);
    Map<String, ApeStats> alternatives = stats(ALTERNATIVES);
    Map<DurationBand, ApeStats> bands = new EnumMap<>(DurationBand.class);
    Map<String, Long> methods = new TreeMap<>();
    LinkedHashSet<String> notes = new LinkedHashSet<>();
    List<Compared> rows = new ArrayList<>(keepRows ? sources.size() : 0);
    double threshold = model.coefficients().powerCapThreshold();
    for (KernelTimesCsv.Row r : sources) {
      KernelFacts facts = facts(r, floorUs.get(r.op()));
      Prediction p = model.predict(facts, from, to);
      methods.merge(p.method().key(), 1L, Long::sum);
      notes.addAll(p.notes());
      Double m = measured.get(key(r));
      if (keepRows) {
        rows.add(new Compared(r, p, m == null ? Double.NaN : m));
      }
      if (m == null) {
        continue;
      }
      double t = r.timeUs() * 1e-6;
      all.add(m, p.seconds() * 1e6);
      byClass.computeIfAbsent(p.kernelClass(), k -> new ApeStats()).add(m, p.seconds() * 1e6);
      bands.computeIfAbsent(DurationBand.of(m), b -> new ApeStats()).add(m, p.seconds() * 1e6);
      double bw = KernelAlternatives.bandwidthRatio(t, from, to) * 1e6;
      double fp = KernelAlternatives.fp32Ratio(t, from, to) * 1e6;
      baselines.get("bandwidth_ratio").add(m, bw);
      baselines.get("fp32_ratio").add(m, fp);
      Map<String, ApeStats> bc = baselinesByClass.computeIfAbsent(p.kernelClass(), k -> stats(BASELINES));
      bc.get("bandwidth_ratio").add(m, bw);
      bc.get("fp32_ratio").add(m, fp);
      alternatives.get("habitat_waves").add(m, KernelAlternatives.habitatWaves(facts, from, to, threshold) * 1e6);
      alternatives.get("roofline_ratio").add(m, KernelAlternatives.rooflineRatio(facts, from, to, threshold) * 1e6);
    }
    Map<KernelClass, Figures> classes = new EnumMap<>(KernelClass.class);
    byClass.forEach((k, s) -> classes.put(k, Figures.of(s)));
    Map<KernelClass, Map<String, Figures>> bcf = new EnumMap<>(KernelClass.class);
    baselinesByClass.forEach((k, m) -> bcf.put(k, figures(m)));
    Map<DurationBand, Band> byDuration = new EnumMap<>(DurationBand.class);
    bands.forEach((b, st) -> byDuration.put(b, new Band(Figures.of(st), 100 * st.sumActual() / all.sumActual())));
    return new Result(from, to, sources.size(), Figures.of(all), classes, figures(baselines), bcf,
        figures(alternatives), byDuration, methods, List.copyOf(notes), rows);
  }

  /**
   * What the trace would know of a row's kernel: its name (without a {@code kernel_name}, the
   * operation's name, so that {@code gemm_...} and {@code conv_...} operations get their class),
   * launch, FLOPs and bytes, its measured time, and the floor: the least time of its operation on
   * the source GPU.
   */
  static KernelFacts facts(KernelTimesCsv.Row r, double floorUs) {
    KernelFacts f = KernelFacts.named(r.kernelName() != null ? r.kernelName() : r.op())
        .withMeasuredSeconds(r.timeUs() * 1e-6).withFloorSeconds(floorUs * 1e-6);
    Optional<Dim3> grid = Dim3.parse(r.grid());
    Optional<Dim3> block = Dim3.parse(r.block());
    if (grid.isPresent() && block.isPresent()) {
      f = f.withLaunch(grid.get(), block.get());
    }
    if (r.flops() > 0) {
      f = f.withFlops(r.flops());
    }
    if (r.bytes() > 0) {
      f = f.withBytes(r.bytes());
    }
    return f;
  }

  private static String key(KernelTimesCsv.Row r) {
    return r.op() + '\u0000' + r.shape();
  }

  private static Map<String, ApeStats> stats(List<String> names) {
    Map<String, ApeStats> m = new LinkedHashMap<>();
    names.forEach(n -> m.put(n, new ApeStats()));
    return m;
  }

  private static Map<String, Figures> figures(Map<String, ApeStats> m) {
    Map<String, Figures> out = new LinkedHashMap<>();
    m.forEach((k, s) -> out.put(k, Figures.of(s)));
    return out;
  }
}
