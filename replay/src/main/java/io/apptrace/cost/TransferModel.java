package io.apptrace.cost;

import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.Topology;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a transfer costs on a node (docs/COST-MODEL.md): the time of every transfer kind between any
 * two memories, with the link that bounds it and the two baselines of docs/COST-MODEL.md beside it.
 */
public final class TransferModel {
  /** Whether measured bandwidth curves may replace the datasheet equations. */
  public enum Setting {
    /** Datasheet parameters and the measured 1-byte time L+o only (the setting of Abdelhafez et al. 2019). */
    DATASHEET,
    /** Measured curves where the node file has them, else as {@link #DATASHEET}. */
    MEASURED
  }

  /**
   * Where a transfer goes: host memory on NUMA node {@code numa} (-1: the GPU's local node), and
   * the GPUs at its ends (CUDA device numbers; {@code dstGpu} is used only for GPU-to-GPU copies).
   */
  public record Endpoints(int numa, int srcGpu, int dstGpu) {
    public static Endpoints gpu(int gpu) {
      return new Endpoints(-1, gpu, gpu);
    }
  }

  /**
   * The measured L+o a kind uses, and where it came from.
   *
   * @param of the kind whose measurement it is (null when none was measured)
   */
  public record Latency(double seconds, String source, boolean measured, TransferKind of) {}

  private final Node node;
  private final Topology topology;

  public TransferModel(Node node) throws NodeFileException {
    this.node = node;
    this.topology = Topology.of(node);
  }

  public Node node() {
    return node;
  }

  public Topology topology() {
    return topology;
  }

  /**
   * The 1-byte transfer time L+o of a kind: this node's measurement of it; else of the pinned
   * transfer of the same direction (device-to-device and GPU-to-GPU kinds: pinned device-to-host);
   * else the same from the node named by {@code latency_from}; else none (0, marked as not
   * measured).
   */
  public Latency latency(TransferKind kind) throws NodeFileException {
    return latency(node, kind, new HashSet<>());
  }

  private static Latency latency(Node n, TransferKind kind, Set<String> seen) throws NodeFileException {
    if (!seen.add(n.name())) {
      throw new NodeFileException(n.source() + ": measured.latency_from: the nodes " + String.join(", ", seen)
          + " reuse each other's latency in a circle");
    }
    TransferKind fallback = switch (kind.way()) {
      case H2D -> TransferKind.PINNED_H2D;
      default -> TransferKind.PINNED_D2H;
    };
    for (TransferKind k : List.of(kind, fallback)) {
      Double v = n.measured().latency().get(k);
      if (v != null) {
        String what = k == kind ? k.key() : k.key() + ", for " + kind.key();
        return new Latency(v, (seen.size() == 1 ? "measured on " : "reused from ") + n.name() + " (" + what + ")",
            true, k);
      }
    }
    Optional<String> from = n.measured().latencyFrom();
    if (from.isPresent()) {
      Node other = NodeLoader.bundled(from.get()).orElseThrow(() -> new NodeFileException(n.source()
          + ": measured.latency_from: no bundled node named '" + from.get() + "'"));
      return latency(other, kind, seen);
    }
    return new Latency(0, "none measured: no fixed overhead counted", false, null);
  }

  /**
   * The per-stream gap g of a transfer that follows another in the same direction back to back
   * (van Werkhoven et al. 2014, sec. V): measured, else the kind's full L+o (no overlap assumed).
   */
  public double gap(TransferKind kind) throws NodeFileException {
    var g = kind.way() == TransferKind.Way.D2H ? node.measured().gapD2h() : node.measured().gapH2d();
    return g.isPresent() ? g.getAsDouble() : latency(kind).seconds();
  }

