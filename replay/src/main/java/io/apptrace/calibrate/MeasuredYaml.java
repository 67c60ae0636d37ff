package io.apptrace.calibrate;

import static io.apptrace.node.NodeYaml.quote;

import io.apptrace.calibrate.CalibrationResult.Series;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code measured} section of a calibrated node file (docs/NODE-FORMAT.md): per transfer kind
 * the fitted L+o ({@code latency}) and 1/G ({@code bandwidth}), the gap g per direction, the
 * bandwidth-by-size curves, the page-fault latencies, and where they come from, with {@code
 * simulated: true} when the runtime was the simulated one. Every value is of the local pair: GPU 0
 * and its NUMA node (GPU 0 to GPU 1 for copies between GPUs); the CSV holds every pair.
 */
final class MeasuredYaml {
  private final CalibrationResult r;
  private final int numa;
  private final List<String> lines = new ArrayList<>();

  private MeasuredYaml(CalibrationResult r) {
    this.r = r;
    this.numa = r.machine().localNuma(0);
  }

  /**
   * The section, from its {@code measured:} line; {@code how} says how it was made (the command line, the CSV);
   * {@code cpuOfNuma} names the node file's CPU of a NUMA node.
   */
  static List<String> lines(CalibrationResult r, String how, List<io.apptrace.node.Node.FittedTo> fitted,
      java.util.function.IntFunction<Optional<String>> cpuOfNuma) {
    MeasuredYaml m = new MeasuredYaml(r);
    m.write(how);
    m.memcpy(cpuOfNuma);
    if (!fitted.isEmpty()) {
      m.lines.add("  fitted_to:                            # a validation against these files is in-sample");
      for (io.apptrace.node.Node.FittedTo f : fitted) {
        m.lines.add("    - {file: " + quote(f.file()) + ", sha256: " + f.sha256() + "}");
      }
    }
    return m.lines;
  }

  /** The target of a benchmark's values in the node file. */
  Target localTarget(Benchmark b) {
    return switch (b) {
      case DEVICE_TO_DEVICE -> Target.device(0);
      case GPU_TO_GPU_PEER -> Target.gpus(-1, 0, 1);
      case GPU_TO_GPU_STAGED -> Target.gpus(numa, 0, 1);
      default -> Target.host(numa, 0);
    };
  }

  private void write(String how) {
    CalibrationMachine m = r.machine();
    lines.add("measured:");
    lines.add("  source: >-");
    for (String l : wrap(how + " " + method(), 110)) {
      lines.add("    " + l);
    }
    lines.add(m.simulated() ? "  simulated: true                      # the simulated CUDA runtime (" + m.simulatedWhy()
        + "): these numbers are NOT REAL" : "  simulated: false");
    lines.add("  timed: event                         # CUDA events around each synchronous copy (docs/COST-MODEL.md,"
        + " \"Timing kinds\")");
    List<Series> local = localSeries();
    section("latency", local, s -> {
      LogGpFit.Fit f = s.fit();
      return kv(s, quote(time(f.latencySeconds())), s.benchmark().csvName() + ", " + s.target().describe(s.benchmark())
          + ", " + f.latencyBytes() + " B: median of " + s.sizes().get(0).reps());
    });
    section("bandwidth", local, s -> {
      LogGpFit.Fit f = s.fit();
      if (!(f.secondsPerByte() > 0)) {
        return "    # " + key(s) + ": no G: its times do not grow with the size";
      }
      return kv(s, quote(bandwidth(f.bandwidthBytesPerSec())), "1/G over " + f.fittedSizes()
          + " sizes (van Werkhoven et al. 2014, sec. V-A)");
    });
    gap();
    memset();
    lines.add("  curves:                               # [size, bytes / median time] of every size measured");
    local.forEach(this::curve);
    if (!r.faults().isEmpty()) {
      lines.add("  page_fault:                           # Pearson 2018, sec. 5.2: slope of a linked-list walk over its length");
      r.faults().forEach(f -> lines.add(f.latencySeconds() > 0 ? "    " + f.key() + ": " + quote(time(f.latencySeconds()))
          + "   # " + f.where() : "    # " + f.key() + ": no latency: the walk did not slow down with its length"));
    }
  }

  /**
   * Each CPU's memcpy bandwidth: 1/G of one thread's copies from pageable to pinned memory within its
   * own NUMA node (Pearson 2018, Algorithm 4.1), the pace of a pageable copy's staging.
   */
  private void memcpy(java.util.function.IntFunction<Optional<String>> cpuOfNuma) {
    List<String> entries = new ArrayList<>();
    for (int n : r.machine().numaNodes()) {
      Optional<String> cpu = cpuOfNuma.apply(n);
      Optional<Double> bw = r.series(Benchmark.HOST_TO_PINNED, Target.hosts(n, n)).map(s -> s.fit()
          .bandwidthBytesPerSec()).filter(b -> b > 0 && !b.isInfinite());
      if (cpu.isPresent() && bw.isPresent()) {
        entries.add(cpu.get() + ": " + quote(bandwidth(bw.get())));
      }
    }
    if (!entries.isEmpty()) {
      lines.add("  memcpy_bandwidth: {" + String.join(", ", entries) + "}   # one thread's copy from pageable to pinned"
          + " memory in each CPU's NUMA node (Pearson 2018, Algorithm 4.1), 1/G");
    }
  }

