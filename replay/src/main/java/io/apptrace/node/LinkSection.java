package io.apptrace.node;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/** One entry of a node file's {@code links} (docs/NODE-FORMAT.md, "links"): its ends, kind, generation and efficiencies. */
final class LinkSection {
  private LinkSection() {}

  static Node.Link read(YamlMap l, Map<String, YamlMap.Scalar> ids, Set<String> joined)
      throws NodeFileException {
    List<YamlMap.Scalar> ends = l.scalars("between", true);
    if (ends.size() != 2) {
      throw l.error("between", "a link is between two ids: [a, b]");
    }
    for (YamlMap.Scalar e : ends) {
      if (!ids.containsKey(e.text)) {
        throw e.error("no CPU, GPU or switch has the id '" + e.text + "'");
      }
    }
    String a = ends.get(0).text;
    String b = ends.get(1).text;
    if (a.equals(b)) {
      throw l.error("between", "a link joins two different ids");
    }
    String key = a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
    if (!joined.add(key)) {
      throw l.error("between", "a second link between " + a + " and " + b + "; give one link with 'count'"
          + " or more lanes");
    }
    String typeName = l.string("type");
    LinkType type = LinkType.of(typeName).orElseThrow(() -> l.error("type", "unknown link type '" + typeName
        + "' (known: pcie, nvlink, nvlink-c2c, xbus, qpi, upi, infinity-fabric, smp)"));
    // efficiency: one number, [a to b, b to a] when the directions differ, or {read, write} when it
    // depends on whether a device reads or writes memory across the link
    double efficiency = 1.0;
    double efficiencyBack = 1.0;
    double[] byAccess = accessEfficiency(l);
    List<YamlMap.Scalar> eff = byAccess != null ? List.of() : l.scalars("efficiency", false);
    if (eff.size() > 2) {
      throw l.error("efficiency", "give one efficiency, or two: [from " + a + " to " + b + ", back]");
    }
    for (int k = 0; k < eff.size(); k++) {
      double v;
      try {
        v = Double.parseDouble(eff.get(k).text.strip());
      } catch (NumberFormatException e) {
        throw eff.get(k).error("\"" + eff.get(k).text + "\" is not a number");
      }
      if (!(v >= 0.01 && v <= 1.0)) {
        throw eff.get(k).error(eff.get(k).text + " is out of range; it must be from 0.01 to 1.0");
      }
      if (k == 0) {
        efficiency = efficiencyBack = v;
      } else {
        efficiencyBack = v;
      }
    }
    double duplex = l.number("duplex", 0.01, 1.0, 1.0);
    int count = l.optInteger("count", 1, 64).orElse(1);
    Optional<Node.Pcie> pcie = Optional.empty();
    int nvGen = 0;
    double bandwidth;
    switch (type) {
      case PCIE -> {
        int gen = l.count("generation", 1, 6);
        int lanes = l.count("lanes", 1, 32);
        if (Integer.bitCount(lanes) != 1) {
          throw l.error("lanes", lanes + " lanes: PCIe links have 1, 2, 4, 8, 16 or 32");
        }
        int mrd = 12;
        int mwr = 12;
        int cpld = 12;
        Optional<YamlMap> o = l.map("overheads");
        if (o.isPresent()) {
          mrd = o.get().optInteger("mrd", 0, 256).orElse(12);
          mwr = o.get().optInteger("mwr", 0, 256).orElse(12);
          cpld = o.get().optInteger("cpld", 0, 256).orElse(12);
          o.get().done();
        }
        int mps = l.optInteger("mps", 64, 4096).orElse(256);
        int mrrs = l.optInteger("mrrs", 64, 4096).orElse(512);
        int rcb = l.optInteger("rcb", 32, 4096).orElse(64);
        if (rcb > mps) {
          throw l.error("rcb", "rcb " + rcb + " is larger than mps " + mps + "; the read completion boundary"
              + " is at most the maximum payload");
        }
        pcie = Optional.of(new Node.Pcie(gen, lanes, mps, mrrs, rcb, mrd, mwr, cpld));
        bandwidth = PcieGeneration.of(gen).linkBandwidth(lanes) * count;
      }
      case NVLINK -> {
        nvGen = l.count("generation", 1, 5);
        int lanes = l.optCount("lanes", 1, 64).orElse(1);
        OptionalDouble laneBw = l.optQuantity("lane_bandwidth", Units.Kind.BANDWIDTH);
        OptionalDouble whole = l.optQuantity("bandwidth", Units.Kind.BANDWIDTH);
        if (laneBw.isPresent() && whole.isPresent()) {
          throw l.error("bandwidth", "give lane_bandwidth or bandwidth, not both");
        }
        if (whole.isPresent()) {
          bandwidth = whole.getAsDouble() * count;
        } else if (laneBw.isPresent()) {
          bandwidth = laneBw.getAsDouble() * lanes * count;
        } else if (nvGen <= 2) {
          // Pearson 2018, Table 2.1: NVLink 1.0 lanes run at 20 GB/s, NVLink 2.0 lanes at 25 GB/s, per direction
          bandwidth = (nvGen == 1 ? 20e9 : 25e9) * lanes * count;
        } else {
          throw l.error("generation", "NVLink " + nvGen + ": give lane_bandwidth (per direction, e.g. \"25 GB/s\")"
              + " or bandwidth");
        }
      }
      default -> bandwidth = l.quantity("bandwidth", Units.Kind.BANDWIDTH) * count;
    }
    l.done();
    return new Node.Link(a + "-" + b, a, b, type, bandwidth, efficiency, efficiencyBack, duplex, count, pcie, nvGen,
        byAccess == null ? 1.0 : byAccess[0], byAccess == null ? 1.0 : byAccess[1]);
  }

  /**
   * A link's {@code efficiency: {read: R, write: W}}: R for transfers in which a device reads memory
   * across the link (host to device), W where it writes it (device to host, GPU to GPU); null when
   * the efficiency is a number or a pair, or absent.
   */
  private static double[] accessEfficiency(YamlMap l) throws NodeFileException {
    if (!l.has("efficiency")) {
      return null;
    }
    Optional<YamlMap> m;
    try {
      m = l.map("efficiency");
    } catch (NodeFileException notAMap) {
      return null;
    }
    if (m.isEmpty()) {
      return null;
    }
    double read = m.get().number("read", 0.01, 1.0, 1.0);
    double write = m.get().number("write", 0.01, 1.0, 1.0);
    m.get().done();
    return new double[] {read, write};
  }
}
