package io.apptrace.report;

import java.util.Locale;
import java.util.Map;

/** What the report's SVG drawings share: escaping, coordinates, and the colours of each kind of thing. */
final class Svg {
  private Svg() {}

  /** Text or an attribute value, escaped for HTML and SVG. */
  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c < 0x20 && c != '\n' && c != '\t' ? ' ' : c);
      }
    }
    return b.toString();
  }

  /** A coordinate: two decimals at most, no exponent. */
  static String n(double v) {
    if (!Double.isFinite(v)) {
      return "0";
    }
    String s = String.format(Locale.ROOT, "%.2f", v);
    int end = s.length();
    while (s.charAt(end - 1) == '0') {
      end--;
    }
    if (s.charAt(end - 1) == '.') {
      end--;
    }
    String out = s.substring(0, end);
    return out.equals("-0") ? "0" : out;
  }

  private static final Map<String, String> COLOURS = Map.ofEntries(
      Map.entry("kernels", "#4e79a7"), Map.entry("kernel", "#4e79a7"),
      Map.entry("memsets", "#76b7b2"), Map.entry("memset", "#76b7b2"),
      Map.entry("copy", "#f28e2b"), Map.entry("copies", "#f28e2b"),
      Map.entry("copies pinned_h2d", "#f28e2b"), Map.entry("copies pinned_d2h", "#e15759"),
      Map.entry("copies pageable_h2d", "#ffbe7d"), Map.entry("copies pageable_d2h", "#ff9d9a"),
      Map.entry("copies d2d", "#b07aa1"), Map.entry("copies peer", "#9c755f"),
      Map.entry("calls", "#edc948"), Map.entry("call", "#bab0ac"),
      Map.entry("host", "#59a14f"), Map.entry("idle", "#d4d4d4"),
      Map.entry("range", "#8cd17d"), Map.entry("mixed", "#999999"));

  private static final String[] MORE = {"#b6992d", "#499894", "#86bcb6", "#d37295", "#fabfd2", "#79706e"};

  /** The colour of a breakdown category, an operation kind, or a transfer kind's series. */
  static String colour(String what) {
    String c = COLOURS.get(what);
    if (c != null) {
      return c;
    }
    c = COLOURS.get("copies " + what);
    return c != null ? c : MORE[Math.floorMod(what.hashCode(), MORE.length)];
  }
}
