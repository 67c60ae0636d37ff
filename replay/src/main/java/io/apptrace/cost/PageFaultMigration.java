package io.apptrace.cost;

import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Timing;
import io.apptrace.node.Topology;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Unified-memory page-fault migration (Pearson 2018, sec. 5.2, Table 5.5; docs/COST-MODEL.md,
 * "Each kind of transfer"): one fault per {@code migration_granularity} bytes, each costing the
 * measured fault latency, plus the bytes over the route at the effective bandwidth of one granule.
 */
final class PageFaultMigration {
  private final TransferModel model;

  PageFaultMigration(TransferModel model) {
    this.model = model;
  }

  /**
   * {@code way} is H2D (a GPU touches pages on the CPU) or D2H, or P2P between two GPUs (local when
   * their route crosses no CPU bus).
   */
  TransferEstimate estimate(TransferKind.Way way, long bytes, TransferModel.Endpoints where)
      throws NodeFileException {
    Node node = model.node();
    Topology topology = model.topology();
    Node.Gpu src = model.gpu(where.srcGpu());
    Node.PageFaults f = node.measured().pageFaults();
    Topology.Route route;
    OptionalDouble latency;
    LinkCost.Access access;
    boolean along;
    switch (way) {
      case H2D -> {
        route = topology.hostRoute(model.numa(where, src), src.id()).orElseThrow();
        latency = f.cpuToGpu();
        access = LinkCost.Access.READ;
        along = true;
      }
      case D2H -> {
        route = topology.hostRoute(model.numa(where, src), src.id()).orElseThrow();
        latency = f.gpuToCpu();
        access = LinkCost.Access.WRITE;
        along = false;
      }
      default -> {
        Node.Gpu dst = model.gpu(where.dstGpu());
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
    double bw = RouteBandwidth.of(route, Math.min(bytes, granularity), access, along);
    double seconds = faults * latency.getAsDouble() + bytes / bw;
    Node.Link bound = RouteBandwidth.bounding(route, Math.min(bytes, granularity), access, along);
    // the faults happen on the GPU: the same figure in both views
    TransferModel.Latency lat = new TransferModel.Latency(latency.getAsDouble(), "measured page-fault latency on "
        + node.name(), true, null, latency.getAsDouble(), Timing.GPU, Optional.empty());
    Baselines base = Baselines.of(0, bytes, List.of(route.bottleneck().bandwidth()));
    String kind = "fault_" + way.name().toLowerCase(Locale.ROOT);
    return new TransferEstimate(kind, bytes, seconds, seconds, bound.id() + " (" + bound.describe() + ")",
        TransferPath.FAULT, List.of(new TransferLeg(route, along, access)), way == TransferKind.Way.P2P ? -1
            : model.numa(where, src), route.remote(), lat, String.format(Locale.ROOT, "Pearson 2018, Table 5.5: %.0f faults of %s each",
            faults, Units.time(latency.getAsDouble())), base.peakBw(), base.backOfEnvelope(), List.of());
  }
}
