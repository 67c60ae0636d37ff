package io.apptrace.validate;

import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The transfer model against measured copy times: WMAPE and MAPE per transfer kind, per local or
 * remote route, and overall, with the same figures for the Peak BW and back-of-envelope baselines
 * (docs/COST-MODEL.md).
 */
public final class TransferValidation {
  /** The error figures of the model and of its two baselines. */
  public static final class Figures {
    public final ErrorStats model = new ErrorStats();
    public final ErrorStats peakBw = new ErrorStats();
    public final ErrorStats backOfEnvelope = new ErrorStats();

    /** A measurement and its estimate, compared in the view the measurement was timed in. */
    void add(double actual, TransferEstimate e, Timing view) {
      model.add(actual, e.seconds(view));
      peakBw.add(actual, e.peakBwSeconds(view));
      backOfEnvelope.add(actual, e.backOfEnvelopeSeconds());
    }

    void addAll(Figures f) {
      model.addAll(f.model);
      peakBw.addAll(f.peakBw);
      backOfEnvelope.addAll(f.backOfEnvelope);
    }
  }

  /**
   * The result.
   *
   * @param byKind per transfer kind (in enum order), all routes
   * @param byKindAndRoute per transfer kind, then "local" or "remote"
   * @param byRoute per "local" or "remote"
   * @param byGroup per group of kinds: "dma" (pinned, write-combined, peer, staged, device to
   *     device: the data moves by DMA alone) and "pageable" (a CPU copy stages it)
   * @param bySize per size band: {@link #BANDS}
   * @param byKindAndSize per transfer kind, then size band (the bands it has rows in)
   */
  public record Result(String machine, TransferModel.Setting setting, int rows, Map<TransferKind, Figures> byKind,
      Map<TransferKind, Map<String, Figures>> byKindAndRoute, Map<String, Figures> byRoute,
      Map<String, Figures> byGroup, Map<String, Figures> bySize, Figures overall, Map<String, Integer> skipped,
      Map<TransferKind, Map<String, Figures>> byKindAndSize) {}

  /** Size bands, for where the model is weak: below 256 KiB, 256 KiB to 1 MiB, above 1 MiB. */
  public static final List<String> BANDS = List.of("< 256 KiB", "256 KiB - 1 MiB", "> 1 MiB");

  static String band(long bytes) {
    return bytes < 256 * 1024 ? BANDS.get(0) : bytes <= 1024 * 1024 ? BANDS.get(1) : BANDS.get(2);
  }

  static String group(TransferKind k) {
    return k == TransferKind.PAGEABLE_H2D || k == TransferKind.PAGEABLE_D2H ? "pageable" : "dma";
  }

  private TransferValidation() {}

  /** Compares every row of {@code machine} with the model. */
  public static Result run(TransferModel model, MemcpyData.Data data, String machine, TransferModel.Setting setting)
      throws NodeFileException {
    List<MemcpyData.Measurement> rows = data.rows().stream().filter(m -> m.machine().equals(machine)).toList();
    return run(model, rows, data.skipped(), machine, setting);
  }

  /**
   * Compares every row with the model.
   *
   * @param skipped rows already left out, by reason (the result adds its own)
   * @param machine what the rows are of, for the report
   */
  public static Result run(TransferModel model, List<MemcpyData.Measurement> data, Map<String, Integer> skipped,
      String machine, TransferModel.Setting setting) throws NodeFileException {
    Map<TransferKind, Figures> byKind = new EnumMap<>(TransferKind.class);
    Map<TransferKind, Map<String, Figures>> byKindAndRoute = new EnumMap<>(TransferKind.class);
    Map<TransferKind, Map<String, Figures>> byKindAndSize = new EnumMap<>(TransferKind.class);
    Map<String, Figures> byRoute = new TreeMap<>();
    Map<String, Figures> byGroup = new TreeMap<>();
    Map<String, Figures> bySize = new LinkedHashMap<>();
    BANDS.forEach(b -> bySize.put(b, new Figures()));
    Figures overall = new Figures();
    Map<String, Integer> left = new TreeMap<>(skipped);
    int rows = 0;
    for (MemcpyData.Measurement m : data) {
      if (m.srcGpu() >= model.node().gpus().size() || m.dstGpu() >= model.node().gpus().size()) {
        left.merge("rows naming a GPU the node does not have", 1, Integer::sum);
        continue;
      }
      if (m.numa() >= 0 && model.node().cpuOfNuma(m.numa()).isEmpty()) {
        left.merge("rows naming a NUMA node the node does not have", 1, Integer::sum);
        continue;
      }
      TransferEstimate e = model.estimate(m.kind(), m.bytes(), new TransferModel.Endpoints(m.numa(), m.srcGpu(),
          m.dstGpu()), setting);
      String route = e.remote() ? "remote" : "local";
      Figures f = new Figures();
      f.add(m.medianSeconds(), e, m.timed());
      byKind.computeIfAbsent(m.kind(), k -> new Figures()).addAll(f);
      byKindAndRoute.computeIfAbsent(m.kind(), k -> new TreeMap<>()).computeIfAbsent(route, r -> new Figures())
          .addAll(f);
      byRoute.computeIfAbsent(route, r -> new Figures()).addAll(f);
      byGroup.computeIfAbsent(group(m.kind()), g -> new Figures()).addAll(f);
      bySize.get(band(m.bytes())).addAll(f);
      byKindAndSize.computeIfAbsent(m.kind(), k -> new TreeMap<>(Comparator.comparingInt(BANDS::indexOf)))
          .computeIfAbsent(band(m.bytes()), b -> new Figures()).addAll(f);
      overall.addAll(f);
      rows++;
    }
    bySize.values().removeIf(f -> f.model.count() == 0);
    return new Result(machine, setting, rows, byKind, byKindAndRoute, byRoute, byGroup, bySize, overall, left,
        byKindAndSize);
  }
}
