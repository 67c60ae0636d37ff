package io.apptrace.cost;

/**
 * The two views of a transfer's time (docs/COST-MODEL.md, "Timing kinds"), seconds: its span on
 * the GPU and the duration of a blocking call around it, each its data part added to its L+o.
 */
record TransferTimes(double gpu, double call) {
  /** The same data part added to each view's L+o. */
  static TransferTimes same(TransferModel.Latency lat, double data) {
    return new TransferTimes(lat.seconds() + data, lat.callSeconds() + data);
  }
}
