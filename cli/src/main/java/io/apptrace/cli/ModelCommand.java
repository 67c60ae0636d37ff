package io.apptrace.cli;

import java.util.stream.Collectors;
import io.apptrace.node.Precision;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.cost.KernelModel;
import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code apptrace model --node NODE --copy h2d|d2h|d2d|p2p --memory ... --bytes SIZE [--from ID --to
 * ID] [--json] [--sweep [--csv]]}: what one transfer costs on a node, or a bandwidth-by-size table;
 * {@code --kernel} for a kernel's roofline or lower-bound time.
 */
@Command(
    name = "model",
    header = "What one transfer or kernel costs on a node model.",
    description =
        "Prints what one transfer costs on a node model: the time, the bandwidth it reaches,"
            + " the link that bounds it, and the Peak-BW and back-of-envelope baselines beside it."
            + " --sweep prints a bandwidth-by-size table from 256 B to 8 GiB. --kernel prices a"
            + " kernel instead.")
final class ModelCommand implements Callable<Integer> {
  /** The sizes of a sweep: 256 B to 8 GiB in powers of two (Abdelhafez et al. 2019, Fig. 9; Pearson 2018, Fig. 4.2). */
  static final int SWEEP_FIRST_LOG2 = 8;
  static final int SWEEP_LAST_LOG2 = 33;

  @Spec CommandSpec spec;

  @Option(names = "--node", required = true, paramLabel = "NODE",
      description = "A bundled node name (see 'apptrace nodes') or a node file's path.")
  String node;

  @Option(names = "--copy", paramLabel = "DIR", description = "h2d, d2h, d2d or p2p (default: h2d).")
  String copy = "h2d";

  @Option(names = "--memory", paramLabel = "KIND", description = "Host memory of an h2d or d2h copy: pinned"
      + " (default), pageable, write-combined, managed (a prefetch) or managed-fault (page-fault migration);"
      + " for p2p: peer (default, staged when the GPUs have no peer access), staged or managed-fault.")
  String memory;

  @Option(names = "--bytes", paramLabel = "SIZE", description = "Bytes to move: 4096, 256KiB, 1GiB.")
  String bytes;

  @Option(names = "--from", paramLabel = "ID", description = "Source: a NUMA node (0, or a CPU id) for h2d; a"
      + " GPU (index or id) for the others. Default: GPU 0 and the NUMA node local to it.")
  String from;

  @Option(names = "--to", paramLabel = "ID", description = "Destination, likewise (p2p default: GPU 1).")
  String to;

  @Option(names = "--setting", paramLabel = "S", description = "measured (default: measured curves win where"
      + " the node has them) or datasheet (datasheet parameters and the measured L+o only).")
  String setting = "measured";

  @Option(names = "--sweep", description = "A table of time and bandwidth by size, 256 B to 8 GiB.")
  boolean sweep;

  @Option(names = "--csv", description = "With --sweep: CSV instead of a table.")
  boolean csv;

  @Option(names = "--json", description = "Print JSON (docs/CLI.md).")
  boolean json;

  @Option(names = "--kernel", description = "Price a kernel: --bytes of DRAM traffic, with --flops for the"
      + " roofline (Choi et al. 2020, sec. 1.1), else the lower bound bytes / memory bandwidth + launch overhead.")
  boolean kernel;

  @Option(names = "--flops", paramLabel = "N", description = "With --kernel: floating-point operations.")
  Double flops;

  @Option(names = "--precision", paramLabel = "P", description = "With --kernel: fp64, fp32 (default), fp16,"
      + " bf16, tf32, fp8, int8.")
  String precision = "fp32";

