package io.apptrace.node;

import java.util.Objects;

/**
 * One what-if override of a node file's field, {@code --set PATH=VALUE} (docs/NODE-FORMAT.md,
 * "What-if overrides"). PATH is dotted and names list items by their id ({@code
 * gpus.gpu0.copy_engines}, {@code links.cpu0-gpu0.lanes}); VALUE is YAML as the file would have it
 * ({@code 2}, {@code "5 us"}, {@code [nvlink, pcie-switch]}).
 *
 * @param path the dotted path, as given (after {@code --set}, before the first {@code =})
 * @param value the YAML text after the first {@code =}
 */
public record NodeOverride(String path, String value) {
  private static final String LIKE = "write it PATH=VALUE, like --set gpus.gpu0.copy_engines=2";

  public NodeOverride {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(value, "value");
  }

  /** Reads {@code PATH=VALUE}, split at the first {@code =}; the PATH is stripped of blanks. */
  public static NodeOverride parse(String text) throws NodeOverrideException {
    int eq = text.indexOf('=');
    if (text.isBlank()) {
      throw new NodeOverrideException("--set: nothing given; " + LIKE);
    }
    if (eq < 0) {
      throw new NodeOverrideException("--set " + text + ": no '='; " + LIKE);
    }
    String path = text.substring(0, eq).strip();
    if (path.isEmpty()) {
      throw new NodeOverrideException("--set " + text + ": no PATH before '='; " + LIKE);
    }
    return new NodeOverride(path, text.substring(eq + 1));
  }

  /** {@code --set PATH=VALUE}, as messages and {@link Node#source()} show it. */
  @Override
  public String toString() {
    return "--set " + path + "=" + value;
  }
}