  /** The series of the local pair, kind by kind; a comment names the kinds that did not run. */
  private List<Series> localSeries() {
    List<Series> local = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (Benchmark b : Benchmark.values()) {
      if (b.kind().isPresent()) {
        Optional<Series> s = r.series(b, localTarget(b))
            .filter(x -> x.sizes().stream().anyMatch(z -> z.seconds().median() > 0));
        s.ifPresentOrElse(local::add, () -> missing.add(b.label()));
      }
    }
    if (!missing.isEmpty()) {
      lines.add("  # not measured (see the skipped benchmarks): " + String.join(", ", missing));
    }
    return local;
  }

  /** A curve as a flow list of [size, bandwidth] points, wrapped as the bundled node files wrap theirs. */
  private void curve(Series s) {
    List<String> points = new ArrayList<>();
    for (SizeStats z : s.sizes()) {
      if (z.seconds().median() > 0) {
        points.add("[\"" + Units.size(z.bytes()) + "\", " + quote(bandwidth(z.bytes() / z.seconds().median())) + "]");
      }
    }
    lines.add("    " + key(s) + ":");
    StringBuilder line = new StringBuilder("      [");
    for (int i = 0; i < points.size(); i++) {
      String p = points.get(i) + (i == points.size() - 1 ? "]" : ",");
      if (line.length() > 7 && line.length() + 1 + p.length() > 116) {
        lines.add(line.toString());
        line.setLength(0);
        line.append("       ");
      } else if (line.length() > 7) {
        line.append(' ');
      }
      line.append(p);
    }
    lines.add(line.toString());
  }

  private void gap() {
    List<String> g = new ArrayList<>();
    for (CalibrationResult.Gap gap : r.gaps()) {
      if (gap.target().equals(Target.host(numa, 0))) {
        String way = gap.way().name().toLowerCase(java.util.Locale.ROOT);
        if (gap.gapSeconds() > 0) {
          g.add(way + ": " + quote(time(gap.gapSeconds())));
        } else {
          lines.add("  # gap " + way + ": not positive (" + time(gap.gapSeconds()) + "), left out");
        }
      }
    }
    if (!g.isEmpty()) {
      lines.add("  gap: {" + String.join(", ", g) + "}   # van Werkhoven et al. 2014, sec. V: back-to-back pinned copies of "
          + Units.size(r.sizing().gapChunkBytes()) + " on one stream");
    }
  }

  /** The fixed cost of one memset on GPU 0: the median of its 1-byte memsets, timed as the copies are. */
  private void memset() {
    r.memsets().stream().filter(m -> m.gpu() == 0).findFirst().ifPresent(m -> {
      SizeStats z = m.sizes().get(0);
      if (m.fixedSeconds() > 0) {
        String l = "  memset: " + quote(time(m.fixedSeconds()));
        lines.add(l + " ".repeat(Math.max(1, 40 - l.length())) + "# " + CalibrationCsv.MEMSET + ", gpu 0, "
            + Units.size(z.bytes()) + ": median of " + z.reps() + " (docs/COST-MODEL.md, \"Each kind of transfer\")");
      } else {
        lines.add("  # memset: not positive (" + time(m.fixedSeconds()) + "), left out");
      }
    });
  }

  private void section(String name, List<Series> local, java.util.function.Function<Series, String> line) {
    if (local.isEmpty()) {
      return;
    }
    lines.add("  " + name + ":");
    local.forEach(s -> lines.add(line.apply(s)));
  }

  private static String key(Series s) {
    return s.benchmark().kind().map(TransferKind::key).orElseThrow();
  }

  private static String kv(Series s, String value, String comment) {
    String l = "    " + key(s) + ": " + value;
    return l + " ".repeat(Math.max(1, 40 - l.length())) + "# " + comment;
  }

  private String method() {
    return "Copies timed with CUDA events around each synchronous call (Pearson 2018, Listing 2.4), " + r.sizing().reps()
        + " repetitions of each size;"
        + " latency = the time of the smallest copy (L+o, docs/COST-MODEL.md); bandwidth = 1/G, G fitted over the sizes"
        + " above 1 MiB (van Werkhoven et al. 2014, sec. V-A); curves = bytes / median time; memset = the time of the"
        + " smallest cudaMemset (1 B), timed the same way; all of NUMA node "
        + numa + " and GPU 0"
        + " (peer, staged_p2p: GPU 0 to GPU 1). " + r.machine().numaNote() + ".";
  }

  static String time(double seconds) {
    return sig6(seconds * 1e6) + " us";
  }

  static String bandwidth(double bytesPerSecond) {
    return sig6(bytesPerSecond / 1e9) + " GB/s";
  }

  /** Six significant digits, never in exponent form (node files take plain decimals). */
  static String sig6(double v) {
    return new BigDecimal(v).round(new MathContext(6)).stripTrailingZeros().toPlainString();
  }

  static List<String> wrap(String text, int width) {
    List<String> out = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        out.add(line.toString());
        line.setLength(0);
      }
      line.append(line.length() == 0 ? "" : " ").append(word);
    }
    if (line.length() > 0) {
      out.add(line.toString());
    }
    return out;
  }
}
