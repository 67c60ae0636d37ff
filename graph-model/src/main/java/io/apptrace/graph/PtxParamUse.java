package io.apptrace.graph;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which pointers a kernel's PTX loads through and stores through (docs/GRAPH.md, "What the code
 * says"): a small dataflow over the registers derived from each parameter ({@code ld.param}) and
 * from each variable of the module the kernel reads ({@code ld.const [d_params+8]}), through
 * {@code mov}, {@code cvta}, {@code add}, {@code mad} and the like. A load through a derived
 * register is a load through that source; a store or an atomic, a store. Flow-insensitive: a
 * register is derived from everything that reaches it anywhere in the kernel.
 *
 * <p>What it cannot follow makes a source {@link #UNKNOWN}: the pointer stored to memory or
 * passed to a function ({@code st.param} for a {@code call}), an instruction it does not know
 * with the pointer as an address, a variable written by the kernel. An unknown source is treated
 * as if the code had not been read.
 */
final class PtxParamUse {
  /** The kernel loads through the source's pointers. */
  static final int LOAD = 1;
  /** The kernel stores through them (a store, an atomic, a reduction). */
  static final int STORE = 2;
  /** The code does something with them this analysis cannot follow. */
  static final int UNKNOWN = 4;

  /**
   * What one kernel does: per parameter (by ordinal), and per word of a module variable it reads,
   * keyed {@code name@offset} ({@code name@*} where it reads the variable at offsets it computes).
   */
  record Uses(int[] params, Map<String, Integer> variables) {
    /** Flags of parameter {@code i}; UNKNOWN when the kernel has fewer parameters in its PTX. */
    int param(int i) {
      return i >= 0 && i < params.length ? params[i] : UNKNOWN;
    }

    /** Flags of the pointer at {@code offset} of variable {@code name}; -1 when the kernel never reads it. */
    int variable(String name, long offset) {
      Integer at = variables.get(name + "@" + offset);
      Integer any = variables.get(name + "@*");
      return at == null && any == null ? -1 : (at == null ? 0 : at) | (any == null ? 0 : any);
    }
  }

  private final List<String> paramNames = new ArrayList<>();
  private final List<String[]> statements = new ArrayList<>();
  /** What each register holds: pointers read from these sources, or their addresses. */
  private final Map<String, Set<String>> valueOf = new HashMap<>();
  private final Map<String, Set<String>> addressOf = new HashMap<>();
  private final Map<String, Integer> flags = new HashMap<>();

  private PtxParamUse(String entry) {
    int open = entry.indexOf('(');
    int body = entry.indexOf('{');
    if (open >= 0 && open < body) {
      int close = entry.lastIndexOf(')', body);
      for (String p : entry.substring(open + 1, Math.max(open + 1, close)).split(",")) {
        String[] words = p.trim().split("\\s+");
        String name = words[words.length - 1];
        int bracket = name.indexOf('[');
        if (!name.isEmpty()) {
          paramNames.add(bracket >= 0 ? name.substring(0, bracket) : name);
        }
      }
    }
    String code = entry.substring(body + 1, entry.lastIndexOf('}'))
        .replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ");
    for (String s : code.split(";")) {
      String[] parsed = statement(s);
      if (parsed != null) {
        statements.add(parsed);
      }
    }
  }

  /** Analyses one {@code .entry name(params) { body }} of a PTX text. */
  static Uses of(String entry) {
    PtxParamUse a = new PtxParamUse(entry);
    for (int pass = 0; pass < 32 && a.pass(); pass++) {
      // until nothing new is derived: a pointer carried round a loop needs more than one pass
    }
    a.flags.clear();
    a.pass(); // the flags of the final derivation
    int[] params = new int[a.paramNames.size()];
    for (int i = 0; i < params.length; i++) {
      params[i] = a.flags.getOrDefault("param:" + i, 0);
    }
    Map<String, Integer> variables = new HashMap<>();
    a.flags.forEach((k, v) -> {
      if (k.startsWith("var:")) {
        variables.put(k.substring(4), v);
      }
    });
    a.valueOf.values().forEach(s -> s.stream().filter(k -> k.startsWith("var:"))
        .forEach(k -> variables.putIfAbsent(k.substring(4), 0)));
    return new Uses(params, Map.copyOf(variables));
  }

  /** Opcode, then operands; null for directives, labels and empty statements. */
  private static String[] statement(String s) {
    String t = s.replace('{', ' ').replace('}', ' ').trim();
    while (t.matches("(?s)^[$\\w.]+:(?!:).*")) { // labels (not the :: of .shared::cta)
      t = t.substring(t.indexOf(':') + 1).trim();
    }
    if (t.startsWith("@")) { // a guard predicate
      int sp = t.indexOf(' ');
      t = sp < 0 ? "" : t.substring(sp + 1).trim();
    }
    if (t.isEmpty() || t.startsWith(".")) {
      return null;
    }
    int sp = t.indexOf(' ');
    String opcode = sp < 0 ? t : t.substring(0, sp);
    List<String> out = new ArrayList<>();
    out.add(opcode);
    if (sp >= 0) {
      out.addAll(operands(t.substring(sp + 1)));
    }
    return out.toArray(String[]::new);
  }

  /** Operands split at the commas outside brackets, braces and parentheses. */
  private static List<String> operands(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int from = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '[' || c == '(') {
        depth++;
      } else if (c == ']' || c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(from, i).trim());
        from = i + 1;
      }
    }
    out.add(s.substring(from).trim());
    return out;
  }

  /** One pass over the statements; true when something new was derived. */
  private boolean pass() {
    boolean changed = false;
    for (String[] st : statements) {
      changed |= statement(st);
    }
    return changed;
  }

  private boolean statement(String[] st) {
    String op = st[0];
    String root = op.contains(".") ? op.substring(0, op.indexOf('.')) : op;
    switch (root) {
      case "ld", "ldu" -> {
        return load(st);
      }
      case "st" -> {
        access(st, 1, op.startsWith("st.param") ? 0 : STORE);
        escape(st, 2);
        return false;
      }
      case "red" -> {
        access(st, 1, LOAD | STORE);
        escape(st, 2);
        return false;
      }
      case "atom" -> {
        access(st, 2, LOAD | STORE);
        escape(st, 3);
        return false;
      }
      case "cp" -> {
        access(st, 1, STORE);
        access(st, 2, LOAD);
        escape(st, 3);
        return false;
      }
      case "prefetch", "prefetchu", "applypriority", "discard", "createpolicy", "bra", "ret", "exit",
          "bar", "barrier", "membar", "fence", "trap", "setp", "brkpt", "nanosleep", "pmevent" -> {
        return false;
      }
      case "call" -> {
        escape(st, 1);
        return false;
      }
      default -> {
        return derive(st);
      }
    }
  }

  /** {@code ld dst, [address]}: a read of a parameter or variable, or a load through a pointer. */
  private boolean load(String[] st) {
    if (st.length < 3) {
      return false;
    }
    Set<String> got = new HashSet<>();
    String base = base(st[2]);
    if (base == null) {
      unknownAddress(st);
      return false;
    }
    String named = source(base);
    if (named != null) {
      got.add(named.startsWith("var:") ? named + "@" + offset(st[2]) : named);
    } else if (base.startsWith("%")) {
      got.addAll(addressOf.getOrDefault(base, Set.of()));
      mark(valueOf.getOrDefault(base, Set.of()), LOAD);
    }
    return addAll(valueOf, registers(st[1]), got);
  }

  /** A memory access with its address in operand {@code i}: {@code how} for what it points through. */
  private void access(String[] st, int i, int how) {
    if (i >= st.length) {
      return;
    }
    String base = base(st[i]);
    if (base == null) {
      unknownAddress(st);
      return;
    }
    mark(valueOf.getOrDefault(base, Set.of()), how);
    String named = source(base);
    if (named != null && how != 0) { // the kernel writes a parameter or a variable itself
      mark(Set.of(named.startsWith("var:") ? named + "@" + offset(st[i]) : named), UNKNOWN);
    }
    mark(addressOf.getOrDefault(base, Set.of()), how == 0 ? 0 : UNKNOWN);
  }

  /** Operands from {@code i} on that carry a pointer somewhere it cannot be followed. */
  private void escape(String[] st, int from) {
    for (int i = from; i < st.length; i++) {
      for (String r : registers(st[i])) {
        mark(valueOf.getOrDefault(r, Set.of()), UNKNOWN);
        mark(addressOf.getOrDefault(r, Set.of()), UNKNOWN);
      }
    }
  }

  /** Any other instruction: its destination derives from its sources; unknown with an address. */
  private boolean derive(String[] st) {
    if (st.length < 2) {
      return false;
    }
    for (int i = 1; i < st.length; i++) {
      if (st[i].startsWith("[")) {
        unknownAddress(st);
        return false;
      }
    }
    Set<String> values = new HashSet<>();
    Set<String> addresses = new HashSet<>();
    for (int i = 2; i < st.length; i++) {
      for (String r : registers(st[i])) {
        values.addAll(valueOf.getOrDefault(r, Set.of()));
        addresses.addAll(addressOf.getOrDefault(r, Set.of()));
      }
      String named = source(st[i]);
      if (named != null) {
        addresses.add(named.startsWith("var:") ? named + "@*" : named); // its address: any offset
      }
    }
    List<String> dst = registers(st[1]);
    return addAll(valueOf, dst, values) | addAll(addressOf, dst, addresses);
  }

  /** An instruction with an address this analysis does not know: what the address holds is unknown. */
  private void unknownAddress(String[] st) {
    escape(st, 1);
  }

  /** The source a bare name stands for: a parameter of this kernel, or a variable of its module. */
  private String source(String name) {
    int i = paramNames.indexOf(name);
    if (i >= 0) {
      return "param:" + i;
    }
    if (!name.isEmpty() && (Character.isLetter(name.charAt(0)) || name.charAt(0) == '_' || name.charAt(0) == '$')
        && name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '.')) {
      return "var:" + name;
    }
    return null;
  }

  /** The base of an address operand {@code [base+offset]}, or null when it is not one this reads. */
  private static String base(String operand) {
    if (!operand.startsWith("[") || !operand.endsWith("]")) {
      return null;
    }
    String inner = operand.substring(1, operand.length() - 1).trim();
    int plus = inner.indexOf('+');
    return (plus >= 0 ? inner.substring(0, plus) : inner).trim();
  }

  /** The offset of an address operand {@code [base+offset]} (0 without one; "*" if not a number). */
  private static String offset(String operand) {
    String inner = operand.substring(1, operand.length() - 1);
    int plus = inner.indexOf('+');
    if (plus < 0) {
      return "0";
    }
    try {
      return Long.toString(Long.decode(inner.substring(plus + 1).trim()));
    } catch (NumberFormatException e) {
      return "*";
    }
  }

  /** The registers an operand names ({@code %rd1}, or each of a vector {@code {%r1, %r2}}). */
  private static List<String> registers(String operand) {
    List<String> out = new ArrayList<>();
    for (String part : operand.replace('{', ' ').replace('}', ' ').replace('[', ' ').replace(']', ' ')
        .split("[\\s,+|]+")) {
      if (part.startsWith("%") && !part.contains(".")) { // %tid.x and the like hold no pointer
        out.add(part);
      }
    }
    return out;
  }

  private void mark(Set<String> sources, int how) {
    for (String s : sources) {
      flags.merge(s, how, (a, b) -> a | b);
    }
  }

  private static boolean addAll(Map<String, Set<String>> map, List<String> registers, Set<String> sources) {
    boolean changed = false;
    if (sources.isEmpty()) {
      return false;
    }
    for (String r : registers) {
      changed |= map.computeIfAbsent(r, k -> new HashSet<>()).addAll(sources);
    }
    return changed;
  }
}