  @Override
  public Integer call() throws Exception {
    Node n = Nodes.resolve(node);
    PrintWriter out = spec.commandLine().getOut();
    checkUsage();
    if (kernel) {
      kernel(n, out);
    } else if (sweep) {
      sweep(n, out);
    } else {
      if (bytes == null) {
        throw new UserException("give --bytes SIZE (or --sweep for a table of sizes)", ExitCodes.BAD_USAGE);
      }
      long size = Sizes.parse(bytes, "--bytes");
      if (size < 1) {
        throw new UserException("--bytes " + bytes + ": a copy of no bytes moves nothing; give at least 1 byte",
            ExitCodes.BAD_USAGE);
      }
      TransferEstimate e = estimate(n, size);
      if (json) {
        ObjectMapper mapper = new ObjectMapper();
        out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(json(mapper, n, e)));
      } else {
        text(n, e, out);
      }
    }
    out.flush();
    return ExitCodes.OK;
  }

  /** Options that contradict each other, or values no transfer or kernel can have: exit 2. */
  private void checkUsage() {
    if (csv && !sweep) {
      throw new UserException("--csv formats the --sweep table: give --sweep too, or drop --csv", ExitCodes.BAD_USAGE);
    }
    if (sweep && bytes != null && !kernel) {
      throw new UserException("--sweep prices every size from 256 B to 8 GiB: drop --bytes " + bytes
          + ", or drop --sweep to price that one size", ExitCodes.BAD_USAGE);
    }
    if (flops != null && (!Double.isFinite(flops) || flops < 0)) {
      throw new UserException("--flops " + flops + ": give the kernel's floating-point operations, a number of 0"
          + " or more", ExitCodes.BAD_USAGE);
    }
    if (flops != null && !kernel) {
      throw new UserException("--flops prices a kernel: give --kernel too", ExitCodes.BAD_USAGE);
    }
  }

  private TransferModel.Setting setting() {
    return switch (setting) {
      case "measured" -> TransferModel.Setting.MEASURED;
      case "datasheet" -> TransferModel.Setting.DATASHEET;
      default -> throw new UserException("--setting '" + setting + "': use measured or datasheet", ExitCodes.BAD_USAGE);
    };
  }

  private TransferModel model;

  private TransferEstimate estimate(Node n, long size) throws NodeFileException {
    if (model == null) {
      model = new TransferModel(n);
    }
    String mem = memory;
    try {
      switch (copy) {
        case "h2d", "d2h" -> {
          boolean h2d = copy.equals("h2d");
          int gpu = gpu(n, h2d ? to : from, 0);
          int numa = numa(n, h2d ? from : to);
          TransferModel.Endpoints where = new TransferModel.Endpoints(numa, gpu, gpu);
          String m = mem == null ? "pinned" : mem;
          if (m.equals("managed-fault")) {
            return model.pageFaultMigration(h2d ? TransferKind.Way.H2D : TransferKind.Way.D2H, size, where);
          }
          String kindName = m.equals("managed") ? "prefetch" : m;
          TransferKind kind = TransferKind.of(copy, kindName).orElseThrow(() -> new UserException("--memory '" + m
              + "': for " + copy + " use pinned, pageable, write-combined, managed or managed-fault", ExitCodes.BAD_USAGE));
          return model.estimate(kind, size, where, setting());
        }
        case "d2d" -> {
          return model.estimate(TransferKind.D2D, size, TransferModel.Endpoints.gpu(gpu(n, from != null ? from : to, 0)),
              setting());
        }
        case "p2p" -> {
          int a = gpu(n, from, 0);
          int b = gpu(n, to, n.gpus().size() > 1 ? (a == 1 ? 0 : 1) : 0);
          if (a == b) {
            throw new UserException("--copy p2p from " + n.gpus().get(a).id() + " to itself: a copy within one GPU"
                + " is a device-to-device copy; use --copy d2d" + (n.gpus().size() > 1 ? ", or name two GPUs with"
                + " --from and --to" : " (" + n.name() + " has one GPU)"), ExitCodes.BAD_USAGE);
          }
          String m = mem == null ? "peer" : mem;
          TransferModel.Endpoints where = new TransferModel.Endpoints(-1, a, b);
          return switch (m) {
            case "peer" -> model.estimate(TransferKind.PEER, size, where, setting());
            case "staged" -> model.estimate(TransferKind.STAGED_P2P, size, where, setting());
            case "managed-fault" -> model.pageFaultMigration(TransferKind.Way.P2P, size, where);
            default -> throw new UserException("--memory '" + m + "': for p2p use peer, staged or managed-fault",
                ExitCodes.BAD_USAGE);
          };
        }
        default -> throw new UserException("--copy '" + copy + "': use h2d, d2h, d2d or p2p", ExitCodes.BAD_USAGE);
      }
    } catch (NodeFileException e) {
      throw new UserException(e.getMessage());
    }
  }

  /** A GPU by index or id. */
  private static int gpu(Node n, String text, int dflt) {
    if (text == null) {
      return dflt;
    }
    if (text.matches("\\d+")) {
      int i = Integer.parseInt(text);
      if (i < n.gpus().size()) {
        return i;
      }
    }
    Optional<Node.Gpu> g = n.gpu(text);
    if (g.isPresent()) {
      return g.get().index();
    }
    throw new UserException("'" + text + "' is not a GPU of " + n.name() + " (its GPUs: "
        + String.join(", ", n.gpus().stream().map(Node.Gpu::id).toList()) + ", or their indexes 0-"
        + (n.gpus().size() - 1) + ")");
  }

  /** A NUMA node by number or CPU id; -1 for the GPU's local one. */
  private static int numa(Node n, String text) {
    if (text == null) {
      return -1;
    }
    if (text.matches("\\d+") && n.cpuOfNuma(Integer.parseInt(text)).isPresent()) {
      return Integer.parseInt(text);
    }
    Optional<Node.Cpu> c = n.cpu(text);
    if (c.isPresent()) {
      return c.get().numaNode();
    }
    throw new UserException("'" + text + "' is not a NUMA node or CPU of " + n.name() + " (its CPUs: "
        + String.join(", ", n.cpus().stream().map(x -> x.id() + " = NUMA " + x.numaNode()).toList()) + ")");
  }

  private static ObjectNode json(ObjectMapper mapper, Node n, TransferEstimate e) {
    ObjectNode o = mapper.createObjectNode();
    o.put("node", n.name());
    o.put("kind", e.kind());
    o.put("bytes", e.bytes());
    o.put("time_ns", Math.round(e.seconds() * 1e9));
    o.put("call_time_ns", Math.round(e.callSeconds() * 1e9));
    o.put("bandwidth_bytes_per_s", Math.round(e.bandwidth()));
    o.put("bottleneck_link", e.bottleneck());
    o.put("route", route(e));
    o.put("remote", e.remote());
    o.put("latency_ns", Math.round(e.latency().seconds() * 1e9));
    o.put("latency_call_ns", Math.round(e.latency().callSeconds() * 1e9));
    o.put("latency_source", e.latency().source());
    o.put("latency_timed", e.latency().timed().key());
    e.latency().conversion().ifPresent(c -> o.put("latency_conversion", c));
    o.put("method", e.method());
    ObjectNode b = o.putObject("baselines");
    b.put("peak_bw_ns", Math.round(e.peakBwSeconds() * 1e9));
    b.put("back_of_envelope_ns", Math.round(e.backOfEnvelopeSeconds() * 1e9));
    ArrayNode notes = o.putArray("notes");
    e.notes().forEach(notes::add);
    return o;
  }

  private static void text(Node n, TransferEstimate e, PrintWriter out) {
    out.printf(Locale.ROOT, "%s: %s, %s (%d bytes), %s%n", n.name(), e.kind(), Units.size(e.bytes()), e.bytes(),
        route(e));
    out.printf(Locale.ROOT, "  time           %s GPU time  (%s)%n", Units.time(e.seconds()), e.method());
    if (e.path() != io.apptrace.cost.TransferPath.FAULT) {
      out.printf(Locale.ROOT, "  call           %s  (a blocking call around it, as CUDA events or the host clock time"
          + " it)%n", Units.time(e.callSeconds()));
    }
    out.printf(Locale.ROOT, "  bandwidth      %s%n", Units.bandwidth(e.bandwidth()));
    out.printf(Locale.ROOT, "  bounded by     %s%s%n", e.bottleneck(), e.remote() ? ", a remote route" : "");
    if (e.path() == io.apptrace.cost.TransferPath.FAULT) {
      out.printf(Locale.ROOT, "  per fault      %s, %s%n", Units.time(e.latency().seconds()), e.latency().source());
    } else {
      out.printf(Locale.ROOT, "  L+o            %s%n", latency(e.latency()));
    }
    out.printf(Locale.ROOT, "  baselines      Peak BW %s (%s), back-of-envelope %s (%s)%n",
        Units.time(e.peakBwSeconds()), Units.bandwidth(e.bytes() / e.peakBwSeconds()),
        Units.time(e.backOfEnvelopeSeconds()), Units.bandwidth(e.bytes() / e.backOfEnvelopeSeconds()));
    for (String note : e.notes()) {
      out.println("  note: " + note);
    }
  }

  /**
   * The vertices a transfer crosses as its data travels them ({@code a -> b -> c}), its legs apart
   * ({@code a -> b | b -> c}: a staged copy's way down and up).
   */
  static String route(TransferEstimate e) {
    return String.join(" | ", e.legs().stream().map(l -> l.travelled().describe()).toList());
  }

  /**
   * An L+o in both views, what it was measured as and how the other view was made: {@code 1.00 us GPU
   * time, 10.91 us call; measured on dgx1 (pinned_h2d), event-timed; GPU time converted from ...}.
   */
  static String latency(TransferModel.Latency l) {
    if (!l.measured()) {
      return Units.time(l.seconds()) + ", " + l.source();
    }
    return Units.time(l.seconds()) + " GPU time, " + Units.time(l.callSeconds()) + " call; " + l.source() + ", "
        + l.timed().adjective() + l.conversion().map(c -> "; " + c).orElse("");
  }

  private void sweep(Node n, PrintWriter out) throws Exception {
    List<TransferEstimate> rows = new ArrayList<>();
    for (int p = SWEEP_FIRST_LOG2; p <= SWEEP_LAST_LOG2; p++) {
      rows.add(estimate(n, 1L << p));
    }
    TransferEstimate first = rows.get(0);
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ArrayNode a = mapper.createArrayNode();
      rows.forEach(e -> a.add(json(mapper, n, e)));
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(a));
      return;
    }
    if (csv) {
      out.println("bytes,time_ns,bandwidth_gbps,peak_bw_ns,back_of_envelope_ns,call_time_ns");
      for (TransferEstimate e : rows) {
        out.printf(Locale.ROOT, "%d,%.1f,%.4f,%.1f,%.1f,%.1f%n", e.bytes(), e.seconds() * 1e9, e.bandwidth() / 1e9,
            e.peakBwSeconds() * 1e9, e.backOfEnvelopeSeconds() * 1e9, e.callSeconds() * 1e9);
      }
      return;
    }
    out.printf(Locale.ROOT, "%s: %s, %s; %s; L+o %s%n", n.name(), first.kind(), route(first),
        first.method(), latency(first.latency()));
    out.println(row("size", "time", "bandwidth", "Peak BW", "back-of-env.", "call"));
    for (TransferEstimate e : rows) {
      out.println(row(Units.size(e.bytes()), Units.time(e.seconds()), gbps(e.bandwidth()),
          gbps(e.bytes() / e.peakBwSeconds()), gbps(e.bytes() / e.backOfEnvelopeSeconds()), Units.time(e.callSeconds())));
    }
    out.println("(time and bandwidths: GPU time; bandwidths in GB/s, 10^9 bytes per second; call: the duration of a"
        + " blocking call around the copy)");
    for (String note : first.notes()) {
      out.println("note: " + note);
    }
  }

  private static String gbps(double b) {
    return Units.fixed(b / 1e9, 2);
  }

  /** A line of the sweep table: "%10s %12s %11s %13s %13s %12s", without a Formatter (startup). */
  private static String row(String size, String time, String bandwidth, String peakBw, String backOfEnvelope,
      String call) {
    StringBuilder b = new StringBuilder(80);
    int[] widths = {10, 12, 11, 13, 13, 12};
    String[] cells = {size, time, bandwidth, peakBw, backOfEnvelope, call};
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) {
        b.append(' ');
      }
      b.append(" ".repeat(Math.max(0, widths[i] - cells[i].length()))).append(cells[i]);
    }
    return b.toString();
  }

  private void kernel(Node n, PrintWriter out) throws Exception {
    if (bytes == null) {
      throw new UserException("give --bytes SIZE: the bytes the kernel moves to and from GPU memory",
          ExitCodes.BAD_USAGE);
    }
    long size = Sizes.parse(bytes, "--bytes");
    Node.Gpu g = n.gpus().get(gpu(n, from != null ? from : to, 0));
    Precision p = Precision.parse(precision).orElseThrow(() -> new UserException("--precision: unknown precision '"
        + precision + "' (known: " + Precision.known() + ")", ExitCodes.BAD_USAGE));
    if (flops != null && !g.peakFlops().containsKey(p)) {
      throw new UserException(n.name() + "'s " + g.id() + " has no peak " + precision + " FLOP/s in its node file"
          + " (it has: " + g.peakFlops().keySet().stream().map(Precision::key).collect(Collectors.joining(", "))
          + ")");
    }
    KernelModel.KernelEstimate k = KernelModel.estimate(KernelModel.Policy.ROOFLINE, OptionalDouble.empty(),
        Optional.empty(), g, flops == null ? OptionalDouble.empty() : OptionalDouble.of(flops), size, p);
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode o = mapper.createObjectNode();
      o.put("node", n.name());
      o.put("gpu", g.id());
      o.put("bytes", size);
      if (flops != null) {
        o.put("flops", flops);
        o.put("precision", precision);
      }
      o.put("time_ns", Math.round(k.seconds() * 1e9));
      o.put("method", k.method());
      o.put("lower_bound", k.lowerBound());
      out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(o));
      return;
    }
    out.printf(Locale.ROOT, "%s: kernel on %s (%s), %s of memory traffic%s%n", n.name(), g.id(), g.model(),
        Units.size(size), flops == null ? "" : String.format(Locale.ROOT, ", %.4g %s FLOP", flops, precision));
    out.printf(Locale.ROOT, "  time           %s  (%s)%n", Units.time(k.seconds()), k.method());
    if (k.lowerBound()) {
      out.println("  note: a lower bound, not a measurement: give --flops for the roofline");
    }
  }
}