  /** The cost of one transfer. */
  public TransferEstimate estimate(TransferKind kind, long bytes, Endpoints where, Setting setting)
      throws NodeFileException {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes " + bytes);
    }
    Node.Gpu src = gpu(where.srcGpu());
    return switch (kind.way()) {
      case H2D, D2H -> hostTransfer(kind, bytes, src, numa(where, src), setting);
      case D2D -> deviceToDevice(bytes, src);
      case P2P -> {
        Node.Gpu dst = gpu(where.dstGpu());
        if (kind == TransferKind.PEER && topology.peerAccess(src.id(), dst.id()) && src != dst) {
          yield peer(bytes, src, dst);
        }
        TransferEstimate staged = staged(bytes, src, dst, where.numa() >= 0 ? numa(where, src)
            : topology.localNuma(src.id()));
        if (kind == TransferKind.PEER) {
          List<String> notes = new ArrayList<>(staged.notes());
          notes.add(0, "no peer access between " + src.id() + " and " + dst.id() + ": staged through host memory");
          yield staged.withNotes(notes);
        }
        yield staged;
      }
    };
  }

  private Node.Gpu gpu(int index) throws NodeFileException {
    return node.gpu(index).orElseThrow(() -> new NodeFileException(node.name() + " has no GPU " + index
        + " (it has " + node.gpus().size() + ": 0-" + (node.gpus().size() - 1) + ")"));
  }

  private int numa(Endpoints where, Node.Gpu gpu) throws NodeFileException {
    if (where.numa() < 0) {
      return topology.localNuma(gpu.id());
    }
    if (node.cpuOfNuma(where.numa()).isEmpty()) {
      throw new NodeFileException(node.name() + " has no NUMA node " + where.numa() + " (its CPUs are on "
          + node.cpus().stream().map(c -> Integer.toString(c.numaNode())).reduce((a, b) -> a + ", " + b).orElse("")
          + ")");
    }
    return where.numa();
  }

  /**
   * The effective bandwidth of a route for data moving along it ({@code along}: from its first
   * vertex to its last) or back: the least of its links' (Abdelhafez et al. 2019, eq. 2 per link).
   */
  static double routeBandwidth(Topology.Route r, double n, LinkCost.Access access, boolean along) {
    double bw = Double.POSITIVE_INFINITY;
    for (int k = 0; k < r.links().size(); k++) {
      bw = Math.min(bw, LinkCost.effectiveBandwidth(r.links().get(k), n, access, r.fromA(k, along)));
    }
    return bw;
  }

  /** The route's slowest link for a transfer of n bytes (the link that bounds it). */
  static Node.Link bounding(Topology.Route r, double n, LinkCost.Access access, boolean along) {
    Node.Link worst = null;
    double least = Double.POSITIVE_INFINITY;
    for (int k = 0; k < r.links().size(); k++) {
      double bw = LinkCost.effectiveBandwidth(r.links().get(k), n, access, r.fromA(k, along));
      if (bw < least) {
        least = bw;
        worst = r.links().get(k);
      }
    }
    return worst;
  }

  private TransferEstimate hostTransfer(TransferKind kind, long bytes, Node.Gpu gpu, int numa, Setting setting)
      throws NodeFileException {
    boolean h2d = kind.way() == TransferKind.Way.H2D;
    Topology.Route route = topology.hostRoute(numa, gpu.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + gpu.id()));
    LinkCost.Access access = h2d ? LinkCost.Access.READ : LinkCost.Access.WRITE;
    Latency lat = latency(kind);
    double n = bytes;
    double bwEff = routeBandwidth(route, n, access, h2d);
    Node.Link bound = bounding(route, n, access, h2d);
    List<String> notes = new ArrayList<>();
    double seconds;
    String method;
    boolean pageable = kind == TransferKind.PAGEABLE_H2D || kind == TransferKind.PAGEABLE_D2H;
    if (pageable) {
      // Abdelhafez et al. 2019, eq. 9: T = L + o + 2n / Memory_BW + n / BW_eff (staged through a pinned buffer)
      double memBw = node.cpuOfNuma(numa).orElseThrow().memoryBandwidth();
      seconds = lat.seconds() + 2 * n / memBw + n / bwEff;
      method = "Abdelhafez et al. 2019, eq. 9 (pageable: staged through pinned memory)";
    } else {
      // Abdelhafez et al. 2019, eq. 10: T = L + o + n / BW_eff
      seconds = lat.seconds() + n / bwEff;
      method = "Abdelhafez et al. 2019, eq. 10";
    }
    var curve = setting == Setting.MEASURED ? node.measured().curves().get(kind) : null;
    if (curve != null) {
      double measured = curve.seconds(n);
      boolean local = numa == topology.localNuma(gpu.id());
      if (local || measured >= seconds) {
        seconds = local ? measured : Math.max(measured, seconds);
        method = "measured curve (" + curve.points() + " points" + (local ? "" : ", bounded below by the model"
            + " for this remote route") + ")";
      } else {
        method += "; the measured curve (local route) is faster than this remote route allows";
      }
    }
    if (!lat.measured()) {
      notes.add("no measured L+o for " + kind.key() + ": the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), n, List.of(route.bottleneck().bandwidth()));
    // the route as the data travels it: from the GPU for a device-to-host copy
    String path = h2d ? route.describe() : route.reversed().describe();
    return new TransferEstimate(kind.key(), bytes, seconds, bound.id() + " (" + bound.describe() + ")", path,
        route.remote(), lat, method, base.peakBw(), base.backOfEnvelope(), notes);
  }

  private TransferEstimate deviceToDevice(long bytes, Node.Gpu gpu) throws NodeFileException {
    Latency lat = latency(TransferKind.D2D);
    // Abdelhafez et al. 2019, sec. IV-C: T = (L + o)_d2d + n / GPU_memory_BW
    double seconds = lat.seconds() + bytes / gpu.memoryBandwidth();
    List<String> notes = new ArrayList<>();
    if (!lat.measured()) {
      notes.add("no measured L+o for d2d: the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), bytes, List.of(gpu.memoryBandwidth()));
    return new TransferEstimate(TransferKind.D2D.key(), bytes, seconds, gpu.id() + " memory ("
        + io.apptrace.node.Units.bandwidth(gpu.memoryBandwidth()) + ")", gpu.id(), false, lat,
        "Abdelhafez et al. 2019, sec. IV-C (device memory bandwidth)", base.peakBw(), base.backOfEnvelope(), notes);
  }

  private TransferEstimate peer(long bytes, Node.Gpu src, Node.Gpu dst) throws NodeFileException {
    Topology.Route route = topology.route(src.id(), dst.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between " + src.id() + " and " + dst.id()));
    Latency lat = latency(TransferKind.PEER);
    double bw = routeBandwidth(route, bytes, LinkCost.Access.WRITE, true);
    Node.Link bound = bounding(route, bytes, LinkCost.Access.WRITE, true);
    // Abdelhafez et al. 2019, sec. IV-C: peer copies use the direct NVLink or PCIe path's model (eq. 10, device writes)
    double seconds = lat.seconds() + bytes / bw;
    List<String> notes = new ArrayList<>();
    if (!lat.measured()) {
      notes.add("no measured L+o for peer: the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), bytes, List.of(route.bottleneck().bandwidth()));
    return new TransferEstimate(TransferKind.PEER.key(), bytes, seconds, bound.id() + " (" + bound.describe() + ")",
        route.describe(), route.remote(), lat, "Abdelhafez et al. 2019, eq. 10 over the peer route", base.peakBw(),
        base.backOfEnvelope(), notes);
  }

  /**
   * A GPU-to-GPU copy without peer access: staged through host memory on NUMA node {@code numa}
   * (by default the source GPU's local one), a device-to-host then a host-to-device pinned transfer
   * (Pearson 2018, sec. 2.4.4). <b>Choice</b>: the driver moves the data in chunks through its staging
   * buffers, so the two halves overlap and the slower one sets the pace: {@code T = L+o + n /
   * min(BW_down, BW_up)} (the measured staged copies of Pearson's thesis data run at about the
   * slower half's bandwidth, not at half of it). The fixed overhead is the measured staged L+o when
   * there is one, else the two pinned L+o's.
   */
  private TransferEstimate staged(long bytes, Node.Gpu src, Node.Gpu dst, int numa) throws NodeFileException {
    Topology.Route down = topology.hostRoute(numa, src.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + src.id()));
    Topology.Route up = topology.hostRoute(numa, dst.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + dst.id()));
    Latency own = latency(TransferKind.STAGED_P2P);
    Latency lat;
    if (own.of() == TransferKind.STAGED_P2P) {
      lat = own;
    } else {
      Latency d = latency(TransferKind.PINNED_D2H);
      Latency h = latency(TransferKind.PINNED_H2D);
      lat = new Latency(d.seconds() + h.seconds(), "pinned_d2h + pinned_h2d: " + d.source() + "; " + h.source(),
          d.measured() && h.measured(), d.of());
    }
    double bwDown = routeBandwidth(down, bytes, LinkCost.Access.WRITE, false);
    double bwUp = routeBandwidth(up, bytes, LinkCost.Access.READ, true);
    double seconds = lat.seconds() + bytes / Math.min(bwDown, bwUp);
    Node.Link bound = bwDown <= bwUp ? bounding(down, bytes, LinkCost.Access.WRITE, false)
        : bounding(up, bytes, LinkCost.Access.READ, true);
    List<String> notes = new ArrayList<>();
    if (!lat.measured()) {
      notes.add("no measured L+o for staged copies: the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), bytes, List.of(Math.min(down.bottleneck().bandwidth(),
        up.bottleneck().bandwidth())));
    String route = down.reversed().describe() + " | " + up.describe();
    return new TransferEstimate(TransferKind.STAGED_P2P.key(), bytes, seconds, bound.id() + " (" + bound.describe() + ")",
        route, down.remote() || up.remote(), lat,
        "staged: Abdelhafez et al. 2019, eq. 10 at the slower of the two halves, pipelined",
        base.peakBw(), base.backOfEnvelope(), notes);
  }

  /**
   * Unified-memory page-fault migration of {@code bytes} (Pearson 2018, sec. 5.2, Table 5.5): one fault per
   * {@code migration_granularity} bytes, each costing the measured fault latency, plus the bytes
   * over the route. {@code way} is H2D (a GPU touches pages on the CPU) or D2H, or P2P between two
   * GPUs (local when their route crosses no CPU bus).
   */
  public TransferEstimate pageFaultMigration(TransferKind.Way way, long bytes, Endpoints where)
      throws NodeFileException {
    Node.Gpu src = gpu(where.srcGpu());
    Node.PageFaults f = node.measured().pageFaults();
    Topology.Route route;
    java.util.OptionalDouble latency;
    LinkCost.Access access;
    boolean along;
    switch (way) {
      case H2D -> {
        int numa = numa(where, src);
        route = topology.hostRoute(numa, src.id()).orElseThrow();
        latency = f.cpuToGpu();
        access = LinkCost.Access.READ;
        along = true;
      }
      case D2H -> {
        int numa = numa(where, src);
        route = topology.hostRoute(numa, src.id()).orElseThrow();
        latency = f.gpuToCpu();
        access = LinkCost.Access.WRITE;
        along = false;
      }
      default -> {
        Node.Gpu dst = gpu(where.dstGpu());
        route = topology.route(src.id(), dst.id()).orElseThrow(() -> new NodeFileException(node.name()
            + ": no route between " + src.id() + " and " + dst.id()));
        latency = route.remote() ? f.gpuGpuRemote() : f.gpuGpuLocal();
        access = LinkCost.Access.WRITE;
        along = true;
      }
    }
    if (latency.isEmpty()) {
      throw new NodeFileException(node.name() + " has no measured page-fault latency for this migration"
          + " (measured.page_fault in its node file)");
    }
    double granularity = node.measured().migrationGranularity();
    double faults = Math.max(1, Math.ceil(bytes / granularity));
    double bw = routeBandwidth(route, Math.min(bytes, granularity), access, along);
    double seconds = faults * latency.getAsDouble() + bytes / bw;
    Node.Link bound = bounding(route, Math.min(bytes, granularity), access, along);
    Latency lat = new Latency(latency.getAsDouble(), "measured page-fault latency on " + node.name(), true, null);
    Baselines base = Baselines.of(0, bytes, List.of(route.bottleneck().bandwidth()));
    String kind = "fault_" + way.name().toLowerCase(java.util.Locale.ROOT);
    String path = along ? route.describe() : route.reversed().describe();
    return new TransferEstimate(kind, bytes, seconds, bound.id() + " (" + bound.describe() + ")", path,
        route.remote(), lat, String.format(java.util.Locale.ROOT, "Pearson 2018, Table 5.5: %.0f faults of %s each",
            faults, io.apptrace.node.Units.time(latency.getAsDouble())), base.peakBw(), base.backOfEnvelope(),
        List.of());
  }
}
