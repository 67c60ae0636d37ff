package io.apptrace.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.validate.ErrorStats;
import java.util.List;
import java.util.Map;

/**
 * {@code apptrace replay --json}: the stable summary (docs/CLI.md; keys are only ever added).
 * Schema {@code apptrace.replay/1}.
 */
public final class ReplayJson {
  /** Critical-path segments written at most (the rest are counted). */
  static final int PATH_SEGMENTS = 500;

  private ReplayJson() {}

  public static ObjectNode of(List<ReplayResult> results, String trace) {
    return of(results, trace, 0);
  }

  /**
   * The document, with {@code comparisons}: per node after the first, the categories of the
   * critical path that differ from the first node's ({@link NodeComparison}) and the {@code diffOps}
   * operations whose durations differ most.
   */
  public static ObjectNode of(List<ReplayResult> results, String trace, int diffOps) {
    ObjectNode root = document(results, trace);
    ArrayNode comparisons = root.putArray("comparisons");
    for (NodeComparison c : NodeComparison.againstFirst(results, diffOps)) {
      ObjectNode o = comparisons.addObject();
      o.put("node", c.other().node().name());
      o.put("against", c.base().node().name());
      o.put("speedup", c.speedup());
      ArrayNode cats = o.putArray("categories");
      for (NodeComparison.Category k : c.categories()) {
        ObjectNode x = cats.addObject();
        x.put("category", k.name());
        x.put("against_ns", Math.round(k.baseNs()));
        x.put("node_ns", Math.round(k.otherNs()));
        x.put("difference_ns", Math.round(k.differenceNs()));
      }
      ArrayNode ops = o.putArray("operations");
      for (NodeComparison.Op op : c.ops()) {
        ObjectNode x = ops.addObject();
        x.put("op", op.op());
        x.put("name", c.base().program().ops().get(op.op()).name());
        x.put("against_ns", Math.round(op.baseNs()));
        x.put("node_ns", Math.round(op.otherNs()));
        x.put("difference_ns", Math.round(op.differenceNs()));
      }
    }
    return root;
  }

  private static ObjectNode document(List<ReplayResult> results, String trace) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode root = mapper.createObjectNode();
    root.put("schema", "apptrace.replay/1");
    root.put("trace", trace);
    ArrayNode nodes = root.putArray("nodes");
    double first = results.isEmpty() ? 0 : results.get(0).makespanNs();
    for (ReplayResult r : results) {
      ObjectNode n = nodes.addObject();
      n.put("node", r.node().name());
      n.put("node_source", r.node().source());
      n.put("operations", r.ops().size());
      n.put("makespan_ns", Math.round(r.makespanNs()));
      long measured = r.program().measuredMakespanNs();
      if (measured >= 0) {
        n.put("measured_makespan_ns", measured);
        n.put("speedup_vs_measured", measured / Math.max(1.0, r.makespanNs()));
      } else {
        n.putNull("measured_makespan_ns");
        n.putNull("speedup_vs_measured");
      }
      n.put("speedup_over_first", first / Math.max(1.0, r.makespanNs()));
      ObjectNode b = n.putObject("breakdown_ns");
      ObjectNode byKind = mapper.createObjectNode();
      ObjectNode callsByKind = mapper.createObjectNode();
      ReplayReport.orderedBreakdown(r).forEach((k, v) -> {
        if (k.startsWith("copies ")) {
          byKind.put(k.substring(7), Math.round(v));
        } else if (k.startsWith("calls ")) {
          callsByKind.put(k.substring(6), Math.round(v));
        } else {
          b.put(k, Math.round(v));
        }
      });
      b.set("copies_by_kind", byKind);
      b.set("calls_by_kind", callsByKind);
      ObjectNode fixed = n.putObject("fixed_costs");
      FixedCostReport.of(r).forEach((k, l) -> {
        ObjectNode c = fixed.putObject(k);
        c.put("latency_ns", Math.round(l.seconds() * 1e9));
        c.put("latency_call_ns", Math.round(l.callSeconds() * 1e9));
        c.put("timed", l.timed().key());
        c.put("source", l.source());
        l.conversion().ifPresent(x -> c.put("conversion", x));
      });
      ObjectNode busy = n.putObject("engine_busy_ns");
      r.engineBusy().forEach((k, v) -> busy.put(k, Math.round(v)));
      ObjectNode linkBusy = n.putObject("link_busy_ns");
      r.linkBusy().forEach((k, v) -> linkBusy.put(k, Math.round(v)));
      SourceNodeMatch.Result source = SourceNodeMatch.of(r);
      boolean other = source.verdict() == SourceNodeMatch.Verdict.OTHER;
      n.put("trace_taken_here", source.verdict() == SourceNodeMatch.Verdict.SOURCE ? "yes" : other ? "no" : "unknown");
      if (other && !ReplayReport.speedups(r).isEmpty()) {
        ObjectNode sp = n.putObject("speedup_vs_measured_by_class");
        ReplayReport.speedups(r).forEach((k, v) -> {
          ObjectNode c = sp.putObject(k);
          c.put("operations", v.operations());
          c.put("measured_ns", Math.round(v.measuredNs()));
          c.put("projected_ns", Math.round(v.projectedNs()));
          c.put("speedup", Math.round(v.speedup() * 1000) / 1000.0);
        });
      }
      (other ? java.util.Optional.<ReplayReport.TimelineError>empty() : ReplayReport.timeline(r)).ifPresentOrElse(te -> {
        ObjectNode tl = n.putObject("timeline_error");
        tl.put("operations", te.ops());
        tl.put("mean_start_error_ns", Math.round(te.meanStartErrorNs()));
        tl.put("max_start_error_ns", Math.round(te.maxStartErrorNs()));
        tl.put("mean_start_error_pct_of_makespan", te.meanStartErrorPct());
        tl.put("makespan_error_pct", te.makespanErrorPct());
      }, () -> n.putNull("timeline_error"));
      Map<String, ReplayReport.ClassError> errors = other ? Map.of() : ReplayReport.errors(r);
      if (errors.isEmpty()) {
        n.putNull("error");
      } else {
        ObjectNode e = n.putObject("error");
        errors.forEach((k, ce) -> {
          ObjectNode c = e.putObject(k);
          stats(c, ce.model());
          if (ce.peakBw().count() > 0) {
            ObjectNode base = c.putObject("baselines");
            stats(base.putObject("peak_bw"), ce.peakBw());
            stats(base.putObject("back_of_envelope"), ce.backOfEnvelope());
          }
        });
      }
      ArrayNode path = n.putArray("critical_path");
      int i = 0;
      for (ReplayResult.Segment s : r.criticalPath()) {
        if (i++ >= PATH_SEGMENTS) {
          break;
        }
        ObjectNode seg = path.addObject();
        seg.put("what", s.what());
        seg.put("label", s.label());
        seg.put("start_ns", Math.round(s.startNs()));
        seg.put("end_ns", Math.round(s.endNs()));
        if (s.op() >= 0) {
          seg.put("op", s.op());
        }
      }
      n.put("critical_path_segments", r.criticalPath().size());
      ArrayNode notes = n.putArray("notes");
      r.notes().forEach(notes::add);
      ArrayNode advice = n.putArray("advice");
      ReplayReport.advice(r).forEach(advice::add);
    }
    return root;
  }

  private static void stats(ObjectNode o, ErrorStats s) {
    o.put("operations", s.count());
    o.put("wmape_pct", Math.round(s.wmapePct() * 100) / 100.0);
    o.put("mape_pct", Math.round(s.mapePct() * 100) / 100.0);
  }
}
