package io.apptrace.cost;

import io.apptrace.node.Curve;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Timing;
import io.apptrace.node.Topology;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What a transfer costs on a node (docs/COST-MODEL.md): the time of every transfer kind between any
 * two memories, on the GPU and as the call around it sees it, with the link that bounds it and the
 * two baselines of docs/COST-MODEL.md beside it.
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
   * The measured L+o a kind uses, and where it came from, in the two views of docs/COST-MODEL.md,
   * "Timing kinds".
   *
   * @param seconds as GPU time
   * @param of the kind whose measurement it is (null when none was measured)
   * @param callSeconds as the duration of a blocking call around the copy
   * @param timed how the figure it comes from was timed
   * @param conversion how the view that was not measured was made from the other
   */
  public record Latency(double seconds, String source, boolean measured, TransferKind of, double callSeconds,
      Timing timed, Optional<String> conversion) {}

  private final Node node;
  private final Topology topology;
  private final FixedCosts fixed;

  public TransferModel(Node node) throws NodeFileException {
    this.node = node;
    this.topology = Topology.of(node);
    this.fixed = new FixedCosts(node);
  }

  public Node node() {
    return node;
  }

  public Topology topology() {
    return topology;
  }

  /**
   * The 1-byte transfer time L+o of a kind, in both views: this node's measurement of it; else of
   * the pinned transfer of the same direction (device-to-device and GPU-to-GPU kinds: pinned
   * device-to-host); else the same from the node named by {@code latency_from}; else none (0,
   * marked as not measured).
   */
  public Latency latency(TransferKind kind) {
    return fixed.latency(kind);
  }

  /**
   * The per-stream gap g of a transfer that follows another in the same direction back to back
   * (van Werkhoven et al. 2014, sec. V), GPU time: measured, else the kind's full L+o (no overlap
   * assumed).
   */
  public double gap(TransferKind kind) {
    return fixed.gap(kind);
  }

  /** The fixed cost of one memset on the GPU (found once: a replay asks for every memset). */
  private Latency memset;

  /** The fixed cost of one memset on the GPU, and where it came from ({@link FixedCosts#memset()}). */
  public Latency memset() {
    if (memset == null) {
      memset = fixed.memset();
    }
    return memset;
  }

  /**
   * A memset of {@code bytes} on {@code gpu}, GPU time: its fixed cost ({@link #memset()}) and every
   * byte written once at the memory's streaming efficiency ({@link DeviceCopy}).
   */
  public double memsetSeconds(long bytes, Node.Gpu gpu) {
    return memset().seconds() + DeviceCopy.writeSeconds(bytes, gpu.memoryBandwidth());
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

  Node.Gpu gpu(int index) throws NodeFileException {
    return node.gpu(index).orElseThrow(() -> new NodeFileException(node.name() + " has no GPU " + index
        + " (it has " + node.gpus().size() + ": 0-" + (node.gpus().size() - 1) + ")"));
  }

  int numa(Endpoints where, Node.Gpu gpu) throws NodeFileException {
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

  /** The two views of a transfer: its data part on the GPU and in the call, each added to its L+o. */
  private record Views(double gpu, double call) {
    static Views same(Latency lat, double data) {
      return new Views(lat.seconds() + data, lat.callSeconds() + data);
    }
  }

  /**
   * The CPU's part of a pageable copy around its DMAs (docs/REPLAY.md, "Copies"): the first chunk it
   * stages before the first DMA (host to device) and the last it copies out after the last DMA
   * (device to host); empty for other kinds, for a node without a measured memcpy bandwidth of
   * the copy's CPU (the staging is then inside the equation's time), and for a transfer a
   * measured curve prices.
   *
   * @param gpu the node's GPU
   * @param numa the NUMA node of the pageable memory
   */
  public Optional<PageableStaging> pageableStaging(TransferKind kind, long bytes, int gpu, int numa, Setting setting)
      throws NodeFileException {
    if (kind != TransferKind.PAGEABLE_H2D && kind != TransferKind.PAGEABLE_D2H
        || setting == Setting.MEASURED && node.measured().curves().containsKey(kind)) {
      return Optional.empty();
    }
    Optional<Node.Cpu> cpu = node.cpuOfNuma(numa);
    Double memcpy = cpu.map(c -> node.measured().memcpyBandwidth().get(c.id())).orElse(null);
    if (memcpy == null) {
      return Optional.empty();
    }
    Optional<Topology.Route> route = topology.hostRoute(numa, gpu(gpu).id());
    if (route.isEmpty()) {
      return Optional.empty();
    }
    boolean h2d = kind == TransferKind.PAGEABLE_H2D;
    double chunk = node.measured().stagingChunkBytes();
    double dma = routeBandwidth(route.get(), Math.min(bytes, chunk), h2d ? LinkCost.Access.READ : LinkCost.Access.WRITE,
        h2d);
    return Optional.of(PageableStaging.of(bytes, chunk, h2d, memcpy, dma));
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
    Views views;
    String method;
    boolean pageable = kind == TransferKind.PAGEABLE_H2D || kind == TransferKind.PAGEABLE_D2H;
    if (pageable) {
      Node.Cpu cpu = node.cpuOfNuma(numa).orElseThrow();
      Double memcpy = node.measured().memcpyBandwidth().get(cpu.id());
      if (memcpy != null) {
        double chunk = node.measured().stagingChunkBytes();
        double dma = routeBandwidth(route, Math.min(n, chunk), access, h2d);
        PageableStaging p = PageableStaging.of(n, chunk, h2d, memcpy, dma);
        views = new Views(lat.seconds() + p.gpuSeconds(), lat.callSeconds() + p.callSeconds());
        method = "pageable: staged through pinned buffers of " + Units.size((long) chunk) + ", " + cpu.id()
            + "'s memcpy at " + Units.bandwidth(memcpy) + " pipelined with the DMA (Pearson 2018, sec. 4.2.1)";
      } else {
        // Abdelhafez et al. 2019, eq. 9: T = L + o + 2n / Memory_BW + n / BW_eff (staged through a pinned buffer)
        views = Views.same(lat, 2 * n / cpu.memoryBandwidth() + n / bwEff);
        method = "Abdelhafez et al. 2019, eq. 9 (pageable: staged through pinned memory)";
        notes.add(node.name() + "'s " + cpu.id() + " has no memcpy_bandwidth: the staging copy is taken at the"
            + " memory's bandwidth, before the DMA (measure it with 'apptrace calibrate')");
      }
    } else {
      // Abdelhafez et al. 2019, eq. 10: T = L + o + n / BW_eff
      views = Views.same(lat, n / bwEff);
      method = "Abdelhafez et al. 2019, eq. 10";
    }
    Curve curve = setting == Setting.MEASURED ? node.measured().curves().get(kind) : null;
    if (curve != null) {
      Views measured = curveViews(curve, n, lat);
      OptionalDouble rescale = curveRescale(route, n, access, h2d);
      if (rescale.isPresent()) {
        double s = rescale.getAsDouble();
        measured = new Views(lat.seconds() + (measured.gpu() - lat.seconds()) * s,
            lat.callSeconds() + (measured.call() - lat.callSeconds()) * s);
        notes.add(String.format(java.util.Locale.ROOT, "measured curve rescaled: its route's links were changed by"
            + " --set (%s), so its data time is scaled by the datasheet estimates' ratio after/before, %.3f",
            changedLinks(route), s));
      }
      boolean local = numa == topology.localNuma(gpu.id());
      if (local || measured.gpu() >= views.gpu()) {
        views = local ? measured : new Views(Math.max(measured.gpu(), views.gpu()), Math.max(measured.call(),
            views.call()));
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
    return new TransferEstimate(kind.key(), bytes, views.gpu(), views.call(), bound.id() + " (" + bound.describe()
        + ")", TransferPath.HOST, List.of(new TransferLeg(route, h2d, access)), numa, route.remote(), lat, method, base.peakBw(), base.backOfEnvelope(), notes);
  }

  /**
   * For a measured curve used on {@code route}: when a what-if changed links of the route since the
   * curve was measured ({@link Node.Measured#curveLinks}), the ratio of the route's datasheet data
   * time after the change to before it (the curve keeps what the measurement knows beyond the
   * datasheet, scaled by what the change does to it); empty when no link of the route changed.
   */
  private OptionalDouble curveRescale(Topology.Route route, double n, LinkCost.Access access, boolean along) {
    List<Node.Link> before = node.measured().curveLinks();
    if (before.isEmpty()) {
      return OptionalDouble.empty();
    }
    List<Node.Link> was = new ArrayList<>();
    boolean changed = false;
    for (Node.Link l : route.links()) {
      Node.Link old = before.stream().filter(b -> b.id().equals(l.id())).findFirst().orElse(l);
      changed |= !old.equals(l);
      was.add(old);
    }
    if (!changed) {
      return OptionalDouble.empty();
    }
    double bwBefore = routeBandwidth(new Topology.Route(route.vertices(), was), n, access, along);
    double bwAfter = routeBandwidth(route, n, access, along);
    return OptionalDouble.of(bwBefore / bwAfter);
  }

  /** The ids of {@code route}'s links that differ from those the curves were measured over. */
  private String changedLinks(Topology.Route route) {
    List<String> ids = new ArrayList<>();
    for (Node.Link l : route.links()) {
      if (node.measured().curveLinks().stream().noneMatch(b -> b.equals(l))) {
        ids.add(l.id());
      }
    }
    return String.join(", ", ids);
  }

  /**
   * A measured curve's time at {@code n} in both views: the curve is timed as its node file's
   * {@code timed} says; the other view differs from it by the difference of the two L+o.
   */
  private Views curveViews(Curve curve, double n, Latency lat) {
    double t = curve.seconds(n);
    double shift = lat.callSeconds() - lat.seconds();
    if (node.measured().timed().orElse(Timing.GPU).includesCall()) {
      return new Views(Math.max(t - shift, lat.seconds()), t);
    }
    return new Views(t, t + shift);
  }

  private TransferEstimate deviceToDevice(long bytes, Node.Gpu gpu) {
    Latency lat = latency(TransferKind.D2D);
    Views views = Views.same(lat, DeviceCopy.dataSeconds(bytes, gpu.memoryBandwidth()));
    List<String> notes = new ArrayList<>();
    if (!lat.measured()) {
      notes.add("no measured L+o for d2d: the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), bytes, List.of(gpu.memoryBandwidth()));
    Topology.Route within = new Topology.Route(List.of(gpu.id()), List.of());
    return new TransferEstimate(TransferKind.D2D.key(), bytes, views.gpu(), views.call(), gpu.id() + " memory ("
        + Units.bandwidth(gpu.memoryBandwidth()) + ")", TransferPath.DEVICE, List.of(new TransferLeg(within, true,
            LinkCost.Access.WRITE)), -1, false, lat, String.format(java.util.Locale.ROOT,
            "read and write every byte at %.2f of the memory bandwidth (docs/COST-MODEL.md)",
            DeviceCopy.dramEfficiency()), base.peakBw(), base.backOfEnvelope(), notes);
  }

  private TransferEstimate peer(long bytes, Node.Gpu src, Node.Gpu dst) throws NodeFileException {
    Topology.Route route = topology.route(src.id(), dst.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between " + src.id() + " and " + dst.id()));
    Latency lat = latency(TransferKind.PEER);
    double bw = routeBandwidth(route, bytes, LinkCost.Access.WRITE, true);
    Node.Link bound = bounding(route, bytes, LinkCost.Access.WRITE, true);
    // Abdelhafez et al. 2019, sec. IV-C: peer copies use the direct NVLink or PCIe path's model (eq. 10, device writes)
    Views views = Views.same(lat, bytes / bw);
    List<String> notes = new ArrayList<>();
    if (!lat.measured()) {
      notes.add("no measured L+o for peer: the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), bytes, List.of(route.bottleneck().bandwidth()));
    return new TransferEstimate(TransferKind.PEER.key(), bytes, views.gpu(), views.call(), bound.id() + " ("
        + bound.describe() + ")", TransferPath.PEER, List.of(new TransferLeg(route, true, LinkCost.Access.WRITE)), -1,
        route.remote(), lat,
        "Abdelhafez et al. 2019, eq. 10 over the peer route", base.peakBw(), base.backOfEnvelope(), notes);
  }

  /**
   * A GPU-to-GPU copy without peer access: staged through host memory on NUMA node {@code numa}
   * (by default the source GPU's local one), a device-to-host then a host-to-device pinned transfer
   * (Pearson 2018, sec. 2.4.4). <b>Choice</b>: the driver moves the data in chunks through its staging
   * buffers, so the two halves overlap and the slower one sets the pace: {@code T = L+o + n /
   * min(BW_down, BW_up, Memory_BW / 2)} (the measured staged copies of Pearson's thesis data run at
   * about the slower half's bandwidth, not at half of it). The staging node's memory is written by
   * one half and read by the other, so the two share it: each byte crosses it twice. The fixed
   * overhead is the measured staged L+o when there is one, else the two pinned L+o's.
   */
  private TransferEstimate staged(long bytes, Node.Gpu src, Node.Gpu dst, int numa) throws NodeFileException {
    Topology.Route down = topology.hostRoute(numa, src.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + src.id()));
    Topology.Route up = topology.hostRoute(numa, dst.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + dst.id()));
    Latency lat = stagedLatency();
    double bwDown = routeBandwidth(down, bytes, LinkCost.Access.WRITE, false);
    double bwUp = routeBandwidth(up, bytes, LinkCost.Access.READ, true);
    double memory = node.cpuOfNuma(numa).orElseThrow().memoryBandwidth() / 2;
    double pace = Math.min(Math.min(bwDown, bwUp), memory);
    Views views = Views.same(lat, bytes / pace);
    String bound = pace == memory ? "NUMA node " + numa + " memory (" + Units.bandwidth(memory * 2) + ", crossed twice)"
        : bwDown <= bwUp ? describe(bounding(down, bytes, LinkCost.Access.WRITE, false))
        : describe(bounding(up, bytes, LinkCost.Access.READ, true));
    List<String> notes = new ArrayList<>();
    if (!lat.measured()) {
      notes.add("no measured L+o for staged copies: the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), bytes, List.of(Math.min(down.bottleneck().bandwidth(),
        up.bottleneck().bandwidth())));
    return new TransferEstimate(TransferKind.STAGED_P2P.key(), bytes, views.gpu(), views.call(), bound,
        TransferPath.STAGED, List.of(new TransferLeg(down, false, LinkCost.Access.WRITE), new TransferLeg(up, true,
            LinkCost.Access.READ)), numa, down.remote() || up.remote(), lat, "staged: Abdelhafez et al. 2019, eq. 10 at the slower of the two halves,"
            + " pipelined", base.peakBw(), base.backOfEnvelope(), notes);
  }

  private static String describe(Node.Link l) {
    return l.id() + " (" + l.describe() + ")";
  }

  /**
   * The fixed overhead a transfer of {@code kind} pays: its L+o ({@link #latency}), for a staged
   * GPU-to-GPU copy without a measurement of its own the sum of its two pinned halves'.
   */
  public Latency fixedCost(TransferKind kind) {
    return kind == TransferKind.STAGED_P2P ? stagedLatency() : latency(kind);
  }

  /** The staged L+o: measured, else the two pinned halves' (in each view, the sum of theirs). */
  private Latency stagedLatency() {
    Latency own = latency(TransferKind.STAGED_P2P);
    if (own.of() == TransferKind.STAGED_P2P) {
      return own;
    }
    Latency d = latency(TransferKind.PINNED_D2H);
    Latency h = latency(TransferKind.PINNED_H2D);
    return new Latency(d.seconds() + h.seconds(), "pinned_d2h + pinned_h2d: " + d.source() + "; " + h.source(),
        d.measured() && h.measured(), d.of(), d.callSeconds() + h.callSeconds(), d.timed(), d.conversion());
  }

  /**
   * Unified-memory page-fault migration of {@code bytes} (Pearson 2018, sec. 5.2, Table 5.5;
   * {@link PageFaultMigration}).
   */
  public TransferEstimate pageFaultMigration(TransferKind.Way way, long bytes, Endpoints where)
      throws NodeFileException {
    return new PageFaultMigration(this).estimate(way, bytes, where);
  }
}
