package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The node files that ship with apptrace ({@code replay/src/main/resources/io/apptrace/nodes/}),
 * listed in that folder's {@code index} (a test checks the index against the folder).
 */
public final class BundledNodes {
  /** Name, then aliases, per node, in the index's order. */
  private static volatile List<List<String>> entries;

  private BundledNodes() {}

  private static List<List<String>> entries() {
    List<List<String>> e = entries;
    if (e == null) {
      try (InputStream in = BundledNodes.class.getResourceAsStream(NodeLoader.BUNDLED + "index")) {
        if (in == null) {
          throw new IllegalStateException("the bundled node index is missing from the class path");
        }
        List<List<String>> list = new ArrayList<>();
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          String s = line.strip();
          if (!s.isEmpty() && !s.startsWith("#")) {
            list.add(List.of(s.split("\\s+")));
          }
        }
        entries = e = List.copyOf(list);
      } catch (IOException x) {
        throw new UncheckedIOException(x);
      }
    }
    return e;
  }

  /** Their names, in the index's order. */
  public static List<String> names() {
    return entries().stream().map(x -> x.get(0)).toList();
  }

  /** A node's aliases, as the index lists them (its file's {@code aliases}). */
  public static List<String> aliases(String name) {
    return entries().stream().filter(x -> x.get(0).equals(name)).findFirst()
        .map(x -> x.subList(1, x.size())).orElse(List.of());
  }

  /** The bundled node a user means by {@code typed}: its name or an alias, in any case. */
  public static Optional<String> canonical(String typed) {
    for (List<String> e : entries()) {
      for (String n : e) {
        if (n.equalsIgnoreCase(typed)) {
          return Optional.of(e.get(0));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The bundled names closest to {@code typed} (by edit distance, ignoring case and punctuation,
   * at most a third of its length away), nearest first; empty when none is close.
   */
  public static List<String> nearest(String typed) {
    String t = squash(typed);
    int best = Math.max(1, t.length() / 3);
    List<String> out = new ArrayList<>();
    for (List<String> e : entries()) {
      int d = Integer.MAX_VALUE;
      for (String n : e) {
        String s = squash(n);
        d = Math.min(d, s.startsWith(t) && t.length() >= 3 ? 1 : EditDistance.of(t, s));
      }
      if (d < best) {
        best = d;
        out.clear();
      }
      if (d == best) {
        out.add(e.get(0));
      }
    }
    return out;
  }

  private static String squash(String s) {
    return s.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]", "");
  }

  /** Every bundled node, loaded. */
  public static List<Node> all() throws NodeFileException {
    List<Node> out = new ArrayList<>();
    for (String name : names()) {
      out.add(NodeLoader.bundled(name).orElseThrow(() -> new IllegalStateException(
          "the bundled node index names " + name + ", which is not bundled")));
    }
    return out;
  }
}
