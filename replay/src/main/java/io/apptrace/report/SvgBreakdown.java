package io.apptrace.report;

import static io.apptrace.report.Svg.esc;
import static io.apptrace.report.Svg.n;

import io.apptrace.node.Units;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The makespan of each node as one bar, split along its critical path by category (kernels,
 * memsets, copies by kind, CUDA calls, host compute, idle), all bars on one scale.
 */
final class SvgBreakdown {
  static final int WIDTH = 1100;
  private static final int LABEL = 170;
  private static final int RIGHT = 110;
  private static final int BAR = 24;
  private static final int GAP = 10;

  private SvgBreakdown() {}

  static String of(ReportData d) {
    long longest = 1;
    Set<String> categories = new LinkedHashSet<>();
    for (ReportData.NodeSummary s : d.nodes()) {
      longest = Math.max(longest, s.makespanNs());
      s.breakdownNs().forEach((k, v) -> {
        if (v > 0) {
          categories.add(k);
        }
      });
    }
    double plot = WIDTH - LABEL - RIGHT;
    int legendY = d.nodes().size() * (BAR + GAP) + 8;
    int height = legendY + 24 * ((categories.size() + 5) / 6) + 8;
    StringBuilder b = new StringBuilder();
    b.append("<svg class=\"breakdown\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH)
        .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
        .append("\">\n");
    int y = 4;
    for (ReportData.NodeSummary s : d.nodes()) {
      b.append("<text class=\"label\" x=\"").append(LABEL - 8).append("\" y=\"").append(y + BAR / 2 + 5)
          .append("\" text-anchor=\"end\">").append(esc(s.node())).append("</text>\n");
      double x = LABEL;
      for (Map.Entry<String, Long> c : s.breakdownNs().entrySet()) {
        if (c.getValue() <= 0) {
          continue;
        }
        double w = c.getValue() * plot / longest;
        b.append("<rect class=\"seg\" data-node=\"").append(esc(s.node())).append("\" data-category=\"")
            .append(esc(c.getKey())).append("\" data-ns=\"").append(c.getValue()).append("\" x=\"").append(n(x))
            .append("\" y=\"").append(y).append("\" width=\"").append(n(w)).append("\" height=\"").append(BAR)
            .append("\" fill=\"").append(Svg.colour(c.getKey())).append("\"><title>").append(esc(c.getKey()))
            .append(": ").append(Units.time(c.getValue() * 1e-9)).append(" of ").append(Units.time(s.makespanNs() * 1e-9))
            .append("</title></rect>\n");
        x += w;
      }
      b.append("<text class=\"makespan\" x=\"").append(n(x + 6)).append("\" y=\"").append(y + BAR / 2 + 5)
          .append("\">").append(Units.time(s.makespanNs() * 1e-9)).append("</text>\n");
      y += BAR + GAP;
    }
    int i = 0;
    for (String c : categories) {
      int lx = LABEL + (i % 6) * 150;
      int ly = legendY + 24 * (i / 6);
      b.append("<rect x=\"").append(lx).append("\" y=\"").append(ly).append("\" width=\"14\" height=\"14\" fill=\"")
          .append(Svg.colour(c)).append("\"/><text class=\"legend\" x=\"").append(lx + 20).append("\" y=\"")
          .append(ly + 12).append("\">").append(esc(c)).append("</text>\n");
      i++;
    }
    return b.append("</svg>\n").toString();
  }
}
