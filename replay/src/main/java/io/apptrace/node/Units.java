package io.apptrace.node;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Quantities written with their unit ({@code "900 GB/s"}, {@code "16 GiB"}, {@code "9.42 us"}),
 * as node files and command options give them. Every value comes back in base units: bytes,
 * bytes per second, seconds, hertz, transfers per second, FLOP per second, bits, watts.
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
    WIDTH("width", "\"512 bit\"", Map.of("bit", 1d, "bits", 1d, "B", 8d)),
    POWER("power", "\"300 W\"", Map.of("mW", 1e-3, "W", 1d, "kW", 1e3));

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
      return fixed(seconds * 1e9, 1) + " ns";
    }
    if (a < 1e-3) {
      return fixed(seconds * 1e6, 2) + " us";
    }
    if (a < 1) {
      return fixed(seconds * 1e3, 3) + " ms";
    }
    return fixed(seconds, 3) + " s";
  }

  /** A bandwidth for people, in GB/s (10^9 bytes per second). */
  /**
   * {@code v} with {@code decimals} digits after the point, as {@code String.format("%.Nf")} writes
   * it: the double's shortest decimal form ({@link Double#toString}), rounded half up. Without
   * a Formatter or BigDecimal, whose first uses are a tenth of {@code apptrace model}'s startup
   * (docs/BENCHMARKS.md).
   */
  public static String fixed(double v, int decimals) {
    if (!Double.isFinite(v) || decimals < 0) {
      return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
    // the shortest decimal form's digits, and how many of them come before the point
    String t = Double.toString(Math.abs(v));
    int e = t.indexOf('E');
    int exponent = e < 0 ? 0 : Integer.parseInt(t.substring(e + 1));
    String mantissa = e < 0 ? t : t.substring(0, e);
    int dot = mantissa.indexOf('.');
    StringBuilder digits = new StringBuilder(mantissa.length()).append(mantissa, 0, dot).append(mantissa, dot + 1,
        mantissa.length());
    int point = dot + exponent;
    // as many zeros in front as make the point fall inside the digits, then the digits kept
    while (point <= 0) {
      digits.insert(0, '0');
      point++;
    }
    int keep = point + decimals;
    while (digits.length() < keep) {
      digits.append('0');
    }
    boolean up = digits.length() > keep && digits.charAt(keep) >= '5'; // half up
    digits.setLength(keep);
    for (int i = keep - 1; up && i >= 0; i--) {
      char c = digits.charAt(i);
      if (c == '9') {
        digits.setCharAt(i, '0');
      } else {
        digits.setCharAt(i, (char) (c + 1));
        up = false;
      }
    }
    if (up) {
      digits.insert(0, '1');
      point++;
      keep++;
    }
    // leading zeros of the whole part dropped, one kept
    int start = 0;
    while (start < point - 1 && digits.charAt(start) == '0') {
      start++;
    }
    StringBuilder out = new StringBuilder(digits.length() + 2);
    if (v < 0 || (v == 0 && 1 / v < 0)) {
      out.append('-'); // a negative value that rounds to zero, and -0.0, keep their sign, as with String.format
    }
    out.append(digits, start, point);
    if (decimals > 0) {
      out.append('.').append(digits, point, keep);
    }
    return out.toString();
  }

  public static String bandwidth(double bytesPerSecond) {
    return fixed(bytesPerSecond / 1e9, 2) + " GB/s";
  }

  /**
   * A size for people: {@code 256 B}, {@code 4 KiB}, {@code 1.5 GiB}: a whole number of its unit is
   * exact, anything else is rounded to one decimal of its unit ({@code 50.0 GiB} is not exactly 50
   * GiB). Read back as a size (as every option that takes one reads it), it is the size to within
   * half its last digit.
   */
  public static String size(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = bytes;
    int u = 0;
    while (Math.abs(v) >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return v == Math.rint(v) ? (long) v + " " + units[u] : fixed(v, 1) + " " + units[u];
  }
}
