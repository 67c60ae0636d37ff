package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.node.Node;
import io.apptrace.node.TransferKind;
import io.apptrace.validate.ErrorStats;
import io.apptrace.validate.MeasurementFiles;
import io.apptrace.validate.TransferValidation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What {@code apptrace validate transfers} prints: the table of the main setting (per kind and
 * route, group, size band, overall, with the baselines), every setting side by side, and where the
 * reference L+o came from; or the same as JSON (docs/CLI.md).
 *
 * @param primary the main setting's name, a key of {@code settings}
 * @param settings the results by setting, in report order ({@code reference}, {@code datasheet},
 *     {@code measured})
 * @param fallback the kinds in use that keep the node's own L+o in the reference setting
 * @param inSample the data files the node's measured figures were fitted to: its figures on them
 *     are in-sample
 */
record ValidateReport(Node node, List<Path> data, MeasurementFiles.Selection selection, String primary,
    Map<String, TransferValidation.Result> settings, Optional<ReferenceOptions.Loaded> reference,
    List<TransferKind> fallback, List<String> inSample) {

  TransferValidation.Result main() {
    return settings.get(primary);
  }

  ObjectNode json(ObjectMapper mapper) {
    TransferValidation.Result r = main();
    ObjectNode o = mapper.createObjectNode();
    o.put("node", node.name());
    o.put("data", String.join(", ", data.stream().map(Path::toString).toList()));
    o.put("machine", r.machine());
    o.put("setting", primary);
    o.put("in_sample", !inSample.isEmpty());
    inSample.forEach(o.putArray("fitted_to")::add);
    o.put("rows", r.rows());
    o.set("wmape_pct", figures(mapper, r, x -> x.model, true));
    o.set("mape_pct", figures(mapper, r, x -> x.model, false));
    baselines(mapper, o, r);
    ObjectNode routes = o.putObject("by_route");
    r.byRoute().forEach((route, f) -> routes.set(route, stats(mapper, f)));
    ObjectNode groups = o.putObject("by_group");
    r.byGroup().forEach((g, f) -> groups.set(g, stats(mapper, f)));
    ObjectNode sizes = o.putObject("by_size");
    r.bySize().forEach((b, f) -> sizes.set(b, stats(mapper, f)));
    ObjectNode kinds = o.putObject("by_kind_and_route");
    r.byKindAndRoute().forEach((k, m) -> {
      ObjectNode kn = kinds.putObject(k.key());
      m.forEach((route, f) -> kn.set(route, stats(mapper, f)));
    });
    ObjectNode skipped = o.putObject("skipped");
    r.skipped().forEach(skipped::put);
    ArrayNode files = o.putArray("data_files");
    data.forEach(f -> files.add(f.toString()));
    ObjectNode kindSizes = o.putObject("by_kind_and_size");
    r.byKindAndSize().forEach((k, m) -> {
      ObjectNode kn = kindSizes.putObject(k.key());
      m.forEach((band, f) -> kn.set(band, stats(mapper, f)));
    });
    ObjectNode all = o.putObject("settings");
    settings.forEach((name, s) -> {
      ObjectNode e = all.putObject(name);
      e.put("rows", s.rows());
      e.set("wmape_pct", figures(mapper, s, x -> x.model, true));
      e.set("mape_pct", figures(mapper, s, x -> x.model, false));
      baselines(mapper, e, s);
    });
    if (reference.isPresent()) {
      ReferenceOptions.json(o.putObject("reference"), reference.get());
    } else {
      o.putNull("reference");
    }
    ArrayNode fb = o.putArray("reference_fallback");
    fallback.forEach(k -> fb.add(k.key()));
    return o;
  }

  private static void baselines(ObjectMapper mapper, ObjectNode o, TransferValidation.Result r) {
    ObjectNode base = o.putObject("baselines");
    base.set("peak_bw", figures(mapper, r, x -> x.peakBw, true));
    base.set("back_of_envelope", figures(mapper, r, x -> x.backOfEnvelope, true));
    ObjectNode baseMape = o.putObject("baselines_mape_pct");
    baseMape.set("peak_bw", figures(mapper, r, x -> x.peakBw, false));
    baseMape.set("back_of_envelope", figures(mapper, r, x -> x.backOfEnvelope, false));
  }

  private static ObjectNode figures(ObjectMapper mapper, TransferValidation.Result r,
      Function<TransferValidation.Figures, ErrorStats> which, boolean wmape) {
    ObjectNode o = mapper.createObjectNode();
    for (Map.Entry<TransferKind, TransferValidation.Figures> e : r.byKind().entrySet()) {
      ErrorStats s = which.apply(e.getValue());
      o.put(e.getKey().key(), round(wmape ? s.wmapePct() : s.mapePct()));
    }
    ErrorStats all = which.apply(r.overall());
    o.put("overall", round(wmape ? all.wmapePct() : all.mapePct()));
    return o;
  }

  private static ObjectNode stats(ObjectMapper mapper, TransferValidation.Figures f) {
    ObjectNode o = mapper.createObjectNode();
    o.put("rows", f.model.count());
    o.put("wmape_pct", round(f.model.wmapePct()));
    o.put("mape_pct", round(f.model.mapePct()));
    o.put("peak_bw_wmape_pct", round(f.peakBw.wmapePct()));
    o.put("back_of_envelope_wmape_pct", round(f.backOfEnvelope.wmapePct()));
    return o;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  void text(PrintWriter out) {
    TransferValidation.Result r = main();
    out.printf(Locale.ROOT, "%s against %s, %s setting: %,d measurements%n", node.name(), source(), primary,
        r.rows());
    if (!inSample.isEmpty()) {
      out.printf(Locale.ROOT, "in-sample: %s's measured figures were fitted to %s; these errors say how well the fit"
          + " reproduces its own data, not how well it predicts other data%n", node.name(), String.join(", ", inSample));
    }
    out.printf(Locale.ROOT, "%-20s %-7s %6s  %8s %8s  %13s %13s%n", "kind", "route", "rows", "WMAPE %", "MAPE %",
        "Peak BW WMAPE", "BoE WMAPE");
    r.byKindAndRoute().forEach((k, m) -> {
      m.forEach((route, f) -> row(out, k.key(), route, f));
      if (m.size() > 1) {
        row(out, k.key(), "all", r.byKind().get(k));
      }
    });
    r.byRoute().forEach((route, f) -> row(out, "all kinds", route, f));
    r.byGroup().forEach((g, f) -> row(out, g.equals("dma") ? "DMA kinds" : "pageable kinds", "all", f));
    r.bySize().forEach((b, f) -> row(out, b, "all", f));
    row(out, "overall", "all", r.overall());
    r.skipped().forEach((why, count) -> out.printf(Locale.ROOT, "left out: %,d %s%n", count, why));
    if (settings.size() > 1) {
      sideBySide(out);
    }
    reference.ifPresent(ref -> {
      out.println("L+o from reference node " + ref.latency().node() + " (median measured time of its smallest"
          + " copies, on local routes; Abdelhafez et al. 2019, sec. IV-C):");
      ReferenceOptions.describe(ref).forEach(l -> out.println("  " + l));
      for (TransferKind k : fallback) {
        out.println("  * " + ReferenceOptions.fallbackText(ref, node, k));
      }
    });
  }

  /** {@code FILE (machine M)}, {@code FILE (trace)}, or {@code N files (machine M; K traces)}. */
  private String source() {
    List<String> what = new ArrayList<>();
    if (!selection.machines().isEmpty()) {
      what.add("machine " + String.join(", ", selection.machines()));
    }
    int traces = selection.traces().size();
    if (traces > 0) {
      what.add(data.size() == 1 ? "trace" : traces + " trace" + (traces == 1 ? "" : "s"));
    }
    String files = data.size() == 1 ? data.get(0).toString() : data.size() + " files";
    return files + " (" + String.join("; ", what) + ")";
  }

  private static void row(PrintWriter out, String kind, String route, TransferValidation.Figures f) {
    out.printf(Locale.ROOT, "%-20s %-7s %6d  %8.1f %8.1f  %13.1f %13.1f%n", kind, route, f.model.count(),
        f.model.wmapePct(), f.model.mapePct(), f.peakBw.wmapePct(), f.backOfEnvelope.wmapePct());
  }

  /** Per kind and overall: each setting's WMAPE / MAPE, then the main setting's two baselines. */
  private void sideBySide(PrintWriter out) {
    out.println();
    out.println("settings side by side, WMAPE % / MAPE % (baselines with the " + primary + " setting's L+o"
        + (fallback.isEmpty() ? "" : "; * the reference has no such copies: the node's own L+o") + "):");
    StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-20s %6s", "kind", "rows"));
    settings.keySet().forEach(s -> h.append(String.format(Locale.ROOT, "  %15s", s)));
    h.append(String.format(Locale.ROOT, "  %15s  %16s", "Peak BW", "back-of-envelope"));
    out.println(h);
    TransferValidation.Result r = main();
    r.byKind().forEach((k, f) -> sideRow(out, k.key() + (fallback.contains(k) ? " *" : ""), k));
    sideRow(out, "overall", null);
  }

  private void sideRow(PrintWriter out, String label, TransferKind k) {
    TransferValidation.Result r = main();
    TransferValidation.Figures mainFigures = k == null ? r.overall() : r.byKind().get(k);
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-20s %6d", label, mainFigures.model.count()));
    settings.values().forEach(s -> line.append("  ").append(pair(
        (k == null ? s.overall() : s.byKind().get(k)).model, 15)));
    line.append("  ").append(pair(mainFigures.peakBw, 15)).append("  ").append(pair(mainFigures.backOfEnvelope, 16));
    out.println(line);
  }

  private static String pair(ErrorStats s, int width) {
    return String.format(Locale.ROOT, "%" + width + "s", String.format(Locale.ROOT, "%.1f / %.1f", s.wmapePct(),
        s.mapePct()));
  }
}
