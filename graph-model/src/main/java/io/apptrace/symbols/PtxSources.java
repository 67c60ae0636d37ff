package io.apptrace.symbols;

import io.apptrace.proto.Module;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The PTX of a process's kernels, read on this side from the binaries its modules name (never in
 * the traced process): a kernel's host stub lies in the module whose fat binaries hold its device
 * code. As for symbols, a binary rebuilt since the capture (its build id differs) is not read.
 */
public final class PtxSources {
  /** A kernel's PTX entry ({@code .entry name(...) {...}}), or why there is none. */
  public record Entry(Optional<String> text, String reason) {
    public Entry {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(reason, "reason");
    }

    static Entry missing(String reason) {
      return new Entry(Optional.empty(), reason);
    }
  }

  /** A binary's PTX entries by name, or (entries null) why it could not be read. */
  private record Binary(Map<String, String> entries, String reason) {}

  private final ModuleRanges ranges;
  private final Map<String, Binary> byPath = new HashMap<>();

  public PtxSources(List<Module> modules) {
    this.ranges = new ModuleRanges(modules);
  }

  /** The PTX entry of kernel {@code name} (as registered: mangled) whose host stub is at {@code stub}. */
  public Entry entry(long stub, String name) {
    Optional<Module> m = ranges.moduleAt(stub);
    if (m.isEmpty() || m.get().getPath().isEmpty()) {
      return Entry.missing("no recorded module holds its host stub");
    }
    Binary found = byPath.computeIfAbsent(m.get().getPath(), p -> read(m.get()));
    if (found.entries() == null) {
      return Entry.missing(found.reason());
    }
    Map<String, String> entries = found.entries();
    String text = entries.get(name);
    return text != null ? new Entry(Optional.of(text), "")
        : Entry.missing(entries.isEmpty() ? "its binary carries no PTX (" + m.get().getPath() + ")"
            : "no PTX entry of it in " + m.get().getPath());
  }

  /** The entries of every PTX text of a module's binary, by name; or why it cannot be read. */
  private static Binary read(Module m) {
    Path path = Path.of(m.getPath());
    if (!Files.isRegularFile(path)) {
      return new Binary(null, "its binary is gone (" + path + ")");
    }
    try (ElfReader elf = ElfReader.open(path)) {
      if (!m.getBuildId().isEmpty() && !elf.buildId().orElse("").equals(m.getBuildId())) {
        return new Binary(null, "its binary was rebuilt since the capture (" + path + ")");
      }
      Map<String, String> entries = new HashMap<>();
      for (String ptx : FatBinary.ptx(elf)) {
        PtxEntries.split(ptx, entries);
      }
      return new Binary(entries, "");
    } catch (IOException e) {
      return new Binary(null, "its binary cannot be read (" + path + ": " + e.getMessage() + ")");
    }
  }
}
