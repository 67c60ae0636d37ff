package io.apptrace.node;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Quantities written with their unit ({@code "900 GB/s"}, {@code "16 GiB"}, {@code "9.42 us"}),
 * as node files and command options give them. Every value comes back in base units: bytes,
 * bytes per second, seconds, hertz, transfers per second, FLOP per second, bits.
 */
public final class Units {
  /** What a quantity measures, with the units it may be written in. */
  public enum Kind {
    SIZE("size", "\"16 GiB\"", Map.ofEntries(Map.entry("B", 1d), Map.entry("KB", 1e3), Map.entry("MB", 1e6),
        Map.entry("GB", 1e9), Map.entry("TB", 1e12), Map.entry("KiB", 1024d), Map.entry("MiB", 1024d * 1024),
        Map.entry("GiB", 1024d * 1024 * 1024), Map.entry("TiB", 1024d * 1024 * 1024 * 1024))),
    BANDWIDTH("bandwidth", "\"900 GB/s\"", Map.ofEntries(Map.entry("B/s", 1d), Map.entry("KB/s", 1e3),
        Map.entry("MB/s", 1e6), Map.entry("GB/s", 1e9), Map.entry("TB/s", 1e12), Map.entry("KiB/s", 1024d),
        Map.entry("MiB/s", 1024d * 1024), Map.entry("GiB/s", 1024d * 1024 * 1024))),
    // negative scales divide: 10 us is 10 / 1e6 s exactly as written, not 10 * 1e-6
    TIME("time", "\"9.42 us\"", Map.of("ns", -1e9, "us", -1e6, "µs", -1e6, "ms", -1e3, "s", 1d)),
    FREQUENCY("frequency", "\"1.53 GHz\"", Map.of("Hz", 1d, "kHz", 1e3, "MHz", 1e6, "GHz", 1e9)),
    RATE("rate", "\"8 GT/s\"", Map.of("GT/s", 1e9, "MT/s", 1e6)),
    COMPUTE("compute", "\"15.7 TFLOP/s\"", Map.of("FLOP/s", 1d, "GFLOP/s", 1e9, "TFLOP/s", 1e12,
        "PFLOP/s", 1e15)),
    WIDTH("width", "\"512 bit\"", Map.of("bit", 1d, "bits", 1d, "B", 8d));

    private final String noun;
    private final String example;
    private final Map<String, Double> units;

    Kind(String noun, String example, Map<String, Double> units) {
      this.noun = noun;
      this.example = example;
      this.units = units;
    }

    public String noun() {
      return noun;
    }

    /** How to write one, e.g. {@code "900 GB/s"} (with the quotes). */
    public String example() {
      return example;
    }
  }

  private static final Pattern QUANTITY = Pattern.compile("\\s*([0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\\s*(\\S+)?\\s*");

  private Units() {}

  /**
   * The value of {@code text} in the base unit of {@code kind}.
   *
   * @throws IllegalArgumentException with a message that says what is wrong and how to write it
   */
  public static double parse(String text, Kind kind) {
    Matcher m = QUANTITY.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("\"" + text + "\" is not a " + kind.noun() + "; write it like "
          + kind.example());
    }
    String unit = m.group(2);
    if (unit == null) {
      throw new IllegalArgumentException("\"" + text + "\" has no unit; write it like " + kind.example());
    }
    Double scale = kind.units.get(unit);
    if (scale == null) {
      throw new IllegalArgumentException("\"" + text + "\" has no known " + kind.noun() + " unit; write it like "
          + kind.example());
    }
    double v = Double.parseDouble(m.group(1));
    return scale < 0 ? v / -scale : v * scale;
  }

  /** A time for people: {@code 12.3 us}, {@code 4.56 ms}. */
  public static String time(double seconds) {
    double a = Math.abs(seconds);
    if (a == 0) {
      return "0 s";
    }
    if (a < 1e-6) {
      return String.format(Locale.ROOT, "%.1f ns", seconds * 1e9);
    }
    if (a < 1e-3) {
      return String.format(Locale.ROOT, "%.2f us", seconds * 1e6);
    }
    if (a < 1) {
      return String.format(Locale.ROOT, "%.3f ms", seconds * 1e3);
    }
    return String.format(Locale.ROOT, "%.3f s", seconds);
  }

  /** A bandwidth for people, in GB/s (10^9 bytes per second). */
  public static String bandwidth(double bytesPerSecond) {
    return String.format(Locale.ROOT, "%.2f GB/s", bytesPerSecond / 1e9);
  }

  /** A size for people: {@code 256 B}, {@code 4 KiB}, {@code 1.5 GiB}. */
  public static String size(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%d %s", (long) v, units[u])
        : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
