package io.apptrace.node;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * A node model, as a node file describes it (docs/NODE-FORMAT.md): CPUs with their memories, GPUs
 * with theirs, switches, the links between them, which GPU pairs have peer access, and what was
 * measured on it. Quantities are in base units: bytes, bytes per second (per direction), seconds,
 * hertz, FLOP per second.
 *
 * @param hostOverheads its CUDA calls' own costs (the bundled defaults where the file gives none)
 * @param source where it was read from: a bundled name or a file path
 */
public record Node(
    String name,
    String description,
    List<String> aliases,
    List<String> sources,
    double cpuSpeedFactor,
    List<Cpu> cpus,
    List<Gpu> gpus,
    List<Switch> switches,
    List<Link> links,
    PeerAccess peerAccess,
    Measured measured,
    HostOverheads hostOverheads,
    String source) {

  public Node {
    aliases = List.copyOf(aliases);
    sources = List.copyOf(sources);
    cpus = List.copyOf(cpus);
    gpus = List.copyOf(gpus);
    switches = List.copyOf(switches);
    links = List.copyOf(links);
  }

  /** A CPU socket and its memory (one NUMA node). */
  public record Cpu(String id, String model, int cores, OptionalDouble clockHz, int numaNode,
      OptionalDouble memoryBytes, double memoryBandwidth) {}

  /**
   * A GPU; {@code index} is its CUDA device number (its place in the file). Its figures are the
   * GPU catalogue's for its {@code model} where the node file gives none ({@link GpuFigures}).
   *
   * @param model the model as the node file names it (a catalogue name or alias)
   * @param origins where each figure came from, by its key in the node format ({@link
   *     GpuFigures#origins})
   * @param catalogued the catalogue's entry for the model with the node file's figures in place of
   *     its own: what the kernel model prices on; empty for a skeleton's uncatalogued model
   */
  public record Gpu(String id, int index, String model, double memoryBytes, double memoryBandwidth,
      Map<Precision, Double> peakFlops, int copyEngines, boolean implicitSync, boolean concurrentKernels,
      int sms, OptionalDouble clockHz, double launchOverheadSeconds, Map<String, String> origins,
      Optional<GpuSpec> catalogued) {
    public Gpu {
      peakFlops = peakFlops.isEmpty() ? Map.of()
          : java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(peakFlops));
      origins = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(origins));
    }
  }

  /** A routing vertex that is neither CPU nor GPU: a PCIe switch or an NVSwitch. */
  public record Switch(String id, String type, String model) {}

  /** PCIe packet parameters of a link (Abdelhafez et al. 2019, sec. IV-A). */
  public record Pcie(int generation, int lanes, int mps, int mrrs, int rcb, int mrdOverhead,
      int mwrOverhead, int cpldOverhead) {}

  /**
   * A full-duplex link between two vertices.
   *
   * @param bandwidth theoretical bandwidth per direction, all bonded lanes and {@code count}
   *     included, before {@code efficiency}
   * @param pcie the packet parameters of a PCIe link
   * @param nvlinkGeneration for an NVLink, its generation (0 otherwise)
   * @param efficiencyAb the fraction of the bandwidth a transfer from {@code a} to {@code b} reaches
   * @param efficiencyBa the same from {@code b} to {@code a}
   * @param efficiencyRead the fraction a transfer reaches when a device reads memory across the link
   *     (host to device), whichever way it crosses it
   * @param efficiencyWrite the same when a device writes memory across it (device to host, GPU to GPU)
   */
  public record Link(String id, String a, String b, LinkType type, double bandwidth, double efficiencyAb,
      double efficiencyBa, double duplex, int count, Optional<Pcie> pcie, int nvlinkGeneration,
      double efficiencyRead, double efficiencyWrite) {
    /** The efficiency of a transfer crossing the link from {@code a} ({@code fromA}) or from {@code b}. */
    public double efficiency(boolean fromA) {
      return fromA ? efficiencyAb : efficiencyBa;
    }

    /** The efficiency of a transfer that reads ({@code read}) or writes memory across the link. */
    public double accessEfficiency(boolean read) {
      return read ? efficiencyRead : efficiencyWrite;
    }

    /** The lowest of its efficiencies (for choosing routes). */
    public double efficiency() {
      return Math.min(Math.min(efficiencyAb, efficiencyBa), Math.min(efficiencyRead, efficiencyWrite));
    }

    // equals and hashCode written out: a record's generated ones link an invokedynamic call site
    // on first use, and JGraphT hashes every link while building a node's topology (about 10 ms of
    // apptrace model's startup, docs/BENCHMARKS.md)
    @Override
    public boolean equals(Object o) {
      return o instanceof Link l && id.equals(l.id) && a.equals(l.a) && b.equals(l.b) && type == l.type
          && Double.compare(bandwidth, l.bandwidth) == 0 && Double.compare(efficiencyAb, l.efficiencyAb) == 0
          && Double.compare(efficiencyBa, l.efficiencyBa) == 0 && Double.compare(duplex, l.duplex) == 0
          && count == l.count && pcie.equals(l.pcie) && nvlinkGeneration == l.nvlinkGeneration
          && Double.compare(efficiencyRead, l.efficiencyRead) == 0
          && Double.compare(efficiencyWrite, l.efficiencyWrite) == 0;
    }

    @Override
    public int hashCode() {
      int h = id.hashCode();
      h = 31 * h + a.hashCode();
      h = 31 * h + b.hashCode();
      h = 31 * h + type.hashCode();
      h = 31 * h + Double.hashCode(bandwidth);
      h = 31 * h + Double.hashCode(efficiencyAb);
      h = 31 * h + Double.hashCode(efficiencyBa);
      h = 31 * h + Double.hashCode(duplex);
      h = 31 * h + count;
      // (not pcie's: a record's hashCode too; the id tells links apart already)
      return 31 * h + nvlinkGeneration;
    }

    /** The other end of the link from {@code v}. */
    public String other(String v) {
      return v.equals(a) ? b : a;
    }

    /** {@code "pcie gen3 x16"}, {@code "nvlink2 x3"}, {@code "xbus 64.0 GB/s"}. */
    public String describe() {
      String what = switch (type) {
        case PCIE -> "pcie gen" + pcie.orElseThrow().generation() + " x" + pcie.orElseThrow().lanes();
        case NVLINK -> "nvlink" + nvlinkGeneration;
        default -> type.key();
      };
      return what + " " + Units.bandwidth(bandwidth);
    }
  }

  /** Which GPU pairs can use peer access: by rules, or listed pairs. */
  public record PeerAccess(Set<String> rules, Set<Set<String>> pairs) {
    public PeerAccess {
      rules = Set.copyOf(rules);
      pairs = Set.copyOf(pairs);
    }
  }

  /** One page fault's times (Pearson 2018, Table 5.5). */
  public record PageFaults(OptionalDouble cpuToGpu, OptionalDouble gpuToCpu, OptionalDouble gpuGpuLocal,
      OptionalDouble gpuGpuRemote) {}

  /**
   * Another node's measured figures that a node reuses ({@code measured.latency_from}), resolved
   * when the node file was read.
   *
   * @param node the other node's name
   * @param measured its measured figures, with its own {@code latency_from} resolved in turn
   */
  public record LatencySource(String node, Measured measured) {}

  /**
   * Measured parameters: each wins over the datasheet where present.
   *
   * @param latencyFrom the node whose L+o this one reuses where it has none of its own
   * @param timed how {@code latency}, {@code gap}, {@code curves} and {@code memset} were timed;
   *     empty only when the section has none of them
   * @param memsetSeconds the fixed cost of one memset, timed as {@code timed} says
   * @param stagingChunkBytes the driver's staging buffer for pageable copies (docs/COST-MODEL.md,
   *     "Pageable host memory")
   * @param memcpyBandwidth per CPU id: one thread's copy from pageable to pinned memory on that
   *     socket, bytes per second, the pace of a pageable transfer's staging copy (Pearson 2018, sec.
   *     4.2.1)
   * @param bandwidth the large-transfer bandwidth 1/G fitted per kind (van Werkhoven et al. 2014, sec. V-A), bytes per
   *     second, as {@code apptrace calibrate} writes it: with {@code latency}, the kind's LogGP form
   * @param curves bandwidth by size between a NUMA node and a GPU local to it
   */
  public record Measured(String source, boolean simulated, Map<TransferKind, Double> latency,
      Optional<LatencySource> latencyFrom, OptionalDouble gapH2d, OptionalDouble gapD2h,
      Map<TransferKind, Double> bandwidth, Map<TransferKind, Curve> curves, PageFaults pageFaults,
      double migrationGranularity, List<FittedTo> fittedTo, Optional<Timing> timed, OptionalDouble memsetSeconds,
      double stagingChunkBytes, Map<String, Double> memcpyBandwidth, List<Link> curveLinks) {
    public Measured {
      curveLinks = List.copyOf(curveLinks);
      latency = Map.copyOf(latency);
      memcpyBandwidth = Map.copyOf(memcpyBandwidth);
      bandwidth = Map.copyOf(bandwidth);
      curves = Map.copyOf(curves);
      fittedTo = List.copyOf(fittedTo);
    }

    static Measured none() {
      OptionalDouble no = OptionalDouble.empty();
      return new Measured("", false, Map.of(), Optional.empty(), no, no, Map.of(), Map.of(),
          new PageFaults(no, no, no, no), 64 * 1024, List.of(), Optional.empty(), no, DEFAULT_STAGING_CHUNK, Map.of(),
          List.of());
    }

    /** The staging buffer without a node's own figure: 1 MiB (docs/COST-MODEL.md, "Pageable host memory"). */
    public static final double DEFAULT_STAGING_CHUNK = 1024 * 1024;

    /** These figures with other L+o and no {@code latency_from} (a reference node's, docs/COST-MODEL.md). */
    public Measured withLatency(Map<TransferKind, Double> l, Timing timing) {
      return new Measured(source, simulated, l, Optional.empty(), gapH2d, gapD2h, bandwidth, curves, pageFaults,
          migrationGranularity, fittedTo, Optional.of(timing), memsetSeconds, stagingChunkBytes, memcpyBandwidth,
          curveLinks);
    }

    /**
     * These figures, their curves measured over {@code links} (the node file's own links, where a
     * what-if {@code --set} changed them: {@link #curveLinks}).
     */
    public Measured withCurveLinks(List<Link> links) {
      return new Measured(source, simulated, latency, latencyFrom, gapH2d, gapD2h, bandwidth, curves, pageFaults,
          migrationGranularity, fittedTo, timed, memsetSeconds, stagingChunkBytes, memcpyBandwidth, links);
    }

    /** Whether these figures were fitted to a file with this SHA-256 (hex, lower case). */
    public Optional<FittedTo> fittedTo(String sha256) {
      return fittedTo.stream().filter(f -> f.sha256().equalsIgnoreCase(sha256)).findFirst();
    }
  }

  /**
   * A measurement file the measured figures were fitted to ({@code apptrace calibrate} writes the
   * CSV it fitted them from): a validation against it is in-sample.
   *
   * @param file its name when it was written
   * @param sha256 the SHA-256 of its bytes, hex
   */
  public record FittedTo(String file, String sha256) {}

  public Optional<Gpu> gpu(String id) {
    return gpus.stream().filter(g -> g.id().equals(id)).findFirst();
  }

  public Optional<Cpu> cpu(String id) {
    return cpus.stream().filter(c -> c.id().equals(id)).findFirst();
  }

  /** The CPU whose memory is NUMA node {@code numa}. */
  public Optional<Cpu> cpuOfNuma(int numa) {
    return cpus.stream().filter(c -> c.numaNode() == numa).findFirst();
  }

  /** The GPU with CUDA device number {@code index}. */
  public Optional<Gpu> gpu(int index) {
    return index >= 0 && index < gpus.size() ? Optional.of(gpus.get(index)) : Optional.empty();
  }

  /** Where it came from, for messages: the file's path or the bundled name. */
  public Path path() {
    return Path.of(source);
  }
}
