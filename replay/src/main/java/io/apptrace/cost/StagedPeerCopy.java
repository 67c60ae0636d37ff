package io.apptrace.cost;

import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Topology;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.util.ArrayList;
import java.util.List;

/**
 * A GPU-to-GPU copy without peer access (docs/COST-MODEL.md, "Each kind of transfer"): staged
 * through host memory on a NUMA node (by default the source GPU's local one), a device-to-host
 * then a host-to-device pinned transfer (Pearson 2018, sec. 2.4.4). <b>Choice</b>: the driver moves
 * the data in chunks through its staging buffers, so the two halves overlap and the slower one sets
 * the pace: {@code T = L+o + n / min(BW_down, BW_up, Memory_BW / 2)} (the measured staged copies of
 * Pearson's thesis data run at about the slower half's bandwidth, not at half of it). The staging
 * node's memory is written by one half and read by the other, so the two share it: each byte
 * crosses it twice. The fixed overhead is the measured staged L+o when there is one, else the two
 * pinned L+o's.
 */
final class StagedPeerCopy {
  private final TransferModel model;

  StagedPeerCopy(TransferModel model) {
    this.model = model;
  }

  /** The cost of {@code bytes} from {@code src} to {@code dst} staged through NUMA node {@code numa}. */
  TransferEstimate estimate(long bytes, Node.Gpu src, Node.Gpu dst, int numa) throws NodeFileException {
    Node node = model.node();
    Topology topology = model.topology();
    Topology.Route down = topology.hostRoute(numa, src.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + src.id()));
    Topology.Route up = topology.hostRoute(numa, dst.id()).orElseThrow(() -> new NodeFileException(
        node.name() + ": no route between NUMA node " + numa + " and " + dst.id()));
    TransferModel.Latency lat = latency();
    double bwDown = RouteBandwidth.of(down, bytes, LinkCost.Access.WRITE, false);
    double bwUp = RouteBandwidth.of(up, bytes, LinkCost.Access.READ, true);
    double memory = node.cpuOfNuma(numa).orElseThrow().memoryBandwidth() / 2;
    double pace = Math.min(Math.min(bwDown, bwUp), memory);
    TransferTimes times = TransferTimes.same(lat, bytes / pace);
    String bound = pace == memory ? "NUMA node " + numa + " memory (" + Units.bandwidth(memory * 2) + ", crossed twice)"
        : bwDown <= bwUp ? describe(RouteBandwidth.bounding(down, bytes, LinkCost.Access.WRITE, false))
        : describe(RouteBandwidth.bounding(up, bytes, LinkCost.Access.READ, true));
    List<String> notes = new ArrayList<>();
    if (!lat.measured()) {
      notes.add("no measured L+o for staged copies: the time counts no fixed overhead");
    }
    Baselines base = Baselines.of(lat.seconds(), bytes, List.of(Math.min(down.bottleneck().bandwidth(),
        up.bottleneck().bandwidth())));
    return new TransferEstimate(TransferKind.STAGED_P2P.key(), bytes, times.gpu(), times.call(), bound,
        TransferPath.STAGED, List.of(new TransferLeg(down, false, LinkCost.Access.WRITE), new TransferLeg(up, true,
            LinkCost.Access.READ)), numa, down.remote() || up.remote(), lat, "staged: Abdelhafez et al. 2019, eq. 10 at the slower of the two halves,"
            + " pipelined", base.peakBw(), base.backOfEnvelope(), notes);
  }

  /** The staged L+o: measured, else the two pinned halves' (in each view, the sum of theirs). */
  TransferModel.Latency latency() {
    TransferModel.Latency own = model.latency(TransferKind.STAGED_P2P);
    if (own.of() == TransferKind.STAGED_P2P) {
      return own;
    }
    TransferModel.Latency d = model.latency(TransferKind.PINNED_D2H);
    TransferModel.Latency h = model.latency(TransferKind.PINNED_H2D);
    return new TransferModel.Latency(d.seconds() + h.seconds(), "pinned_d2h + pinned_h2d: " + d.source() + "; "
        + h.source(), d.measured() && h.measured(), d.of(), d.callSeconds() + h.callSeconds(), d.timed(),
        d.conversion());
  }

  private static String describe(Node.Link l) {
    return l.id() + " (" + l.describe() + ")";
  }
}
