package io.apptrace.node;

/** A node file's {@code host_overheads} section (docs/NODE-FORMAT.md): the CUDA calls' own costs by API class. */
final class HostOverheadsSection {
  private HostOverheadsSection() {}

  /**
   * A {@code host_overheads} section: each figure it gives, over {@code base}'s (null for the
   * bundled defaults themselves, which must give every figure).
   */
  static HostOverheads read(YamlMap m, HostOverheads base) throws NodeFileException {
    java.util.Map<ApiClass, Long> fixed = new java.util.EnumMap<>(ApiClass.class);
    java.util.Map<ApiClass, Long> perMib = new java.util.EnumMap<>(ApiClass.class);
    java.util.Set<ApiClass> set = java.util.EnumSet.noneOf(ApiClass.class);
    if (base != null) {
      fixed.putAll(base.fixedNs());
      perMib.putAll(base.perMibNs());
    }
    String source = m.has("source") ? m.string("source") : base == null ? null : "the node file";
    for (ApiClass c : ApiClass.values()) {
      java.util.OptionalDouble v = m.optQuantity(c.key(), Units.Kind.TIME);
      if (v.isPresent()) {
        fixed.put(c, Math.round(v.getAsDouble() * 1e9));
        set.add(c);
      } else if (base == null) {
        throw m.error(c.key(), "the figure is missing");
      }
      if (c.perMib()) {
        java.util.OptionalDouble w = m.optQuantityOrZero(c.key() + "_per_mib", Units.Kind.TIME);
        if (w.isPresent()) {
          perMib.put(c, Math.round(w.getAsDouble() * 1e9));
          set.add(c);
        } else if (base == null) {
          throw m.error(c.key() + "_per_mib", "the figure is missing");
        }
      }
    }
    m.done();
    if (source == null) {
      throw m.error("source", "say where the figures come from");
    }
    return new HostOverheads(source, fixed, perMib, base == null ? java.util.Set.of() : set);
  }
}
