package io.apptrace.report;

import static io.apptrace.report.Svg.esc;
import static io.apptrace.report.Svg.n;

import io.apptrace.node.Units;
import java.util.ArrayList;
import java.util.List;

/**
 * One timeline as SVG: a lane per host thread, NVTX ranges, stream, copy engine, transfer track and
 * link, grouped, on a time axis every timeline of the page shares. The lanes are drawn at the
 * whole span; the page's script (report.js) zooms and pans all timelines together by
 * transforming their {@code g.zoom} group and redraws the axis.
 */
final class SvgTimeline {
  static final int WIDTH = 1100;
  static final int LABEL = 250;
  static final int PLOT = WIDTH - LABEL - 10;
  private static final int LANE = 16;
  private static final int HEADER = 18;
  private static final int AXIS = 24;
  /** Utilization points a link's lane draws at most (the busiest of each run of points is kept). */
  static final int MAX_POINTS = 4_000;

  private SvgTimeline() {}

  /**
   * @param id unique in the page (its clip path's id)
   * @param spanNs the time the page's axis spans
   */
  static String of(TimelineLanes t, String id, double spanNs) {
    double scale = PLOT / spanNs;
    StringBuilder lanes = new StringBuilder();
    StringBuilder labels = new StringBuilder();
    int y = AXIS;
    TimelineLanes.Group group = null;
    for (TimelineLanes.Lane l : t.lanes()) {
      if (l.group() != group) {
        group = l.group();
        labels.append("<text class=\"group\" x=\"4\" y=\"").append(y + HEADER - 5).append("\">")
            .append(esc(group.label())).append("</text>\n");
        y += HEADER;
      }
      labels.append("<text class=\"lane\" x=\"14\" y=\"").append(y + LANE - 4).append("\">").append(esc(l.name()))
          .append("</text>\n");
      lanes.append("<rect class=\"bg\" x=\"0\" y=\"").append(y).append("\" width=\"").append(PLOT)
          .append("\" height=\"").append(LANE - 1).append("\"/>\n");
      for (TimelineLanes.Slice s : l.slices()) {
        lanes.append("<rect class=\"s ").append(s.style()).append("\" x=\"").append(n(s.startNs() * scale))
            .append("\" y=\"").append(y + 1).append("\" width=\"").append(n(Math.max(0.2, (s.endNs() - s.startNs())
                * scale))).append("\" height=\"").append(LANE - 3).append("\"><title>").append(esc(s.label()))
            .append(": ").append(Units.time(s.startNs() * 1e-9)).append(" to ").append(Units.time(s.endNs() * 1e-9))
            .append(" (").append(Units.time((s.endNs() - s.startNs()) * 1e-9)).append(")</title></rect>\n");
      }
      if (!l.points().isEmpty()) {
        lanes.append("<path class=\"util\" d=\"").append(steps(l.points(), scale, y + LANE - 2, LANE - 3))
            .append("\"><title>").append(esc(l.name())).append(": utilization, 0 to 1</title></path>\n");
      }
      y += LANE;
    }
    int height = y + 6;
    StringBuilder b = new StringBuilder();
    b.append("<svg class=\"timeline\" id=\"").append(esc(id)).append("\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH).append("\" height=\"").append(height).append("\" data-span-ns=\"").append(n(spanNs))
        .append("\" data-plot-x=\"").append(LABEL).append("\" data-plot-width=\"").append(PLOT).append("\">\n")
        .append("<defs><clipPath id=\"").append(esc(id)).append("-clip\"><rect x=\"").append(LABEL)
        .append("\" y=\"0\" width=\"").append(PLOT).append("\" height=\"").append(height).append("\"/></clipPath></defs>\n")
        .append("<g class=\"axis\" transform=\"translate(").append(LABEL).append(",0)\"></g>\n")
        .append("<g clip-path=\"url(#").append(esc(id)).append("-clip)\"><g class=\"zoom\" transform=\"translate(")
        .append(LABEL).append(",0)\">\n").append(lanes).append("</g></g>\n").append(labels).append("</svg>\n");
    return b.toString();
  }

  /** A step line of utilization points (time ns, 0 to 1) on a lane whose bottom is {@code base}. */
  private static String steps(List<double[]> points, double scale, double base, double height) {
    List<double[]> pts = points.size() <= MAX_POINTS ? points : busiest(points, MAX_POINTS);
    StringBuilder d = new StringBuilder();
    d.append('M').append(n(pts.get(0)[0] * scale)).append(',').append(n(base - pts.get(0)[1] * height));
    for (int i = 1; i < pts.size(); i++) {
      d.append('H').append(n(pts.get(i)[0] * scale)).append('V').append(n(base - pts.get(i)[1] * height));
    }
    return d.toString();
  }

  /** At most {@code max} points: each run of points in a row keeps its busiest, at the run's first time. */
  static List<double[]> busiest(List<double[]> points, int max) {
    int run = (points.size() + max - 1) / max;
    List<double[]> out = new ArrayList<>();
    for (int i = 0; i < points.size(); i += run) {
      double u = 0;
      for (int k = i; k < Math.min(points.size(), i + run); k++) {
        u = Math.max(u, points.get(k)[1]);
      }
      out.add(new double[] {points.get(i)[0], u});
    }
    out.add(points.get(points.size() - 1));
    return out;
  }
}
