package io.apptrace.graph;

import io.apptrace.proto.Module;
import io.apptrace.symbols.CallSite;
import io.apptrace.symbols.Symbolizer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The call sites of a graph's operations, symbolized on this side (never in the traced process):
 * function, and file:line where the program has debug information. Each process's modules are
 * symbolized once, for all its call sites together.
 */
public final class CallSites {
  private final Map<Integer, Map<Long, CallSite>> byPid;
  private final List<String> problems;

  private CallSites(Map<Integer, Map<Long, CallSite>> byPid, List<String> problems) {
    this.byPid = byPid;
    this.problems = List.copyOf(problems);
  }

  /** No symbols: exporters then write only the raw addresses. */
  public static CallSites none() {
    return new CallSites(Map.of(), List.of());
  }

  /** Symbolizes every operation's call site with the modules its process recorded. */
  public static CallSites of(Dvdg g) {
    OperationTable ops = g.operations();
    Map<Integer, Set<Long>> wanted = new HashMap<>();
    for (int op = 0; op < ops.size(); op++) {
      if (ops.callSite(op) != 0) {
        wanted.computeIfAbsent(ops.pid(op), k -> new HashSet<>()).add(ops.callSite(op));
      }
    }
    Map<Integer, Map<Long, CallSite>> byPid = new HashMap<>();
    List<String> problems = new java.util.ArrayList<>();
    wanted.forEach((pid, addresses) -> {
      List<Module> modules = g.modules().getOrDefault(pid, List.of());
      try (Symbolizer s = Symbolizer.of(modules)) {
        byPid.put(pid, s.symbolize(addresses));
        problems.addAll(s.problems());
      }
    });
    return new CallSites(byPid, problems);
  }

  public Optional<CallSite> lookup(int pid, long address) {
    Map<Long, CallSite> m = byPid.get(pid);
    return m == null ? Optional.empty() : Optional.ofNullable(m.get(address));
  }

  /** Why some call sites could not be symbolized (a module gone, a different build). */
  public List<String> problems() {
    return problems;
  }
}
