package io.apptrace.cost;

import java.util.List;

/**
 * What one transfer costs on a node.
 *
 * @param kind the transfer kind's key ({@code pinned_h2d}, ...; {@code fault_h2d} for page-fault
 *     migration)
 * @param seconds the modelled time
 * @param bottleneck the link that bounds it, described
 * @param route the vertices it crosses ({@code a -> b -> c}; two routes for a staged copy)
 * @param remote whether it crosses a bus between CPU sockets
 * @param latency the L+o it counts, and where that came from
 * @param method the equation or measurement used
 * @param peakBwSeconds the Peak BW baseline (docs/COST-MODEL.md)
 * @param backOfEnvelopeSeconds the back-of-envelope baseline
 * @param notes what the user should know (no measured L+o, no peer access, ...)
 */
public record TransferEstimate(String kind, long bytes, double seconds, String bottleneck, String route,
    boolean remote, TransferModel.Latency latency, String method, double peakBwSeconds,
    double backOfEnvelopeSeconds, List<String> notes) {
  public TransferEstimate {
    notes = List.copyOf(notes);
  }

  /** Bytes over time: the bandwidth the transfer reaches. */
  public double bandwidth() {
    return seconds > 0 ? bytes / seconds : 0;
  }

  TransferEstimate withNotes(List<String> n) {
    return new TransferEstimate(kind, bytes, seconds, bottleneck, route, remote, latency, method, peakBwSeconds,
        backOfEnvelopeSeconds, n);
  }
}
