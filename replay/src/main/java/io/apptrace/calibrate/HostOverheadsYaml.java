package io.apptrace.calibrate;

import static io.apptrace.node.NodeYaml.quote;

import io.apptrace.calibrate.CalibrationResult.CallSeries;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import io.apptrace.node.ApiClass;
import io.apptrace.node.Units;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code host_overheads} section of a calibrated node file (docs/NODE-FORMAT.md): per class of the replay's
 * host-overhead model, the fixed cost (and, for the classes that pin or unpin, the cost per MiB) of the calls the
 * host-overhead benchmarks timed, net of the JNA call overhead; a {@code source} saying they are calibrate's, and
 * the simulator's where the runtime was the simulated one. The classes that did not run, those whose fixed cost net
 * of the JNA call is not positive, and those no process can time after its start-up ({@code context_create},
 * {@code module_registration}) are left to the bundled defaults, each named in a comment; a negative slope per MiB
 * is written as 0 (the cost does not grow with the bytes).
 */
final class HostOverheadsYaml {
  private HostOverheadsYaml() {}

  /** The section, from its {@code host_overheads:} line; none when no class was timed. */
  static List<String> lines(CalibrationResult r) {
    Map<ApiClass, CallSeries> by = new EnumMap<>(ApiClass.class);
    r.calls().forEach(c -> by.put(c.apiClass(), c));
    if (by.isEmpty()) {
      return List.of();
    }
    double jna = r.jnaSeconds();
    List<String> lines = new ArrayList<>();
    lines.add("host_overheads:                       # the own cost of a CUDA call by class (docs/REPLAY.md, \"CUDA"
        + " calls\")");
    lines.add("  source: " + quote(source(r)));
    List<String> missing = new ArrayList<>();
    for (ApiClass c : ApiClass.values()) {
      CallSeries s = by.get(c);
      if (s == null) {
        if (!CalibrationResult.CALLS_NOT_MEASURABLE.contains(c)) {
          missing.add(c.key());
        }
        continue;
      }
      CallCostFit.Cost cost = s.cost(jna);
      if (cost.fixedSeconds() > 0) {
        lines.add(kv(c.key(), cost.fixedSeconds(), describe(s)));
      } else {
        lines.add("  # " + c.key() + ": " + describe(s) + ": " + MeasuredYaml.time(cost.fixedSeconds()) + " net of the"
            + " JNA call, not positive: the default");
      }
      if (c.perMib()) {
        lines.add(kv(c.key() + "_per_mib", cost.perMibOrZero(), cost.sizes() < 2 ? "one size: none"
            : cost.perMibSeconds() < 0 ? "the slope, " + MeasuredYaml.time(cost.perMibSeconds()) + ", is negative: 0"
            : "the slope per MiB"));
      }
    }
    if (!missing.isEmpty()) {
      lines.add("  # not measured (see the skipped benchmarks), the defaults: " + String.join(", ", missing));
    }
    lines.add("  # not measurable in a running process, the defaults: " + String.join(", ",
        CalibrationResult.CALLS_NOT_MEASURABLE.stream().map(ApiClass::key).toList())
        + " (the context and the modules exist before the first benchmark)");
    return lines;
  }

  /** Where the figures come from, as a replay's notes print it. */
  static String source(CalibrationResult r) {
    CalibrationMachine m = r.machine();
    return "apptrace calibrate on " + m.host() + (m.simulated() ? " (SIMULATED: the simulated CUDA runtime's own call"
        + " costs on this host, not a GPU's)" : "") + ": medians of calls timed by the host clock, less the JNA call's"
        + " own " + MeasuredYaml.time(r.jnaSeconds()) + " (libc " + HostOverheadBenchmarks.JNA_CALL + ")";
  }

  private static String describe(CallSeries s) {
    List<SizeStats> z = s.sizes();
    if (z.size() == 1) {
      return s.call() + (z.get(0).bytes() > 0 ? " of " + Units.size(z.get(0).bytes()) : "") + ", median of "
          + z.get(0).reps();
    }
    return s.call() + ", fitted over " + z.size() + " sizes from " + Units.size(z.get(0).bytes()) + " to "
        + Units.size(z.get(z.size() - 1).bytes()) + ", medians of " + z.get(0).reps();
  }

  private static String kv(String key, double seconds, String comment) {
    String l = "  " + key + ": " + quote(MeasuredYaml.time(seconds));
    return l + " ".repeat(Math.max(1, 38 - l.length())) + "# " + comment;
  }
}
