package io.apptrace.node;

import java.util.Optional;

/** The kinds of link a node file knows, by the names it uses for them. */
public enum LinkType {
  PCIE("pcie"),
  NVLINK("nvlink"),
  NVLINK_C2C("nvlink-c2c"),
  XBUS("xbus"),
  QPI("qpi"),
  UPI("upi"),
  INFINITY_FABRIC("infinity-fabric"),
  SMP("smp");

  private final String key;

  LinkType(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }

  /** A bus between CPU sockets: carries transfers to a remote NUMA node's memory. */
  public boolean cpuInterconnect() {
    return this == XBUS || this == QPI || this == UPI || this == INFINITY_FABRIC || this == SMP;
  }

  public static Optional<LinkType> of(String key) {
    for (LinkType t : values()) {
      if (t.key.equals(key)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
