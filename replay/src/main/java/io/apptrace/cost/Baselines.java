package io.apptrace.cost;

import java.util.List;

/**
 * The baselines reported beside every projection (docs/COST-MODEL.md; Abdelhafez et al. 2019, sec. VI-D): Peak BW,
 * Abdelhafez et al. 2019, eq. 10 with the theoretical bandwidth of the route's slowest link and the measured L+o; and
 * back-of-envelope, n over that bandwidth with no fixed overhead. A transfer that crosses two routes
 * (staged GPU-to-GPU) is given the slower one's bandwidth.
 */
record Baselines(double peakBw, double backOfEnvelope) {
  static Baselines of(double latency, double bytes, List<Double> bandwidths) {
    double wire = 0;
    for (double bw : bandwidths) {
      wire += bytes / bw;
    }
    return new Baselines(latency + wire, wire);
  }
}
