package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.cost.TimingConversion;
import io.apptrace.node.Units;
import io.apptrace.validate.DataException;
import io.apptrace.validate.TimingEvidence;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code apptrace validate timing --data TRACE... [--json]}: what traces holding both a copy's GPU
 * time and its call's duration say about the two, beside the figures of the conversion rule
 * (docs/COST-MODEL.md, "Timing kinds").
 */
@Command(
    name = "timing",
    header = "Measures how a copy's GPU time and its call's duration differ, on traces that hold both.",
    description =
        "Reads apptrace traces imported from profiles (nvprof, Nsight Systems, Kineto) and, per trace and"
            + " direction, takes its copies of at most 4 KiB from or to pageable memory (their call blocks until"
            + " the copy is done): the median GPU time, and the median of the call's duration minus it. The"
            + " medians over the traces are what the rule converting fixed costs between GPU time and call"
            + " duration is made of; they are printed beside the rule's figures.")
final class ValidateTimingCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--data", required = true, arity = "1..*", paramLabel = "TRACE", description = "apptrace traces.")
  List<Path> data;

  @Option(names = "--json", description = "Print JSON (docs/CLI.md).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    TimingEvidence.Result r;
    try {
      r = TimingEvidence.of(data);
    } catch (DataException e) {
      throw new UserException(e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode o = mapper.createObjectNode();
      ArrayNode traces = o.putArray("traces");
      for (TimingEvidence.Trace t : r.traces()) {
        ObjectNode x = traces.addObject();
        x.put("trace", t.name());
        x.put("way", t.way().name().toLowerCase(Locale.ROOT));
        x.put("copies", t.copies());
        x.put("median_gpu_ns", t.medianGpuSeconds() * 1e9);
        x.put("median_call_minus_gpu_ns", t.medianHostSeconds() * 1e9);
      }
      ObjectNode m = o.putObject("medians");
      m.put("gpu_h2d_ns", r.gpuH2dSeconds() * 1e9);
      m.put("gpu_d2h_ns", r.gpuD2hSeconds() * 1e9);
      m.put("call_minus_gpu_ns", r.hostSeconds() * 1e9);
      ObjectNode rule = o.putObject("rule");
      rule.put("small_copy_gpu_h2d_ns", TimingConversion.SMALL_COPY_GPU_H2D * 1e9);
      rule.put("small_copy_gpu_d2h_ns", TimingConversion.SMALL_COPY_GPU_D2H * 1e9);
      rule.put("blocking_call_host_ns", TimingConversion.BLOCKING_CALL_HOST * 1e9);
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(o));
    } else {
      out.printf(Locale.ROOT, "%-40s %-4s %7s %12s %16s%n", "trace", "way", "copies", "GPU time", "call - GPU time");
      for (TimingEvidence.Trace t : r.traces()) {
        out.printf(Locale.ROOT, "%-40s %-4s %7d %12s %16s%n", t.name(), t.way().name().toLowerCase(Locale.ROOT),
            t.copies(), Units.time(t.medianGpuSeconds()), Units.time(t.medianHostSeconds()));
      }
      out.printf(Locale.ROOT, "medians over the traces: GPU time %s host to device, %s device to host; call - GPU time"
          + " %s (host to device)%n", Units.time(r.gpuH2dSeconds()), Units.time(r.gpuD2hSeconds()),
          Units.time(r.hostSeconds()));
      out.printf(Locale.ROOT, "the rule (docs/COST-MODEL.md, \"Timing kinds\"): %s, %s, %s%n",
          Units.time(TimingConversion.SMALL_COPY_GPU_H2D), Units.time(TimingConversion.SMALL_COPY_GPU_D2H),
          Units.time(TimingConversion.BLOCKING_CALL_HOST));
    }
    out.flush();
    return ExitCodes.OK;
  }
}
