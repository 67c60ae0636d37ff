package io.apptrace.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte sizes as users write them: {@code 4096}, {@code 256KiB}, {@code 1GiB}, {@code 4KB}. */
final class Sizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([KMGT]?)(i?)B?", Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  /** Parses a size; KiB, MiB, ... are powers of 1024, KB, MB, ... powers of 1000. */
  static long parse(String text, String what) {
    Matcher m = SIZE.matcher(text.strip());
    if (!m.matches()) {
      throw new UserException(what + " '" + text + "' is not a size: write bytes (4096) or a"
          + " size with a unit (256KiB, 1GiB, 4KB)", ExitCodes.BAD_USAGE);
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2).toUpperCase(Locale.ROOT);
    boolean binary = !m.group(3).isEmpty() || unit.isEmpty();
    int power = "KMGT".indexOf(unit) + 1;
    long base = binary ? 1024 : 1000;
    for (int i = 0; i < power; i++) {
      n = Math.multiplyExact(n, base);
    }
    return n;
  }

  /** A size for people: 1536 -> "1.5 KiB". */
  static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  /** A duration for people: ns -> "1.234 ms". */
  static String duration(long ns) {
    if (ns < 10_000) {
      return ns + " ns";
    }
    if (ns < 10_000_000) {
      return String.format(Locale.ROOT, "%.3f us", ns / 1e3);
    }
    if (ns < 10_000_000_000L) {
      return String.format(Locale.ROOT, "%.3f ms", ns / 1e6);
    }
    return String.format(Locale.ROOT, "%.3f s", ns / 1e9);
  }
}
