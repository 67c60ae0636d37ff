package io.apptrace.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte sizes as users write them: a plain number is bytes ({@code 4096}); a unit counts as
 * written: {@code KB}, {@code MB}, ... are powers of 1000, {@code KiB}, {@code MiB}, ... and, as in
 * GNU coreutils, a bare {@code K}, {@code M}, ... powers of 1024; {@code B} is bytes. A number with
 * a unit may have decimals ({@code 1.5 KiB}), rounded to the nearest byte.
 */
final class Sizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+)(\\.\\d{1,12})?\\s*(?:([KMGTP])(i?)(B?)|(B?))",
      Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  /**
   * Parses a size.
   *
   * @throws UserException (bad usage) when {@code text} is not a size or is too large
   */
  static long parse(String text, String what) {
    Matcher m = SIZE.matcher(text.strip());
    if (!m.matches() || m.group(2) != null && m.group(3) == null) {
      throw new UserException(what + " '" + text + "' is not a size: write bytes (4096) or a"
          + " size with a unit (256KiB, 1.5GiB, 4KB)", ExitCodes.BAD_USAGE);
    }
    int power = m.group(3) == null ? 0 : "KMGTP".indexOf(m.group(3).toUpperCase(Locale.ROOT)) + 1;
    boolean decimal = m.group(3) != null && m.group(4).isEmpty() && !m.group(5).isEmpty();
    long base = decimal ? 1000 : 1024;
    try {
      long whole = Long.parseLong(m.group(1));
      long unit = 1;
      for (int i = 0; i < power; i++) {
        unit = Math.multiplyExact(unit, base);
      }
      long n = Math.multiplyExact(whole, unit);
      if (m.group(2) != null) {
        n = Math.addExact(n, Math.round(Double.parseDouble("0" + m.group(2)) * unit));
      }
      return n;
    } catch (ArithmeticException | NumberFormatException e) {
      throw new UserException(what + " '" + text + "' is too large: at most 8 EiB", ExitCodes.BAD_USAGE);
    }
  }
}
