package io.apptrace.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * The fitted part of the kernel model: the power-cap thresholds ({@link PowerCap}; one for GEMMs,
 * one for the ratio that re-times convolutions) and an efficiency table per kernel class (GEMM:
 * against the power-capped FP32 peak, by {@code log10(flops / SMs)}; elementwise and reduction:
 * against the memory bandwidth, by {@code log2(bytes / L2) + 20}). The bundled file ({@code io/apptrace/kernel/kernel-coefficients.yaml})
 * is written by {@code apptrace validate kernels --fit} (docs/ACCURACY.md says from which data);
 * {@code --coefficients FILE} reads another.
 *
 * @param powerCapThreshold W per TFLOP/s of FP32 peak per nm of process below which a GPU's board
 *     power holds its clocks down, as GEMMs priced from their FLOPs see it
 * @param convPowerCapThreshold the same as the ratio of sustained FP32 that re-times convolutions
 *     sees it (fitted to the convolutions' times on pairs of training GPUs; a file without it
 *     takes {@code powerCapThreshold})
 * @param tables the fitted efficiency of each class that has one
 * @param fittedTo the data the coefficients were fitted to, when the file says
 */
public record KernelCoefficients(double powerCapThreshold, double convPowerCapThreshold,
    Map<KernelClass, EfficiencyTable> tables, Optional<FittedTo> fittedTo) {
  /** Where the bundled coefficients are, on the class path. */
  static final String BUNDLED = "/io/apptrace/kernel/kernel-coefficients.yaml";

  private static volatile KernelCoefficients bundled;

  public KernelCoefficients {
    if (!(powerCapThreshold > 0) || !Double.isFinite(powerCapThreshold)) {
      throw new IllegalArgumentException("the power-cap threshold must be more than zero: " + powerCapThreshold);
    }
    if (!(convPowerCapThreshold > 0) || !Double.isFinite(convPowerCapThreshold)) {
      throw new IllegalArgumentException("the convolutions' power-cap threshold must be more than zero: "
          + convPowerCapThreshold);
    }
    tables = tables.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(tables));
    Objects.requireNonNull(fittedTo, "fittedTo");
  }

  /** Coefficients with one power-cap threshold for GEMMs and convolutions alike. */
  public KernelCoefficients(double powerCapThreshold, Map<KernelClass, EfficiencyTable> tables,
      Optional<FittedTo> fittedTo) {
    this(powerCapThreshold, powerCapThreshold, tables, fittedTo);
  }

  /**
   * The data file coefficients were fitted to: its name and SHA-256, the GPUs whose rows the fit
   * used, and those it left out.
   */
  public record FittedTo(String file, String sha256, List<String> gpus, List<String> excluded) {
    public FittedTo {
      gpus = List.copyOf(gpus);
      excluded = List.copyOf(excluded);
    }
  }

  /** The coefficients that ship with apptrace (read once). */
  public static KernelCoefficients bundled() {
    KernelCoefficients c = bundled;
    if (c == null) {
      try (InputStream in = KernelCoefficients.class.getResourceAsStream(BUNDLED)) {
        if (in == null) {
          throw new IllegalStateException("the bundled kernel coefficients are missing from the class path");
        }
        bundled = c = parse("kernel-coefficients.yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException | CoefficientsException e) {
        throw new IllegalStateException("the bundled kernel coefficients do not load: " + e.getMessage(), e);
      }
    }
    return c;
  }

  /** A coefficients file. */
  public static KernelCoefficients load(Path path) throws CoefficientsException {
    try {
      return parse(path.toString(), Files.readString(path, StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      throw new CoefficientsException(path + ": no such file");
    } catch (IOException e) {
      throw new CoefficientsException(path + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /** Coefficients from the text of a file; {@code file} names it in errors. */
  public static KernelCoefficients parse(String file, String text) throws CoefficientsException {
    Object root;
    try {
      root = new Load(LoadSettings.builder().setLabel(file).setCodePointLimit(1 << 20).build()).loadFromString(text);
    } catch (YamlEngineException e) {
      throw new CoefficientsException(file + ": not valid YAML: " + e.getMessage().replaceAll("\\s+", " ").strip());
    }
    Map<?, ?> m = map(file, "the file", root);
    double threshold = number(file, "power_cap_threshold", m.get("power_cap_threshold"));
    double convThreshold = m.get("conv_power_cap_threshold") == null ? threshold
        : number(file, "conv_power_cap_threshold", m.get("conv_power_cap_threshold"));
    Map<KernelClass, EfficiencyTable> tables = new EnumMap<>(KernelClass.class);
    Map<?, ?> t = map(file, "tables", m.get("tables"));
    for (Map.Entry<?, ?> e : t.entrySet()) {
      KernelClass k = classOf(file, String.valueOf(e.getKey()));
      tables.put(k, table(file, "tables." + e.getKey(), map(file, "tables." + e.getKey(), e.getValue())));
    }
    Optional<FittedTo> fitted = Optional.empty();
    if (m.get("fitted_to") != null) {
      Map<?, ?> f = map(file, "fitted_to", m.get("fitted_to"));
      fitted = Optional.of(new FittedTo(String.valueOf(f.get("file")), String.valueOf(f.get("sha256")),
          strings(file, "fitted_to.gpus", f.get("gpus")), strings(file, "fitted_to.excluded", f.get("excluded"))));
    }
    try {
      return new KernelCoefficients(threshold, convThreshold, tables, fitted);
    } catch (IllegalArgumentException e) {
      throw new CoefficientsException(file + ": " + e.getMessage());
    }
  }

  private static KernelClass classOf(String file, String key) throws CoefficientsException {
    for (KernelClass k : KernelClass.values()) {
      if (k.key().equals(key)) {
        return k;
      }
    }
    throw new CoefficientsException(file + ": tables." + key + ": not a kernel class (gemm, conv, elementwise,"
        + " reduction, copy, communication, other)");
  }

  private static EfficiencyTable table(String file, String where, Map<?, ?> m) throws CoefficientsException {
    List<?> v = list(file, where + ".log_efficiency", m.get("log_efficiency"));
    List<?> n = list(file, where + ".samples", m.get("samples"));
    double[] values = new double[v.size()];
    int[] samples = new int[n.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = number(file, where + ".log_efficiency[" + i + "]", v.get(i));
    }
    for (int i = 0; i < samples.length; i++) {
      samples[i] = (int) number(file, where + ".samples[" + i + "]", n.get(i));
    }
    try {
      return new EfficiencyTable(String.valueOf(m.get("feature")), number(file, where + ".start", m.get("start")),
          number(file, where + ".step", m.get("step")), values, samples);
    } catch (IllegalArgumentException e) {
      throw new CoefficientsException(file + ": " + where + ": " + e.getMessage());
    }
  }

  private static Map<?, ?> map(String file, String where, Object o) throws CoefficientsException {
    if (!(o instanceof Map<?, ?> m)) {
      throw new CoefficientsException(file + ": " + where + ": expected a mapping of keys");
    }
    return m;
  }

  private static List<?> list(String file, String where, Object o) throws CoefficientsException {
    if (!(o instanceof List<?> l)) {
      throw new CoefficientsException(file + ": " + where + ": expected a list of numbers");
    }
    return l;
  }

  private static List<String> strings(String file, String where, Object o) throws CoefficientsException {
    List<String> out = new ArrayList<>();
    if (o != null) {
      list(file, where, o).forEach(x -> out.add(String.valueOf(x)));
    }
    return out;
  }

  private static double number(String file, String where, Object o) throws CoefficientsException {
    if (!(o instanceof Number x) || !Double.isFinite(x.doubleValue())) {
      throw new CoefficientsException(file + ": " + where + ": expected a number, found " + o);
    }
    return x.doubleValue();
  }

  /**
   * The coefficients as a file {@link #parse} reads back exactly (every value written with its
   * shortest exact decimal form), with a header saying what it is and how it was made.
   */
  public String toYaml(String command) {
    StringBuilder s = new StringBuilder();
    s.append("# apptrace kernel-model coefficients (docs/COST-MODEL.md, \"Kernels on another GPU\").\n");
    s.append("# Written by: ").append(command).append("\n");
    s.append("# Do not edit by hand: refit with the command above (docs/ACCURACY.md).\n");
    fittedTo.ifPresent(f -> {
      s.append("fitted_to:\n  file: ").append(quote(f.file())).append("\n  sha256: ").append(f.sha256()).append('\n');
      s.append("  gpus: [").append(String.join(", ", f.gpus().stream().map(KernelCoefficients::quote).toList()))
          .append("]\n  excluded: [").append(String.join(", ", f.excluded().stream().map(KernelCoefficients::quote)
              .toList())).append("]\n");
    });
    s.append("# W per TFLOP/s of FP32 peak per nm of process below which board power caps the clocks\n");
    s.append("power_cap_threshold: ").append(powerCapThreshold).append('\n');
    s.append("# the same, for the ratio of sustained FP32 that re-times convolutions\n");
    s.append("conv_power_cap_threshold: ").append(convPowerCapThreshold).append('\n');
    s.append("tables:\n");
    for (KernelClass k : KernelClass.values()) {
      EfficiencyTable t = tables.get(k);
      if (t == null) {
        continue;
      }
      s.append("  ").append(k.key()).append(":\n");
      s.append("    feature: ").append(quote(t.feature())).append('\n');
      s.append("    start: ").append(t.start()).append("\n    step: ").append(t.step()).append('\n');
      s.append("    # ln(efficiency) at each bin's centre; efficiency = exp(value)\n");
      StringBuilder v = new StringBuilder();
      StringBuilder n = new StringBuilder();
      for (int i = 0; i < t.logEfficiency().length; i++) {
        v.append(i == 0 ? "" : ", ").append(t.logEfficiency()[i]);
        n.append(i == 0 ? "" : ", ").append(t.samples()[i]);
      }
      s.append("    log_efficiency: [").append(v).append("]\n");
      s.append("    samples: [").append(n).append("]\n");
    }
    return s.toString();
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Short, for reports: {@code "fitted to kernels.csv.gz (5 GPUs)"}. */
  public String describe() {
    return fittedTo.map(f -> String.format(Locale.ROOT, "fitted to %s (%d GPUs%s)", f.file(), f.gpus().size(),
        f.excluded().isEmpty() ? "" : "; left out: " + String.join(", ", f.excluded()))).orElse("not said where from");
  }
}
