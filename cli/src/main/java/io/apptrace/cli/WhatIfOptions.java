package io.apptrace.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Units;
import io.apptrace.replay.ProgramValues;
import io.apptrace.replay.ReplayException;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayResult;
import io.apptrace.replay.WhatIf;
import io.apptrace.replay.WhatIfs;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Option;

/**
 * {@code --what-if T} (docs/REPLAY.md, "Application what-ifs"): changes to the application, all
 * applied together, replayed on every node; the makespan before and after and the operations
 * changed, in text and JSON.
 */
final class WhatIfOptions {
  /** Operations named per node in the text report. */
  private static final int OPS_SHOWN = 8;

  @Option(names = "--what-if", paramLabel = "T", description = "Replay a change to the application as well:"
      + " pin-pageable, pin=ALLOCATION (an 'alloc' of 'graph --json'), async-copies, streams=N, keep-resident,"
      + " merge-copies, prefetch-managed, graph-launch; repeat to combine (applied in the order given, graph-launch"
      + " last).")
  List<String> whatIfs = new ArrayList<>();

  /** The what-ifs asked for, checked (bad usage names the value). */
  List<WhatIf> parsed() {
    List<WhatIf> out = new ArrayList<>();
    for (String w : whatIfs) {
      try {
        out.add(WhatIf.parse(w));
      } catch (IllegalArgumentException e) {
        throw new UserException(e.getMessage(), ExitCodes.BAD_USAGE);
      }
    }
    return out;
  }

  boolean any() {
    return !whatIfs.isEmpty();
  }

  /** Each node's outcome; a what-if naming what the program lacks is a one-line error. */
  List<WhatIfs.Outcome> run(ReplayProgram whole, ProgramValues values, List<ReplayResult> results,
      UnaryOperator<ReplayProgram> region) throws ReplayException, NodeFileException {
    List<WhatIf> w = parsed();
    List<WhatIfs.Outcome> out = new ArrayList<>();
    for (ReplayResult r : results) {
      try {
        out.add(WhatIfs.replay(w, whole, values, r, region));
      } catch (IllegalArgumentException e) {
        throw new UserException(e.getMessage());
      }
    }
    return out;
  }

  /** The what-if part of the text report; {@code regional}: the makespans are of a region of interest. */
  static void text(PrintWriter out, List<WhatIfs.Outcome> outcomes, boolean regional) {
    if (outcomes.isEmpty()) {
      return;
    }
    out.println();
    out.println("what-if (" + String.join(", ", outcomes.get(0).notes().stream().map(n -> n.substring(0,
        n.indexOf(':'))).toList()) + ")" + (regional ? ", changes counted over the whole trace, makespans of the"
            + " region of interest" : "") + ":");
    for (String n : outcomes.get(0).notes()) {
      out.println("  " + n);
    }
    for (WhatIfs.Outcome o : outcomes) {
      out.printf(Locale.ROOT, "  %-14s %s -> %s (%+.1f%%), %d operation(s) changed%s%n", o.node(),
          Units.time(o.beforeNs() * 1e-9), Units.time(o.afterNs() * 1e-9), o.percent(), o.changed().size(),
          o.changed().isEmpty() ? "" : ": " + names(o));
      for (String n : o.notes()) {
        if (!outcomes.get(0).notes().contains(n)) {
          out.println("    " + n); // what differs on this node (the pinning its host model charges)
        }
      }
    }
  }

  private static String names(WhatIfs.Outcome o) {
    List<String> s = new ArrayList<>();
    int i = 0;
    for (int op : o.changed()) {
      if (s.size() == OPS_SHOWN) {
        s.add("...");
        break;
      }
      s.add("#" + op + " " + o.changedNames().get(i++));
    }
    return String.join(", ", s);
  }

  static void json(ObjectNode root, List<WhatIfs.Outcome> outcomes) {
    if (outcomes.isEmpty()) {
      return;
    }
    ObjectNode w = root.putObject("what_if");
    outcomes.get(0).notes().forEach(w.putArray("applied")::add);
    ArrayNode nodes = w.putArray("nodes");
    for (WhatIfs.Outcome o : outcomes) {
      ObjectNode n = nodes.addObject();
      n.put("node", o.node());
      n.put("makespan_before_ns", o.beforeNs());
      n.put("makespan_after_ns", o.afterNs());
      n.put("change_pct", Math.round(o.percent() * 100) / 100.0);
      o.notes().forEach(n.putArray("notes")::add);
      o.changed().forEach(n.putArray("changed_ops")::add);
    }
  }
}
