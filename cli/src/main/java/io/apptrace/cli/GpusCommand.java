package io.apptrace.cli;

import io.apptrace.node.CataloguePeak;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Units;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code apptrace gpus [--json] [--show NAME]}: the GPU catalogue, one line per model. */
@Command(
    name = "gpus",
    header = "Lists the GPU catalogue.",
    description =
        "Lists the GPU models whose datasheet figures apptrace knows (the kernel model re-times kernels"
            + " between them): name, architecture, SMs, FP32 peak, memory bandwidth and size, L2, board power."
            + " A name or any alias, in any case, names a model wherever a GPU is asked for.")
final class GpusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print a JSON array instead (docs/CLI.md).")
  boolean json;

  @Option(names = "--show", paramLabel = "NAME", description = "Print one model's every figure, its aliases and"
      + " the sources of its figures.")
  String show;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    GpuCatalogue catalogue = GpuCatalogue.bundled();
    List<GpuSpec> gpus = catalogue.gpus();
    if (show != null) {
      try {
        gpus = List.of(catalogue.resolve(show));
      } catch (NodeFileException e) {
        throw new UserException(e.getMessage());
      }
    }
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ArrayNode a = mapper.createArrayNode();
      gpus.forEach(g -> a.add(json(mapper, g)));
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(a));
    } else if (show != null) {
      details(out, gpus.get(0));
    } else {
      int width = gpus.stream().mapToInt(g -> g.name().length()).max().orElse(4);
      out.printf(Locale.ROOT, "%-" + width + "s  %-9s %4s %4s %13s %11s %9s %9s %6s%n", "name", "arch", "cc", "SMs",
          "FP32", "memory BW", "memory", "L2", "TDP");
      for (GpuSpec g : gpus) {
        out.printf(Locale.ROOT, "%-" + width + "s  %-9s %4s %4s %13s %11s %9s %9s %6s%n", g.name(), g.architecture(),
            g.computeCapability(), g.sms().isPresent() ? Integer.toString(g.sms().getAsInt()) : "-",
            or(g.peak(CataloguePeak.FP32), v -> Units.fixed(v / 1e12, 2) + " TFLOP/s"),
            or(g.memoryBandwidth(), Units::bandwidth), or(g.memoryBytes(), v -> Units.size((long) v)),
            or(g.l2Bytes(), v -> Units.size((long) v)), or(g.tdpWatts(), v -> Units.fixed(v, 0) + " W"));
      }
      out.println(gpus.size() + " GPU models; '-': not in the catalogue. 'apptrace gpus --show NAME' prints one"
          + " with its sources.");
    }
    out.flush();
    return ExitCodes.OK;
  }

  private static void details(PrintWriter out, GpuSpec g) {
    out.println(g.name() + (g.aliases().isEmpty() ? "" : " (also: " + String.join(", ", g.aliases()) + ")"));
    out.println("  architecture        " + g.architecture() + ", compute capability " + g.computeCapability());
    out.println("  SMs                 " + (g.sms().isPresent() ? g.sms().getAsInt() : "-"));
    out.println("  boost clock         " + or(g.boostClockHz(), v -> Units.fixed(v / 1e6, 0) + " MHz"));
    out.println("  memory              " + or(g.memoryBytes(), v -> Units.size((long) v)) + ", "
        + or(g.memoryBandwidth(), Units::bandwidth));
    out.println("  L2 cache            " + or(g.l2Bytes(), v -> Units.size((long) v)));
    for (CataloguePeak p : CataloguePeak.values()) {
      if (g.peakFlops().containsKey(p)) {
        out.printf(Locale.ROOT, "  peak %-14s %s TFLOP/s%n", p.key(), Units.fixed(g.peakFlops().get(p) / 1e12, 2));
      }
    }
    g.perSm().ifPresent(s -> out.println("  per SM              " + s.threads() + " threads, " + s.blocks() + " blocks, "
        + s.registers() + " registers, " + Units.size(s.sharedMemoryBytes()) + " shared memory"));
    out.println("  board power (TDP)   " + or(g.tdpWatts(), v -> Units.fixed(v, 0) + " W"));
    out.println("  sources:");
    g.sources().forEach(s -> out.println("    - " + s));
  }

  private static String or(OptionalDouble v, java.util.function.DoubleFunction<String> f) {
    return v.isPresent() ? f.apply(v.getAsDouble()) : "-";
  }

  /** One entry as {@code --json} prints it: every key always present, null where the figure is unknown. */
  static ObjectNode json(ObjectMapper mapper, GpuSpec g) {
    ObjectNode o = mapper.createObjectNode();
    o.put("name", g.name());
    g.aliases().forEach(o.putArray("aliases")::add);
    if (g.aliases().isEmpty()) {
      o.putArray("aliases");
    }
    o.put("architecture", g.architecture());
    o.put("compute_capability", g.computeCapability());
    if (g.sms().isPresent()) {
      o.put("sms", g.sms().getAsInt());
    } else {
      o.putNull("sms");
    }
    number(o, "boost_clock_hz", g.boostClockHz());
    number(o, "memory_bytes", g.memoryBytes());
    number(o, "memory_bandwidth_bytes_per_s", g.memoryBandwidth());
    number(o, "l2_cache_bytes", g.l2Bytes());
    ObjectNode peaks = o.putObject("peak_flops");
    for (CataloguePeak p : CataloguePeak.values()) {
      number(peaks, p.key(), g.peak(p));
    }
    if (g.perSm().isPresent()) {
      ObjectNode s = o.putObject("per_sm");
      s.put("threads", g.perSm().get().threads());
      s.put("blocks", g.perSm().get().blocks());
      s.put("registers", g.perSm().get().registers());
      s.put("shared_memory_bytes", g.perSm().get().sharedMemoryBytes());
    } else {
      o.putNull("per_sm");
    }
    number(o, "tdp_watts", g.tdpWatts());
    ArrayNode sources = o.putArray("sources");
    g.sources().forEach(sources::add);
    return o;
  }

  /** A figure as a JSON integer when it is whole, else as a number; null when unknown. */
  private static void number(ObjectNode o, String key, OptionalDouble v) {
    if (v.isEmpty()) {
      o.putNull(key);
    } else if (v.getAsDouble() == Math.rint(v.getAsDouble()) && Math.abs(v.getAsDouble()) < 9e15) {
      o.put(key, (long) v.getAsDouble());
    } else {
      o.put(key, v.getAsDouble());
    }
  }
}
