package io.apptrace.symbols;

import io.apptrace.proto.Module;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Symbolizes the call sites of one traced process: maps each address to the module whose range
 * holds it, to that object's ELF virtual address ({@code address - load_bias}), and then to a
 * function and, with DWARF line information, a file and line.
 *
 * <p>Addresses are return addresses, as {@code Event.call_site} records them. Each is looked up
 * one byte earlier, inside the call instruction, so that the answer is the line of the call even
 * when the call is the last instruction of a line or of a function.
 *
 * <p>GNU {@code addr2line} names functions (demangled) and lines, one run per object per batch;
 * without it, or where it fails, function names come from the object's ELF symbol table (raw,
 * mangled names, no file:line). No answer is better than a wrong one: addresses outside every
 * module, in the vDSO, in a file that no longer exists or whose build id differs from the one the
 * trace recorded are left unsymbolized, and {@link #problems()} says why.
 *
 * <p>Answers are cached. Methods are synchronized: concurrent callers are served one at a time.
 */
public final class Symbolizer implements AutoCloseable {
  /** Objects are shared by every module record naming the same file and build id. */
  private record ObjectKey(String path, String buildId) {}

  private final ModuleRanges ranges;
  private final Optional<Addr2Line> addr2line;
  private final Map<ObjectKey, ObjectFile> objects = new HashMap<>();
  private final Map<Long, Optional<CallSite>> cache = new HashMap<>();
  private final Set<String> problems = new LinkedHashSet<>();
  private long outsideCount;
  private long firstOutside;
  private boolean closed;

  private Symbolizer(List<Module> modules, Optional<Addr2Line> addr2line) {
    this.ranges = new ModuleRanges(modules);
    this.addr2line = addr2line;
  }

  /**
   * A symbolizer for the modules of one process, as its ModuleMap records list them, in order:
   * where ranges overlap, later modules win. Uses the {@code addr2line} on {@code PATH}, if any.
   *
   * @throws NullPointerException if {@code modules} or one of them is null
   */
  public static Symbolizer of(List<Module> modules) {
    return of(modules, Addr2Line.onPath());
  }

  /** As {@link #of(List)}, with a given addr2line, or none to use only ELF symbol tables. */
  static Symbolizer of(List<Module> modules, Optional<Addr2Line> addr2line) {
    Objects.requireNonNull(modules, "modules");
    modules.forEach(m -> Objects.requireNonNull(m, "module"));
    return new Symbolizer(List.copyOf(modules), Objects.requireNonNull(addr2line, "addr2line"));
  }

  /**
   * Symbolizes many addresses at once, running addr2line once per object for all of them.
   *
   * @return the call site of each address that could be symbolized; the others are absent
   * @throws NullPointerException if {@code addresses} or one of them is null
   * @throws IllegalStateException if this symbolizer is closed
   */
  public synchronized Map<Long, CallSite> symbolize(Collection<Long> addresses) {
    Objects.requireNonNull(addresses, "addresses");
    if (closed) {
      throw new IllegalStateException("symbolizer is closed");
    }
    Map<ObjectFile, Map<Long, List<Long>>> work = new LinkedHashMap<>();
    for (Long address : addresses) {
      Objects.requireNonNull(address, "address");
      if (cache.putIfAbsent(address, Optional.empty()) == null) {
        plan(address, work);
      }
    }
    work.forEach((object, byElfAddress) -> {
      Map<Long, CallSite> found = object.symbolize(new ArrayList<>(byElfAddress.keySet()),
          problems::add);
      byElfAddress.forEach((elfAddress, same) -> same.forEach(
          a -> cache.put(a, Optional.ofNullable(found.get(elfAddress)))));
    });
    Map<Long, CallSite> result = new HashMap<>();
    for (Long address : addresses) {
      cache.get(address).ifPresent(site -> result.put(address, site));
    }
    return Map.copyOf(result);
  }

  /**
   * Symbolizes one address; prefer {@link #symbolize(Collection)} for many, since each call may
   * run addr2line.
   *
   * @throws IllegalStateException if this symbolizer is closed
   */
  public synchronized Optional<CallSite> symbolize(long address) {
    return Optional.ofNullable(symbolize(List.of(address)).get(address));
  }

  /**
   * Why addresses were left unsymbolized or symbolized without file:line, one line per module
   * (a missing file, a changed build id, the vDSO, addr2line failing), plus one line counting
   * the addresses outside every module.
   */
  public synchronized List<String> problems() {
    List<String> all = new ArrayList<>(problems);
    if (outsideCount > 0) {
      all.add(outsideCount + " address" + (outsideCount == 1 ? "" : "es") + " outside every"
          + " module (the first: 0x" + Long.toHexString(firstOutside) + ") left unsymbolized");
    }
    return List.copyOf(all);
  }

  /** Drops the caches; later calls to {@code symbolize} throw {@link IllegalStateException}. */
  @Override
  public synchronized void close() {
    closed = true;
    cache.clear();
    objects.clear();
  }

  private void plan(long address, Map<ObjectFile, Map<Long, List<Long>>> work) {
    Optional<Module> module = ranges.moduleAt(address);
    if (module.isEmpty()) {
      if (outsideCount++ == 0) {
        firstOutside = address;
      }
      return;
    }
    Module m = module.get();
    ObjectFile object = objects.computeIfAbsent(new ObjectKey(m.getPath(), m.getBuildId()),
        k -> new ObjectFile(k.path(), k.buildId(), addr2line));
    long elfAddress = address - 1 - m.getLoadBias();
    work.computeIfAbsent(object, o -> new LinkedHashMap<>())
        .computeIfAbsent(elfAddress, e -> new ArrayList<>()).add(address);
  }
}
