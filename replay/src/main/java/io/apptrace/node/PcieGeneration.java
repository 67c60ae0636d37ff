package io.apptrace.node;

/**
 * PCIe generations: signalling rate and encoding efficiency (docs/COST-MODEL.md; Abdelhafez et al. 2019, Table II,
 * Pearson 2018, Table 2.2; generation 5 from the PCIe 5.0 specification, 6 from the PCIe 6.0 specification,
 * whose FLIT mode is taken as 242/256 efficient).
 */
public enum PcieGeneration {
  GEN1(2.5e9, 8.0 / 10),
  GEN2(5.0e9, 8.0 / 10),
  GEN3(8.0e9, 128.0 / 130),
  GEN4(16.0e9, 128.0 / 130),
  GEN5(32.0e9, 128.0 / 130),
  GEN6(64.0e9, 242.0 / 256);

  private final double transfersPerSecond;
  private final double eta;

  PcieGeneration(double transfersPerSecond, double eta) {
    this.transfersPerSecond = transfersPerSecond;
    this.eta = eta;
  }

  public static PcieGeneration of(int generation) {
    return values()[generation - 1];
  }

  /** Signalling rate of one lane, transfers (bits) per second. */
  public double rate() {
    return transfersPerSecond;
  }

  /** Encoding efficiency: 8b/10b, 128b/130b. */
  public double eta() {
    return eta;
  }

  /**
   * {@code Link_BW = lanes * rate * eta / 8} bytes per second per direction (docs/COST-MODEL.md,
   * PCIe; the Choice there: eta applied once).
   */
  public double linkBandwidth(int lanes) {
    return lanes * transfersPerSecond * eta / 8;
  }
}
