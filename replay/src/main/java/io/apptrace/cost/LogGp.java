package io.apptrace.cost;

/**
 * The LogGP transfer model of van Werkhoven et al. 2014, sec. V: one transfer of k bytes takes {@code L + o + k * G};
 * k bytes sent as nStreams back-to-back chunks take {@code L + o + k * G + g * (nStreams - 1)}
 * (docs/COST-MODEL.md, "Back-to-back transfers").
 *
 * @param latency L + o, seconds
 * @param gPerByte G, seconds per byte (the inverse of the large-message bandwidth)
 * @param gap g, seconds: the gap between back-to-back transfers
 */
public record LogGp(double latency, double gPerByte, double gap) {
  /** One transfer of {@code k} bytes. */
  public double seconds(double k) {
    return latency + k * gPerByte;
  }

  /** {@code k} bytes in {@code streams} back-to-back chunks. */
  public double seconds(double k, int streams) {
    return latency + k * gPerByte + gap * (streams - 1);
  }
}
