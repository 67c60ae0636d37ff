package io.apptrace.report;

import static io.apptrace.report.Svg.esc;

import io.apptrace.node.Units;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Writes a {@link ReportPage} as one self-contained HTML file: its style and its script (zoom and
 * pan, report.js) inline, its drawings inline SVG, nothing fetched from anywhere, so it opens
 * offline in any browser. Sections: makespans and critical paths, timelines, copies, what-ifs,
 * advice.
 */
public final class HtmlReport {
  private final Writer w;

  private HtmlReport(Writer w) {
    this.w = w;
  }

  public static void write(ReportPage page, Writer out) throws IOException {
    new HtmlReport(out).page(page);
    out.flush();
  }

  private void page(ReportPage p) throws IOException {
    ReportData d = p.data();
    w.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>apptrace report: "
        + esc(d.trace()) + "</title>\n<style>\n" + resource("report.css") + "</style>\n</head>\n<body>\n");
    w.write("<h1>apptrace report</h1>\n<p class=\"trace\">trace <code>" + esc(d.trace()) + "</code>"
        + (d.region() == null ? ", the whole program" : ", " + esc(d.region())) + "; projected on "
        + d.nodes().size() + (d.nodes().size() == 1 ? " node" : " nodes") + ".</p>\n");
    makespans(d);
    timelines(p);
    copies(p);
    whatIfs(d);
    advice(d);
    w.write("<footer>Written by <code>apptrace report</code> (docs/REPORT.md). The numbers are those of"
        + " <code>apptrace replay --json</code> with the same options.</footer>\n<script>\n" + resource("report.js")
        + "</script>\n</body>\n</html>\n");
  }

  private void makespans(ReportData d) throws IOException {
    w.write("<section id=\"makespans\">\n<h2>Makespan and critical path</h2>\n<p>Each node's projected makespan,"
        + " split along its critical path: what the longest chain of work spent its time on.</p>\n");
    w.write("<div class=\"scroll\"><table id=\"summary\">\n<tr><th>node</th><th>makespan</th><th>speedup over the first</th>"
        + "<th>measured makespan</th>");
    java.util.Set<String> first = new java.util.LinkedHashSet<>();
    d.nodes().forEach(s -> first.addAll(s.breakdownNs().keySet()));
    for (String k : first) {
      w.write("<th>" + esc(k) + "</th>");
    }
    w.write("</tr>\n");
    for (ReportData.NodeSummary s : d.nodes()) {
      w.write("<tr data-node=\"" + esc(s.node()) + "\"><td>" + esc(s.node()) + "</td><td class=\"makespan\" data-ns=\""
          + s.makespanNs() + "\">" + time(s.makespanNs()) + "</td><td class=\"speedup\" data-value=\""
          + s.speedupOverFirst() + "\">" + String.format(Locale.ROOT, "%.2fx", s.speedupOverFirst()) + "</td><td>"
          + (s.measuredMakespanNs() < 0 ? "not measured" : "<span class=\"measured\" data-ns=\""
              + s.measuredMakespanNs() + "\">" + time(s.measuredMakespanNs()) + "</span>") + "</td>");
      for (String k : first) {
        Long v = s.breakdownNs().get(k);
        w.write(v == null ? "<td title=\"not on this node's critical path\">&mdash;</td>" : "<td class=\"category\" data-category=\"" + esc(k) + "\" data-ns=\"" + v
            + "\">" + time(v) + "</td>");
      }
      w.write("</tr>\n");
    }
    w.write("</table></div>\n");
    w.write(SvgBreakdown.of(d));
    if (!d.comparisons().isEmpty()) {
      w.write("<h3>Why one node beats another</h3>\n<ul class=\"why\">\n");
      for (ReportData.Comparison c : d.comparisons()) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        for (ReportData.Category k : c.categories()) {
          if (shown++ == 4) {
            break;
          }
          b.append(shown > 1 ? "; " : "").append(esc(k.name())).append(' ').append(k.differenceNs() >= 0 ? "+" : "-")
              .append(time(Math.abs(k.differenceNs()))).append(" (").append(time(k.againstNs())).append(" &rarr; ")
              .append(time(k.nodeNs())).append(')');
        }
        w.write("<li>" + esc(c.node()) + " against " + esc(c.against()) + " ("
            + String.format(Locale.ROOT, "%.2fx", c.speedup()) + "): "
            + (b.length() == 0 ? "the same critical path" : b) + "</li>\n");
      }
      w.write("</ul>\n");
    }
    w.write("</section>\n");
  }

  private void timelines(ReportPage p) throws IOException {
    w.write("<section id=\"timelines\">\n<h2>Timelines</h2>\n<p>Every timeline on one time axis: scroll over one to"
        + " zoom, drag to pan, double-click to see it all; all of them follow. Hover a slice for what it is."
        + " <span class=\"controls\"><button data-zoom=\"in\">zoom in</button><button data-zoom=\"out\">zoom out"
        + "</button><button data-zoom=\"reset\">all</button></span></p>\n");
    double span = p.spanNs();
    if (p.measured() != null) {
      figure(p.measured(), "timeline-measured", span);
    } else {
      w.write("<p class=\"note\">The trace has no measured GPU times (a capture on the simulated device): there is"
          + " no measured timeline to show beside the projections.</p>\n");
    }
    for (int i = 0; i < p.projected().size(); i++) {
      figure(p.projected().get(i), "timeline-" + i, span);
    }
    w.write("</section>\n");
  }

  private void figure(TimelineLanes t, String id, double span) throws IOException {
    w.write("<figure class=\"timeline\"><figcaption>" + esc(t.title()) + ": " + time((long) t.spanNs())
        + "</figcaption>\n");
    w.write(SvgTimeline.of(t, id, span));
    w.write("</figure>\n");
  }

  private void copies(ReportPage p) throws IOException {
    w.write("<section id=\"copies\">\n<h2>Copies: bandwidth against size</h2>\n<p>The trace's copies on each node,"
        + " as projected (dots; a copy that shared its links is slower than alone) and as measured (rings), with the"
        + " transfer model's curve for each kind alone on the node (docs/COST-MODEL.md).</p>\n");
    boolean any = p.copies().stream().anyMatch(c -> !c.series().isEmpty());
    if (!any) {
      w.write("<p class=\"empty\">the trace has no copies between host and GPU or between GPUs</p>\n");
    } else {
      w.write("<div class=\"charts\">\n");
      for (CopyBandwidth c : p.copies()) {
        w.write("<figure><figcaption>" + esc(c.node()) + "</figcaption>\n" + SvgBandwidth.of(c) + "</figure>\n");
      }
      w.write("</div>\n");
    }
    w.write("</section>\n");
  }

  private void whatIfs(ReportData d) throws IOException {
    w.write("<section id=\"what-ifs\">\n<h2>What-ifs</h2>\n");
    if (d.whatIfs().isEmpty()) {
      w.write("<p class=\"empty\">no what-ifs requested</p>\n</section>\n");
      return;
    }
    w.write("<table id=\"what-if-table\">\n<tr><th>what-if</th><th>node</th><th>makespan before</th>"
        + "<th>after</th><th>speedup</th></tr>\n");
    for (WhatIf x : d.whatIfs()) {
      for (WhatIf.NodeResult r : x.nodes()) {
        w.write("<tr data-what-if=\"" + esc(x.name()) + "\" data-node=\"" + esc(r.node()) + "\"><td>" + esc(x.name())
            + "</td><td>" + esc(r.node()) + "</td><td class=\"before\" data-ns=\"" + r.beforeNs() + "\">"
            + time(r.beforeNs()) + "</td><td class=\"after\" data-ns=\"" + r.afterNs() + "\">" + time(r.afterNs())
            + "</td><td>" + String.format(Locale.ROOT, "%.2fx", r.speedup()) + "</td></tr>\n");
      }
    }
    w.write("</table>\n</section>\n");
  }

  private void advice(ReportData d) throws IOException {
    w.write("<section id=\"advice\">\n<h2>Advice</h2>\n");
    for (ReportData.NodeSummary s : d.nodes()) {
      w.write("<h3>" + esc(s.node()) + "</h3>\n");
      if (s.advice().isEmpty()) {
        w.write("<p class=\"empty\">no advice for this node</p>\n");
      } else {
        w.write("<ul class=\"advice\" data-node=\"" + esc(s.node()) + "\">\n");
        for (String a : s.advice()) {
          w.write("<li>" + esc(a) + "</li>\n");
        }
        w.write("</ul>\n");
      }
      if (!s.notes().isEmpty()) {
        w.write("<details><summary>notes (" + s.notes().size() + ")</summary><ul class=\"notes\">\n");
        for (String n : s.notes()) {
          w.write("<li>" + esc(n) + "</li>\n");
        }
        w.write("</ul></details>\n");
      }
    }
    w.write("</section>\n");
  }

  private static String time(long ns) {
    return Units.time(ns * 1e-9);
  }

  private static String resource(String name) {
    try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the report's " + name + " is missing from the build");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
