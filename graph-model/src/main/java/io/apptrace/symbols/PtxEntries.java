package io.apptrace.symbols;

import java.util.Map;

/** Splits a PTX text into its kernels: {@code .entry name(params) { body }}, by name. */
final class PtxEntries {
  private PtxEntries() {}

  /** Adds each {@code .entry} of {@code ptx} to {@code out}, by name (the first text wins). */
  static void split(String ptx, Map<String, String> out) {
    int at = 0;
    while ((at = ptx.indexOf(".entry", at)) >= 0) {
      int nameStart = at + ".entry".length();
      if (nameStart >= ptx.length() || !Character.isWhitespace(ptx.charAt(nameStart))) {
        at = nameStart;
        continue;
      }
      while (nameStart < ptx.length() && Character.isWhitespace(ptx.charAt(nameStart))) {
        nameStart++;
      }
      int nameEnd = nameStart;
      while (nameEnd < ptx.length() && ptx.charAt(nameEnd) != '(' && ptx.charAt(nameEnd) != '{'
          && !Character.isWhitespace(ptx.charAt(nameEnd))) {
        nameEnd++;
      }
      int open = ptx.indexOf('{', nameEnd);
      if (open < 0) {
        return;
      }
      int depth = 0;
      int end = open;
      for (; end < ptx.length(); end++) {
        char c = ptx.charAt(end);
        if (c == '{') {
          depth++;
        } else if (c == '}' && --depth == 0) {
          break;
        }
      }
      if (end >= ptx.length()) {
        return; // cut short: not an entry this reader can trust
      }
      out.putIfAbsent(ptx.substring(nameStart, nameEnd), ptx.substring(at, end + 1));
      at = end + 1;
    }
  }
}
