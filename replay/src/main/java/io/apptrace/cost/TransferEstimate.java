package io.apptrace.cost;

import io.apptrace.node.Timing;
import java.util.List;

/**
 * What one transfer costs on a node.
 *
 * @param kind the transfer kind's key ({@code pinned_h2d}, ...; {@code fault_h2d} for page-fault
 *     migration)
 * @param seconds the modelled time on the GPU: the span a profiler shows the copy occupying it
 *     (docs/COST-MODEL.md, "Timing kinds")
 * @param callSeconds the modelled duration of a blocking call around the copy, as CUDA events or
 *     the host clock time it
 * @param bottleneck the link that bounds it, described
 * @param path which way its bytes go
 * @param legs the routes it crosses, in the order the data crosses them (two for a staged copy)
 * @param hostNuma the NUMA node whose memory it reads or writes (a staged copy's staging node), -1
 *     for none
 * @param remote whether it crosses a bus between CPU sockets
 * @param latency the L+o it counts, and where that came from
 * @param method the equation or measurement used
 * @param peakBwSeconds the Peak BW baseline (docs/COST-MODEL.md), GPU time
 * @param backOfEnvelopeSeconds the back-of-envelope baseline
 * @param notes what the user should know (no measured L+o, no peer access, ...)
 */
public record TransferEstimate(String kind, long bytes, double seconds, double callSeconds, String bottleneck,
    TransferPath path, List<TransferLeg> legs, int hostNuma, boolean remote, TransferModel.Latency latency, String method, double peakBwSeconds,
    double backOfEnvelopeSeconds, List<String> notes) {
  public TransferEstimate {
    legs = List.copyOf(legs);
    notes = List.copyOf(notes);
  }

  /** Bytes over time: the bandwidth the transfer reaches (GPU time). */
  public double bandwidth() {
    return seconds > 0 ? bytes / seconds : 0;
  }

  /** The modelled time as a measurement timed {@code view} would show it. */
  public double seconds(Timing view) {
    return view.includesCall() ? callSeconds : seconds;
  }

  /** The Peak BW baseline as a measurement timed {@code view} would show it: with that view's L+o. */
  public double peakBwSeconds(Timing view) {
    return view.includesCall() ? peakBwSeconds - latency.seconds() + latency.callSeconds() : peakBwSeconds;
  }

  TransferEstimate withNotes(List<String> n) {
    return new TransferEstimate(kind, bytes, seconds, callSeconds, bottleneck, path, legs, hostNuma, remote, latency,
        method,
        peakBwSeconds, backOfEnvelopeSeconds, n);
  }
}
