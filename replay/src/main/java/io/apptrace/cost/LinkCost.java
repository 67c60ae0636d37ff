package io.apptrace.cost;

import io.apptrace.node.Node;

/**
 * The bytes a link carries to move n bytes of data, and the bandwidth a transfer of n bytes gets
 * out of it (docs/COST-MODEL.md; Abdelhafez et al. 2019, sec. IV-A and IV-B).
 */
public final class LinkCost {
  /** NVLink flit and largest payload, bytes (Abdelhafez et al. 2019, sec. IV-B). */
  static final int FLIT = 16;
  static final int NVLINK_MAX_PAYLOAD = 256;

  private LinkCost() {}

  /** Whether the device reads (a host-to-device copy) or writes (device-to-host) the far memory. */
  public enum Access {
    READ, WRITE
  }

  /**
   * Bytes on the wire to move {@code n} bytes: {@code n_hat}.
   *
   * <ul>
   *   <li>PCIe read, Abdelhafez et al. 2019, eq. 4: {@code MRd_O + MRRS + ceil(n / RCB) * CplD_O + n}
   *   <li>PCIe write, Abdelhafez et al. 2019, eq. 5: {@code ceil(n / MPS) * MWr_O + n}
   *   <li>NVLink read, Abdelhafez et al. 2019, eq. 6: {@code 16 + ceil(n / 256) * 16 + n}
   *   <li>NVLink write, Abdelhafez et al. 2019, eq. 7: {@code ceil(n / 256) * 16 + n}
   *   <li>other links (SMP buses, NVLink-C2C): {@code n} (their efficiency stands for overhead)
   * </ul>
   */
  public static double nHat(Node.Link link, double n, Access access) {
    switch (link.type()) {
      case PCIE -> {
        Node.Pcie p = link.pcie().orElseThrow();
        return access == Access.READ
            ? p.mrdOverhead() + p.mrrs() + Math.ceil(n / p.rcb()) * p.cpldOverhead() + n
            : Math.ceil(n / p.mps()) * p.mwrOverhead() + n;
      }
      case NVLINK -> {
        double packets = Math.ceil(n / NVLINK_MAX_PAYLOAD) * FLIT;
        return access == Access.READ ? FLIT + packets + n : packets + n;
      }
      default -> {
        return n;
      }
    }
  }

  /**
   * Effective bandwidth of a transfer of {@code n} bytes crossing the link from its {@code a} end
   * ({@code fromA}) or its {@code b} end, Abdelhafez et al. 2019, eq. 2: {@code BW_eff = n * Link_BW / n_hat}, times
   * the link's efficiency in that direction and for that access (a device reading or writing memory
   * across it).
   */
  public static double effectiveBandwidth(Node.Link link, double n, Access access, boolean fromA) {
    double bytes = Math.max(n, 1);
    return bytes * link.bandwidth() / nHat(link, bytes, access) * link.efficiency(fromA)
        * link.accessEfficiency(access == Access.READ);
  }
}
