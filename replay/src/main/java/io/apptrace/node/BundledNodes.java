package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The node files that ship with apptrace ({@code replay/src/main/resources/io/apptrace/nodes/}),
 * listed in that folder's {@code index} (a test checks the index against the folder).
 */
public final class BundledNodes {
  private static volatile List<String> names;

  private BundledNodes() {}

  /** Their names, in the index's order. */
  public static List<String> names() {
    List<String> n = names;
    if (n == null) {
      try (InputStream in = BundledNodes.class.getResourceAsStream(NodeLoader.BUNDLED + "index")) {
        if (in == null) {
          throw new IllegalStateException("the bundled node index is missing from the class path");
        }
        List<String> list = new ArrayList<>();
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          String s = line.strip();
          if (!s.isEmpty() && !s.startsWith("#")) {
            list.add(s);
          }
        }
        names = n = List.copyOf(list);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return n;
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
