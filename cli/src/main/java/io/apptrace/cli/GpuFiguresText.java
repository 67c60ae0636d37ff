package io.apptrace.cli;

import java.util.Optional;
import io.apptrace.node.Precision;
import io.apptrace.node.Node;
import io.apptrace.node.Units;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The figures of a node's GPUs as its file resolves them, and where each came from (the GPU
 * catalogue or the node file; docs/NODE-FORMAT.md, "gpus"), as YAML comments to print after the
 * file ({@code apptrace nodes --show}). Consecutive GPUs with the same figures share one block.
 */
final class GpuFiguresText {
  private GpuFiguresText() {}

  static String of(Node n) {
    StringBuilder s = new StringBuilder("# GPU figures as this file resolves them (catalogue: the GPU catalogue's entry for"
        + " the model, 'apptrace gpus'; node file: written above):\n");
    List<Node.Gpu> gpus = n.gpus();
    int first = 0;
    for (int i = 1; i <= gpus.size(); i++) {
      if (i < gpus.size() && lines(gpus.get(i)).equals(lines(gpus.get(first)))
          && gpus.get(i).model().equals(gpus.get(first).model())) {
        continue;
      }
      Node.Gpu g = gpus.get(first);
      String ids = i - 1 == first ? g.id() : g.id() + " to " + gpus.get(i - 1).id();
      s.append("#   ").append(ids).append(": ").append(g.model())
          .append(g.catalogued().map(c -> c.name().equals(g.model()) ? "" : " (catalogue: " + c.name() + ")")
              .orElse(" (not in the GPU catalogue)")).append('\n');
      lines(g).forEach(l -> s.append("#     ").append(l).append('\n'));
      first = i;
    }
    return s.toString();
  }

  private static List<String> lines(Node.Gpu g) {
    List<String> out = new ArrayList<>();
    g.origins().forEach((key, origin) -> out.add(String.format(Locale.ROOT, "%-18s %-16s %s", key, value(g, key),
        origin)));
    return out;
  }

  private static String value(Node.Gpu g, String key) {
    return switch (key) {
      case "memory" -> Units.size(Math.round(g.memoryBytes()));
      case "memory_bandwidth" -> Units.bandwidth(g.memoryBandwidth());
      case "sms" -> Integer.toString(g.sms());
      case "clock" -> g.clockHz().isPresent() ? round(g.clockHz().getAsDouble() / 1e6) + " MHz" : "-";
      default -> peak(g, key);
    };
  }

  private static String peak(Node.Gpu g, String key) {
    Optional<Precision> p = key.startsWith("peak_flops.") ? Precision.parse(key.substring(11)) : Optional.empty();
    return p.isPresent() && g.peakFlops().containsKey(p.get()) ? round(g.peakFlops().get(p.get()) / 1e12) + " TFLOP/s"
        : "-";
  }

  /** Four significant digits, no trailing zeros: 19.5, 0.129, 1410. */
  private static String round(double v) {
    return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
  }
}
