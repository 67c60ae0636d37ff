package io.apptrace.cost;

import io.apptrace.node.Curve;
import io.apptrace.node.Node;
import io.apptrace.node.Timing;
import io.apptrace.node.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * A host transfer priced by the node's measured bandwidth curve of its kind (docs/COST-MODEL.md,
 * "Measured curves"): on the route it was measured on (a NUMA node and a GPU local to it) the
 * curve's time replaces the equation's; <b>choice</b>: on a remote route the time is the larger of
 * the two, so that a curve measured locally never makes a remote transfer faster than its route
 * allows. The curve is timed as its node file's {@code timed} says; the other view is shifted by the
 * difference of the kind's two L+o. When a what-if changed links of the route since the curve was
 * measured, the curve's data time is scaled by the datasheet estimates' ratio after/before.
 */
final class MeasuredCurve {
  /** A transfer's times and the method that gave them. */
  record Price(TransferTimes times, String method) {}

  private final Node node;

  MeasuredCurve(Node node) {
    this.node = node;
  }

  /**
   * The price of a host transfer of {@code n} bytes over {@code route} ({@code along}: from its first
   * vertex to its last) under {@code curve}, given the equation's times and method; what the
   * reader must know is added to {@code notes}.
   *
   * @param local whether the route is the curve's own (the GPU's local NUMA node)
   */
  Price price(Curve curve, Topology.Route route, double n, LinkCost.Access access, boolean along,
      TransferModel.Latency lat, boolean local, TransferTimes equation, String method, List<String> notes) {
    TransferTimes measured = times(curve, n, lat);
    OptionalDouble rescale = rescale(route, n, access, along);
    if (rescale.isPresent()) {
      double s = rescale.getAsDouble();
      measured = new TransferTimes(lat.seconds() + (measured.gpu() - lat.seconds()) * s,
          lat.callSeconds() + (measured.call() - lat.callSeconds()) * s);
      notes.add(String.format(Locale.ROOT, "measured curve rescaled: its route's links were changed by"
          + " --set (%s), so its data time is scaled by the datasheet estimates' ratio after/before, %.3f",
          changedLinks(route), s));
    }
    if (local || measured.gpu() >= equation.gpu()) {
      TransferTimes times = local ? measured : new TransferTimes(Math.max(measured.gpu(), equation.gpu()),
          Math.max(measured.call(), equation.call()));
      return new Price(times, "measured curve (" + curve.points() + " points" + (local ? ""
          : ", bounded below by the model for this remote route") + ")");
    }
    return new Price(equation, method + "; the measured curve (local route) is faster than this remote route allows");
  }

  /**
   * For a measured curve used on {@code route}: when a what-if changed links of the route since the
   * curve was measured ({@link Node.Measured#curveLinks}), the ratio of the route's datasheet data
   * time after the change to before it (the curve keeps what the measurement knows beyond the
   * datasheet, scaled by what the change does to it); empty when no link of the route changed.
   */
  private OptionalDouble rescale(Topology.Route route, double n, LinkCost.Access access, boolean along) {
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
    double bwBefore = RouteBandwidth.of(new Topology.Route(route.vertices(), was), n, access, along);
    double bwAfter = RouteBandwidth.of(route, n, access, along);
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
  private TransferTimes times(Curve curve, double n, TransferModel.Latency lat) {
    double t = curve.seconds(n);
    double shift = lat.callSeconds() - lat.seconds();
    if (node.measured().timed().orElse(Timing.GPU).includesCall()) {
      return new TransferTimes(Math.max(t - shift, lat.seconds()), t);
    }
    return new TransferTimes(t, t + shift);
  }
}
