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

/**
 * What a transfer costs on a node (docs/COST-MODEL.md): the time of every transfer kind between any
 * two memories, on the GPU and as the call around it sees it, with the link that bounds it and the
 * two baselines of docs/COST-MODEL.md beside it. Each way a transfer goes is priced here or by the
 * class of its rule: {@link StagedPeerCopy} (GPU to GPU without peer access), {@link
 * PageFaultMigration}, {@link PageableStaging}, {@link DeviceCopy}, {@link MeasuredCurve}; a
 * route's bandwidth is {@link RouteBandwidth}'s.
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
  private final MeasuredCurve curves;
  private final StagedPeerCopy staged;

  public TransferModel(Node node) throws NodeFileException {
    this.node = node;
    this.topology = Topology.of(node);
    this.fixed = new FixedCosts(node);
    this.curves = new MeasuredCurve(node);
    this.staged = new StagedPeerCopy(this);
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
        TransferEstimate staged = this.staged.estimate(bytes, src, dst, where.numa() >= 0 ? numa(where, src)
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
    return Optional.of(staging(route.get(), bytes, kind == TransferKind.PAGEABLE_H2D, memcpy));
  }

  /**
   * The staging pipeline of a pageable copy of {@code n} bytes over {@code route} with the CPU's
   * memcpy bandwidth {@code memcpy} ({@link PageableStaging}): the DMA of a chunk at the route's
   * effective bandwidth for one chunk.
   */
  private PageableStaging staging(Topology.Route route, double n, boolean h2d, double memcpy) {
    double chunk = node.measured().stagingChunkBytes();
    double dma = RouteBandwidth.of(route, Math.min(n, chunk), h2d ? LinkCost.Access.READ : LinkCost.Access.WRITE, h2d);
    return PageableStaging.of(n, chunk, h2d, memcpy, dma);
  }

  private TransferEstimate hostTransfer(TransferKind kind, long bytes, Node.Gpu gpu, int numa, Setting setting)
      throws NodeFileException {
    boolean h2d = kind.way() == TransferKind.Way.H2D;
    Topology.Route route = topology.hostRoute(numa, gpu.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + gpu.id()));
    LinkCost.Access access = h2d ? LinkCost.Access.READ : LinkCost.Access.WRITE;
    Latency lat = latency(kind);
    double n = bytes;
    double bwEff = RouteBandwidth.of(route, n, access, h2d);
    Node.Link bound = RouteBandwidth.bounding(route, n, access, h2d);
    List<String> notes = new ArrayList<>();
    TransferTimes views;
    String method;
    boolean pageable = kind == TransferKind.PAGEABLE_H2D || kind == TransferKind.PAGEABLE_D2H;
    if (pageable) {
      Node.Cpu cpu = node.cpuOfNuma(numa).orElseThrow();
      Double memcpy = node.measured().memcpyBandwidth().get(cpu.id());
      if (memcpy != null) {
        PageableStaging p = staging(route, n, h2d, memcpy);
        views = new TransferTimes(lat.seconds() + p.gpuSeconds(), lat.callSeconds() + p.callSeconds());
        method = "pageable: staged through pinned buffers of " + Units.size((long) node.measured().stagingChunkBytes())
            + ", " + cpu.id()
            + "'s memcpy at " + Units.bandwidth(memcpy) + " pipelined with the DMA (Pearson 2018, sec. 4.2.1)";
      } else {
        // Abdelhafez et al. 2019, eq. 9: T = L + o + 2n / Memory_BW + n / BW_eff (staged through a pinned buffer)
        views = TransferTimes.same(lat, 2 * n / cpu.memoryBandwidth() + n / bwEff);
        method = "Abdelhafez et al. 2019, eq. 9 (pageable: staged through pinned memory)";
        notes.add(node.name() + "'s " + cpu.id() + " has no memcpy_bandwidth: the staging copy is taken at the"
            + " memory's bandwidth, before the DMA (measure it with 'apptrace calibrate')");
      }
    } else {
      // Abdelhafez et al. 2019, eq. 10: T = L + o + n / BW_eff
      views = TransferTimes.same(lat, n / bwEff);
      method = "Abdelhafez et al. 2019, eq. 10";
    }
    Curve curve = setting == Setting.MEASURED ? node.measured().curves().get(kind) : null;
    if (curve != null) {
      boolean local = numa == topology.localNuma(gpu.id());
      MeasuredCurve.Price price = curves.price(curve, route, n, access, h2d, lat, local, views, method, notes);
      views = price.times();
      method = price.method();
    }
    if (!lat.measured()) {
      notes.add("no measured L+o for " + kind.key() + ": the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), n, List.of(route.bottleneck().bandwidth()));
    return new TransferEstimate(kind.key(), bytes, views.gpu(), views.call(), bound.id() + " (" + bound.describe()
        + ")", TransferPath.HOST, List.of(new TransferLeg(route, h2d, access)), numa, route.remote(), lat, method, base.peakBw(), base.backOfEnvelope(), notes);
  }

  private TransferEstimate deviceToDevice(long bytes, Node.Gpu gpu) {
    Latency lat = latency(TransferKind.D2D);
    TransferTimes views = TransferTimes.same(lat, DeviceCopy.dataSeconds(bytes, gpu.memoryBandwidth()));
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
    double bw = RouteBandwidth.of(route, bytes, LinkCost.Access.WRITE, true);
    Node.Link bound = RouteBandwidth.bounding(route, bytes, LinkCost.Access.WRITE, true);
    // Abdelhafez et al. 2019, sec. IV-C: peer copies use the direct NVLink or PCIe path's model (eq. 10, device writes)
    TransferTimes views = TransferTimes.same(lat, bytes / bw);
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
   * The fixed overhead a transfer of {@code kind} pays: its L+o ({@link #latency}), for a staged
   * GPU-to-GPU copy without a measurement of its own the sum of its two pinned halves'.
   */
  public Latency fixedCost(TransferKind kind) {
    return kind == TransferKind.STAGED_P2P ? staged.latency() : latency(kind);
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
