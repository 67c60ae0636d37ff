package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.node.Node;
import io.apptrace.node.Units;
import io.apptrace.validate.ApeStats;
import io.apptrace.validate.CallValidation;
import io.apptrace.validate.DataException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code apptrace validate calls --node NODE --data TRACE... [--json]}: the node's host-overhead
 * model against the measured durations of the CUDA calls of traces taken on real GPUs
 * (docs/ACCURACY.md, "CUDA calls").
 */
@Command(
    name = "calls",
    header = "Checks the host-overhead model against the CUDA calls of traces taken on real GPUs.",
    description =
        "Prices every CUDA call of each trace by the node's host-overhead model (the class of the call, the bytes"
            + " it pins; a call that issues GPU work by the GPU's launch overhead) and compares it with the call's"
            + " measured duration: per class, WMAPE and MdAPE, beside a baseline that prices every call as the"
            + " model's cheapest class. Calls that wait (synchronizations, synchronous copies, cudaFree) and each"
            + " process's first call (which may create the context) are left out and counted.")
final class ValidateCallsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--node", required = true, paramLabel = "NODE", description = "A bundled node or a node file.")
  String node;

  @Option(names = "--data", required = true, arity = "1..*", paramLabel = "TRACE",
      description = "apptrace traces taken on real GPUs (captured with CUPTI, or imported).")
  List<Path> data;

  @Option(names = "--json", description = "Print JSON (docs/CLI.md).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Node n = Nodes.resolve(node);
    PrintWriter out = spec.commandLine().getOut();
    ObjectMapper mapper = new ObjectMapper();
    ArrayNode all = mapper.createArrayNode();
    for (Path f : data) {
      CallValidation.Result r;
      try {
        r = CallValidation.of(f, n);
      } catch (DataException e) {
        throw new UserException(e.getMessage());
      }
      if (json) {
        all.add(json(mapper, f, n, r));
      } else {
        text(out, f, n, r);
      }
    }
    if (json) {
      ObjectNode o = mapper.createObjectNode();
      o.put("node", n.name());
      o.put("model", n.hostOverheads().source());
      o.set("traces", all);
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(o));
    }
    out.flush();
    return ExitCodes.OK;
  }

  private static void text(PrintWriter out, Path f, Node n, CallValidation.Result r) {
    out.println(f.getFileName() + " against " + n.name() + "'s host-overhead model (" + n.hostOverheads().source()
        + ")");
    out.printf(Locale.ROOT, "  %-20s %7s %12s %12s %8s %8s   %-15s%n", "class", "calls", "measured", "model", "WMAPE",
        "MdAPE", "baseline WMAPE");
    for (Map.Entry<String, ApeStats> e : r.byClass().entrySet()) {
      row(out, e.getKey(), e.getValue(), r.baselineByClass().get(e.getKey()), r.measuredNs().get(e.getKey()),
          r.modelNs().get(e.getKey()));
    }
    row(out, "overall", r.overall(), r.baseline(), r.measuredNs().values().stream().mapToDouble(Double::doubleValue)
        .sum(), r.modelNs().values().stream().mapToDouble(Double::doubleValue).sum());
    out.println("  left out: " + r.blocking() + " call(s) that wait (their durations hold the wait), " + r.firstCalls()
        + " process's first call(s) (context creation, if the trace saw it)");
  }

  private static void row(PrintWriter out, String name, ApeStats s, ApeStats base, double measuredNs, double modelNs) {
    out.printf(Locale.ROOT, "  %-20s %7d %12s %12s %8s %8s   %-15s%n", name, s.count(), Units.time(measuredNs * 1e-9),
        Units.time(modelNs * 1e-9), pct(s.wmapePct()), pct(s.mdapePct()), pct(base.wmapePct()));
  }

  private static String pct(double v) {
    return Double.isNaN(v) ? "-" : Units.fixed(v, 1) + "%";
  }

  private static ObjectNode json(ObjectMapper mapper, Path f, Node n, CallValidation.Result r) {
    ObjectNode o = mapper.createObjectNode();
    o.put("trace", f.toString());
    o.set("overall", figures(mapper, r.overall(), r.baseline()));
    ObjectNode byClass = o.putObject("by_class");
    r.byClass().forEach((k, s) -> {
      ObjectNode c = figures(mapper, s, r.baselineByClass().get(k));
      c.put("measured_ns", Math.round(r.measuredNs().get(k)));
      c.put("model_ns", Math.round(r.modelNs().get(k)));
      byClass.set(k, c);
    });
    o.put("left_out_waiting", r.blocking());
    o.put("left_out_first_calls", r.firstCalls());
    return o;
  }

  private static ObjectNode figures(ObjectMapper mapper, ApeStats s, ApeStats base) {
    ObjectNode o = mapper.createObjectNode();
    o.put("calls", s.count());
    o.put("wmape_pct", Math.round(s.wmapePct() * 100) / 100.0);
    o.put("mdape_pct", Math.round(s.mdapePct() * 100) / 100.0);
    o.put("baseline_wmape_pct", Math.round(base.wmapePct() * 100) / 100.0);
    return o;
  }
}
