package io.apptrace.report;

import static io.apptrace.report.Svg.esc;
import static io.apptrace.report.Svg.n;

import io.apptrace.node.Units;
import java.util.List;

/**
 * A node's copies as bandwidth (GB/s, linear) against size (bytes, logarithmic), one colour per
 * transfer kind: filled dots as projected, hollow ones as measured, the line the transfer model's
 * curve alone on the node.
 */
final class SvgBandwidth {
  static final int WIDTH = 540;
  static final int HEIGHT = 320;
  private static final int LEFT = 56;
  private static final int BOTTOM = 40;
  private static final int TOP = 12;
  private static final int RIGHT = 12;

  private SvgBandwidth() {}

  static String of(CopyBandwidth c) {
    double maxBytes = 2;
    double maxBw = 1;
    for (CopyBandwidth.Series s : c.series()) {
      for (List<double[]> pts : List.of(s.projected(), s.measured(), s.curve())) {
        for (double[] p : pts) {
          maxBytes = Math.max(maxBytes, p[0]);
          maxBw = Math.max(maxBw, p[1]);
        }
      }
    }
    double xMax = Math.ceil(Math.log(maxBytes) / Math.log(2));
    double yMax = niceCeil(maxBw / 1e9);
    double pw = WIDTH - LEFT - RIGHT;
    double ph = HEIGHT - TOP - BOTTOM;
    StringBuilder b = new StringBuilder();
    b.append("<svg class=\"bandwidth\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH)
        .append("\" height=\"").append(HEIGHT).append("\" data-node=\"").append(esc(c.node())).append("\">\n");
    b.append("<rect class=\"frame\" x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"")
        .append(n(pw)).append("\" height=\"").append(n(ph)).append("\"/>\n");
    for (int e = 0; e <= xMax; e += 10) {
      double x = LEFT + e / xMax * pw;
      b.append("<line class=\"grid\" x1=\"").append(n(x)).append("\" x2=\"").append(n(x)).append("\" y1=\"").append(TOP)
          .append("\" y2=\"").append(n(TOP + ph)).append("\"/><text class=\"tick\" x=\"").append(n(x))
          .append("\" y=\"").append(n(TOP + ph + 16)).append("\" text-anchor=\"middle\">")
          .append(Units.size(1L << e)).append("</text>\n");
    }
    for (int k = 0; k <= 4; k++) {
      double v = yMax * k / 4;
      double y = TOP + ph - v / yMax * ph;
      b.append("<line class=\"grid\" x1=\"").append(LEFT).append("\" x2=\"").append(n(LEFT + pw)).append("\" y1=\"")
          .append(n(y)).append("\" y2=\"").append(n(y)).append("\"/><text class=\"tick\" x=\"").append(LEFT - 6)
          .append("\" y=\"").append(n(y + 4)).append("\" text-anchor=\"end\">").append(Svg.n(v)).append("</text>\n");
    }
    b.append("<text class=\"axis-title\" x=\"").append(n(LEFT + pw / 2)).append("\" y=\"").append(HEIGHT - 4)
        .append("\" text-anchor=\"middle\">copy size</text><text class=\"axis-title\" transform=\"translate(14,")
        .append(n(TOP + ph / 2)).append(") rotate(-90)\" text-anchor=\"middle\">GB/s</text>\n");
    int legend = 0;
    for (CopyBandwidth.Series s : c.series()) {
      String colour = Svg.colour(s.kind());
      StringBuilder line = new StringBuilder();
      for (double[] p : s.curve()) {
        line.append(line.length() == 0 ? 'M' : 'L').append(n(x(p[0], xMax, pw))).append(',')
            .append(n(y(p[1], yMax, ph)));
      }
      if (line.length() > 0) {
        b.append("<path class=\"curve\" stroke=\"").append(colour).append("\" d=\"").append(line)
            .append("\"><title>").append(esc(s.kind())).append(": the transfer model alone on the node</title></path>\n");
      }
      for (double[] p : s.measured()) {
        b.append("<circle class=\"measured\" stroke=\"").append(colour).append("\" cx=\"").append(n(x(p[0], xMax, pw)))
            .append("\" cy=\"").append(n(y(p[1], yMax, ph))).append("\" r=\"3\"/>\n");
      }
      for (double[] p : s.projected()) {
        b.append("<circle class=\"projected\" fill=\"").append(colour).append("\" cx=\"").append(n(x(p[0], xMax, pw)))
            .append("\" cy=\"").append(n(y(p[1], yMax, ph))).append("\" r=\"2.5\"><title>").append(esc(s.kind()))
            .append(' ').append(Units.size((long) p[0])).append(": ").append(Units.bandwidth(p[1]))
            .append("</title></circle>\n");
      }
      b.append("<rect x=\"").append(LEFT + 10).append("\" y=\"").append(TOP + 8 + 18 * legend)
          .append("\" width=\"12\" height=\"12\" fill=\"").append(colour).append("\"/><text class=\"legend\" x=\"")
          .append(LEFT + 28).append("\" y=\"").append(TOP + 18 + 18 * legend).append("\">").append(esc(s.kind()))
          .append(" (").append(s.copies()).append(s.copies() == 1 ? " copy" : " copies").append(")</text>\n");
      legend++;
    }
    return b.append("</svg>\n").toString();
  }

  private static double x(double bytes, double xMax, double pw) {
    return LEFT + Math.log(Math.max(1, bytes)) / Math.log(2) / xMax * pw;
  }

  private static double y(double bytesPerSecond, double yMax, double ph) {
    return TOP + ph - bytesPerSecond / 1e9 / yMax * ph;
  }

  /** The smallest 1, 2 or 5 times a power of ten at or above {@code v}. */
  static double niceCeil(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(Math.max(v, 1e-9))));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }
}
