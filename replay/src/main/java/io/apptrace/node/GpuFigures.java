package io.apptrace.node;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * A node file's GPU figures: its {@code model} names a GPU of the catalogue ({@link GpuCatalogue},
 * by name or alias), which gives the memory, memory bandwidth, SMs, clock and peaks; a figure the
 * node file writes itself wins over the catalogue's (docs/NODE-FORMAT.md, "gpus"). Each figure
 * remembers where it came from, for {@code apptrace nodes --show}.
 *
 * <p>The node format's precisions name the GPU's fastest dense rate at that precision, as node files
 * have always written them: {@code fp64} and {@code fp32} the CUDA cores' ({@code fp64}, {@code
 * fp32} in the catalogue), {@code fp16} and {@code bf16} the tensor cores' where the GPU has them
 * ({@code tensor_fp16}, {@code tensor_bf16}), else the CUDA cores'; {@code tf32}, {@code fp8} and
 * {@code int8} the tensor cores' ({@code tensor_tf32}, {@code tensor_fp8}, {@code tensor_int8}).
 *
 * @param memoryBytes the GPU's memory (NaN when written {@code unknown} in a skeleton)
 * @param memoryBandwidth bytes per second (NaN likewise)
 * @param peakFlops dense peaks by the node format's precisions
 * @param sms streaming multiprocessors, 0 when unknown
 * @param clockHz the boost clock, when known
 * @param origins where each figure came from ({@link #CATALOGUE} or {@link #NODE_FILE}), by its key
 *     in the node format ({@code memory}, {@code peak_flops.fp32}, ...), in the format's order
 * @param spec the catalogue's entry with the node file's figures in place of its own; empty for a
 *     skeleton whose model is not catalogued
 */
public record GpuFigures(double memoryBytes, double memoryBandwidth, Map<Precision, Double> peakFlops, int sms,
    OptionalDouble clockHz, Map<String, String> origins, Optional<GpuSpec> spec) {
  /** The origin of a figure taken from the GPU catalogue. */
  public static final String CATALOGUE = "catalogue";
  /** The origin of a figure the node file (or a {@code --set}) gives. */
  public static final String NODE_FILE = "node file";

  public GpuFigures {
    peakFlops = peakFlops.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new EnumMap<>(peakFlops));
    origins = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(origins));
  }

  /**
   * Reads a GPU entry's figures ({@code g}: the entry, its other keys read elsewhere).
   *
   * @param complete whether the node must be complete: then an uncatalogued model whose entry
   *     lacks {@code memory} or {@code memory_bandwidth} is an error naming the nearest catalogue
   *     names (a GPU the catalogue does not know can be described by its figures alone: a machine
   *     {@code calibrate} measured, the simulated device); a skeleton's uncatalogued model needs its
   *     figures in the file (or written {@code unknown})
   */
  static GpuFigures read(YamlMap g, String model, boolean complete, GpuCatalogue catalogue) throws NodeFileException {
    Optional<GpuSpec> found = catalogue.find(model);
    if (found.isEmpty() && complete && !(g.has("memory") && g.has("memory_bandwidth"))) {
      List<String> near = catalogue.nearest(model);
      throw g.error("model", "no GPU named '" + model + "' in the GPU catalogue" + (near.isEmpty() ? ""
          : " (nearest: " + String.join(", ", near) + ")") + "; name a catalogued GPU ('apptrace gpus' lists them),"
          + " or write this GPU's memory and memory_bandwidth in the file");
    }
    Map<String, String> origins = new LinkedHashMap<>();
    double memory = figure(g, "memory", Units.Kind.SIZE, found.flatMap(s -> opt(s.memoryBytes())), origins);
    double bandwidth = figure(g, "memory_bandwidth", Units.Kind.BANDWIDTH,
        found.flatMap(s -> opt(s.memoryBandwidth())), origins);
    Map<Precision, Double> flops = peaks(g, found, origins);
    OptionalInt sms = g.optCount("sms", 1, 100_000);
    if (sms.isPresent()) {
      origins.put("sms", NODE_FILE);
    } else if (found.isPresent() && found.get().sms().isPresent()) {
      sms = found.get().sms();
      origins.put("sms", CATALOGUE);
    }
    OptionalDouble clock = g.optQuantity("clock", Units.Kind.FREQUENCY);
    if (clock.isPresent()) {
      origins.put("clock", NODE_FILE);
    } else if (found.isPresent() && found.get().boostClockHz().isPresent()) {
      clock = found.get().boostClockHz();
      origins.put("clock", CATALOGUE);
    }
    Optional<GpuSpec> spec = found.isEmpty() ? Optional.empty()
        : Optional.of(withNodeFigures(found.get(), memory, bandwidth, flops, sms, clock, origins));
    return new GpuFigures(memory, bandwidth, flops, sms.orElse(0), clock, origins, spec);
  }

  /** A required figure: the node file's, else the catalogue's, else the file's missing key is the error. */
  private static double figure(YamlMap g, String key, Units.Kind kind, Optional<Double> catalogued,
      Map<String, String> origins) throws NodeFileException {
    if (g.has(key) || catalogued.isEmpty()) {
      double v = g.quantity(key, kind);
      origins.put(key, NODE_FILE);
      return v;
    }
    origins.put(key, CATALOGUE);
    return catalogued.get();
  }

  private static Optional<Double> opt(OptionalDouble v) {
    return v.isPresent() ? Optional.of(v.getAsDouble()) : Optional.empty();
  }

  /** The catalogue's peaks by the node format's precisions, each replaced by the node file's where it gives one. */
  private static Map<Precision, Double> peaks(YamlMap g, Optional<GpuSpec> found, Map<String, String> origins)
      throws NodeFileException {
    Map<Precision, Double> fromFile = new EnumMap<>(Precision.class);
    Optional<YamlMap> pf = g.map("peak_flops");
    if (pf.isPresent()) {
      for (String key : pf.get().keys()) {
        Optional<Precision> p = Precision.parse(key);
        if (p.isEmpty()) {
          throw pf.get().keyError(key, "unknown precision '" + key + "' (known: " + Precision.known() + ")");
        }
        fromFile.put(p.get(), pf.get().quantity(key, Units.Kind.COMPUTE));
      }
      pf.get().done();
    }
    Map<Precision, Double> out = new EnumMap<>(Precision.class);
    for (Precision p : Precision.values()) {
      if (fromFile.containsKey(p)) {
        out.put(p, fromFile.get(p));
        origins.put("peak_flops." + p.key(), NODE_FILE);
      } else if (found.isPresent()) {
        OptionalDouble c = catalogued(found.get(), p);
        if (c.isPresent()) {
          out.put(p, c.getAsDouble());
          origins.put("peak_flops." + p.key(), CATALOGUE);
        }
      }
    }
    return out;
  }

  /** The catalogue's peak for a node-format precision ({@link Precision#catalogue()}). */
  static OptionalDouble catalogued(GpuSpec s, Precision precision) {
    for (CataloguePeak c : precision.catalogue()) {
      OptionalDouble v = s.peak(c);
      if (v.isPresent()) {
        return v;
      }
    }
    return OptionalDouble.empty();
  }

  /** The catalogue entry with the node file's figures in its place: what the kernel model prices on. */
  private static GpuSpec withNodeFigures(GpuSpec s, double memory, double bandwidth, Map<Precision, Double> flops,
      OptionalInt sms, OptionalDouble clock, Map<String, String> origins) {
    Map<CataloguePeak, Double> peaks = new EnumMap<>(CataloguePeak.class);
    peaks.putAll(s.peakFlops());
    for (Map.Entry<Precision, Double> e : flops.entrySet()) {
      if (NODE_FILE.equals(origins.get("peak_flops." + e.getKey().key()))) {
        List<CataloguePeak> sources = e.getKey().catalogue();
        CataloguePeak key = sources.stream().filter(c -> s.peak(c).isPresent()).findFirst().orElse(sources.get(0));
        peaks.put(key, e.getValue());
      }
    }
    return new GpuSpec(s.name(), s.aliases(), s.architecture(), s.computeCapability(), sms, clock,
        Double.isNaN(memory) ? s.memoryBytes() : OptionalDouble.of(memory),
        Double.isNaN(bandwidth) ? s.memoryBandwidth() : OptionalDouble.of(bandwidth), s.l2Bytes(), peaks, s.perSm(),
        s.tdpWatts(), s.sources());
  }
}
