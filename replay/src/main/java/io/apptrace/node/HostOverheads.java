package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A node's host-overhead model: the own cost of a CUDA API call by {@link ApiClass}, a fixed cost
 * plus, for the classes that pin or unpin memory, a cost per MiB (docs/REPLAY.md, "CUDA calls").
 * The defaults are medians measured on real GPUs ({@code host-overheads.yaml} beside this class
 * gives each figure's source); a node file's {@code host_overheads} section overrides any of them.
 *
 * @param source where the figures come from, as the report prints it
 * @param fixedNs per class, its fixed cost in ns
 * @param perMibNs per class that grows with bytes, its cost per MiB in ns
 * @param overridden the classes the node file set itself
 */
public record HostOverheads(String source, Map<ApiClass, Long> fixedNs, Map<ApiClass, Long> perMibNs,
    java.util.Set<ApiClass> overridden) {
  private static final String RESOURCE = "host-overheads.yaml";
  private static volatile HostOverheads defaults;

  public HostOverheads {
    Objects.requireNonNull(source, "source");
    fixedNs = Collections.unmodifiableMap(new EnumMap<>(fixedNs));
    perMibNs = Collections.unmodifiableMap(perMibNs.isEmpty() ? new EnumMap<>(ApiClass.class) : new EnumMap<>(perMibNs));
    overridden = overridden.isEmpty() ? java.util.Set.of() : java.util.Collections.unmodifiableSet(
        java.util.EnumSet.copyOf(overridden));
    for (ApiClass c : ApiClass.values()) {
      if (!fixedNs.containsKey(c) || (c.perMib() && !perMibNs.containsKey(c))) {
        throw new IllegalArgumentException("host overheads lack " + c.key());
      }
    }
  }

  /** The own cost of a call of class {@code c} that allocates, frees or pins {@code bytes}, ns. */
  public long costNs(ApiClass c, long bytes) {
    long fixed = fixedNs.get(c);
    if (!c.perMib() || bytes <= 0) {
      return fixed;
    }
    return fixed + Math.round(perMibNs.get(c) * (bytes / (1024.0 * 1024.0)));
  }

  /** Whether the node file set any figure itself. */
  public boolean fromNodeFile() {
    return !overridden.isEmpty();
  }

  /** The bundled defaults. */
  public static HostOverheads defaults() {
    HostOverheads d = defaults;
    if (d == null) {
      try (InputStream in = HostOverheads.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("internal error: " + RESOURCE + " is not bundled");
        }
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        d = HostOverheadsSection.read(YamlMap.parse(RESOURCE, text), null);
      } catch (IOException | NodeFileException e) {
        throw new IllegalStateException("internal error: the bundled " + RESOURCE + " does not load: "
            + e.getMessage(), e);
      }
      defaults = d;
    }
    return d;
  }
}
