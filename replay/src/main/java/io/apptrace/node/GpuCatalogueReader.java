package io.apptrace.node;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Reads a GPU catalogue file (a top-level {@code gpus:} list, docs/NODE-FORMAT.md) key by key:
 * every error names the file, line, column and key; a misspelt key is an error; a figure the
 * catalogue does not know is left out, never written {@code unknown}.
 */
final class GpuCatalogueReader {
  /** The architectures an entry may name, oldest first. */
  static final List<String> ARCHITECTURES = List.of("kepler", "maxwell", "pascal", "volta", "turing", "ampere",
      "ada", "hopper", "blackwell");

  private GpuCatalogueReader() {}

  static List<GpuSpec> read(YamlMap root) throws NodeFileException {
    List<GpuSpec> out = new ArrayList<>();
    for (YamlMap g : root.maps("gpus", true)) {
      out.add(entry(g));
    }
    root.done();
    if (!root.unknowns().isEmpty()) {
      NodeSkeleton.Unknown u = root.unknowns().get(0);
      throw new NodeFileException(u.where() + ": " + u.field() + ": a catalogue figure is never 'unknown'; leave"
          + " the key out (the kernel model then says which figure it lacked)");
    }
    return out;
  }

  private static GpuSpec entry(YamlMap g) throws NodeFileException {
    String name = g.string("name").strip();
    if (name.isEmpty()) {
      throw g.error("name", "an empty name");
    }
    List<String> aliases = new ArrayList<>();
    for (YamlMap.Scalar a : g.scalars("aliases", false)) {
      aliases.add(a.text.strip());
    }
    String arch = g.string("architecture").strip();
    if (!ARCHITECTURES.contains(arch)) {
      throw g.error("architecture", "unknown architecture '" + arch + "' (known: " + String.join(", ", ARCHITECTURES)
          + ")");
    }
    String cc = g.string("compute_capability").strip();
    if (!cc.matches("[0-9]+\\.[0-9]+")) {
      throw g.error("compute_capability", "\"" + cc + "\" is not major.minor; write it like \"8.0\" (with quotes)");
    }
    OptionalInt sms = g.optInteger("sms", 1, 100_000);
    OptionalDouble clock = g.optQuantity("boost_clock", Units.Kind.FREQUENCY);
    OptionalDouble memory = g.optQuantity("memory", Units.Kind.SIZE);
    OptionalDouble bandwidth = g.optQuantity("memory_bandwidth", Units.Kind.BANDWIDTH);
    OptionalDouble l2 = g.optQuantity("l2_cache", Units.Kind.SIZE);
    Map<CataloguePeak, Double> peaks = peaks(g);
    Optional<GpuSpec.PerSm> perSm = perSm(g);
    OptionalDouble tdp = g.optQuantity("tdp", Units.Kind.POWER);
    List<String> sources = new ArrayList<>();
    for (YamlMap.Scalar s : g.scalars("sources", false)) {
      sources.add(s.text);
    }
    g.done();
    return new GpuSpec(name, aliases, arch, cc, sms, clock, memory, bandwidth, l2, peaks, perSm, tdp, sources);
  }

  private static Map<CataloguePeak, Double> peaks(YamlMap g) throws NodeFileException {
    Map<CataloguePeak, Double> peaks = new EnumMap<>(CataloguePeak.class);
    Optional<YamlMap> pf = g.map("peak_flops");
    if (pf.isEmpty()) {
      return peaks;
    }
    for (String p : pf.get().keys()) {
      Optional<CataloguePeak> peak = CataloguePeak.parse(p);
      if (peak.isEmpty()) {
        throw pf.get().keyError(p, "unknown precision '" + p + "' (known: " + CataloguePeak.known() + ")");
      }
      OptionalDouble v = pf.get().optQuantity(p, Units.Kind.COMPUTE);
      if (v.isPresent() && !Double.isNaN(v.getAsDouble())) {
        peaks.put(peak.get(), v.getAsDouble());
      }
    }
    pf.get().done();
    return peaks;
  }

  private static Optional<GpuSpec.PerSm> perSm(YamlMap g) throws NodeFileException {
    Optional<YamlMap> m = g.map("per_sm");
    if (m.isEmpty()) {
      return Optional.empty();
    }
    YamlMap p = m.get();
    int threads = p.integer("threads", 32, 65_536);
    int blocks = p.integer("blocks", 1, 1024);
    int registers = p.integer("registers", 1024, 1 << 24);
    double shared = p.quantity("shared_memory", Units.Kind.SIZE);
    p.done();
    return Optional.of(new GpuSpec.PerSm(threads, blocks, registers, (long) shared));
  }
}
