package io.apptrace.replay;

import io.apptrace.node.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.SortedSet;

/**
 * Applies application what-ifs ({@link WhatIf}) to a program, in the order given, for one node
 * (the pinning a what-if adds is priced from that node's host model), and replays before and
 * after (docs/REPLAY.md, "Application what-ifs").
 */
public final class WhatIfs {
  private WhatIfs() {}

  /**
   * The program changed.
   *
   * @param changed the operations changed (made differently, moved, or not made)
   * @param notes what each what-if did, one line each, in order
   */
  public record Applied(ReplayProgram program, SortedSet<Integer> changed, List<String> notes) {}

  /**
   * A node's makespan before and after.
   *
   * @param changed the operations the what-ifs changed (ids past the program's are operations they added)
   * @param changedNames their names, in the same order ("new ..." for one a what-if added)
   */
  public record Outcome(String node, long beforeNs, long afterNs, SortedSet<Integer> changed, List<String> notes,
      List<String> changedNames) {
    /** The change in makespan, percent of before (negative: shorter). */
    public double percent() {
      return beforeNs <= 0 ? 0 : 100.0 * (afterNs - beforeNs) / beforeNs;
    }
  }

  /**
   * {@code p} with {@code whatIfs} applied for {@code node}.
   *
   * @throws IllegalArgumentException when a what-if names something the program does not have
   */
  public static Applied apply(List<WhatIf> whatIfs, ReplayProgram p, ProgramValues values, Node node) {
    ProgramEdit e = new ProgramEdit(p);
    List<String> notes = new ArrayList<>();
    boolean graphs = false;
    for (WhatIf w : whatIfs) {
      String note;
      if (w instanceof WhatIf.GraphLaunch) {
        graphs = true;
        continue;
      }
      if (w instanceof WhatIf.PinOne one) {
        note = PinPageable.apply(e, values, node, OptionalInt.of(one.allocation()));
      } else if (w instanceof WhatIf.PinPageable) {
        note = PinPageable.apply(e, values, node, OptionalInt.empty());
      } else if (w instanceof WhatIf.AsyncCopies) {
        note = AsyncCopies.apply(e, values);
      } else if (w instanceof WhatIf.Streams s) {
        note = SpreadStreams.apply(e, values, s.streams());
      } else if (w instanceof WhatIf.PrefetchManaged) {
        note = PrefetchManaged.apply(e);
      } else if (w instanceof WhatIf.KeepResident) {
        note = KeepResident.apply(e, values);
      } else {
        note = MergeCopies.apply(e, values);
      }
      notes.add(w.key() + ": " + note);
    }
    ReplayProgram out = e.build();
    java.util.SortedSet<Integer> changed = new java.util.TreeSet<>(e.changed());
    if (graphs) {
      GraphLaunchWhatIf.Result g = GraphLaunchWhatIf.of(out);
      out = g.program();
      for (ReplayProgram.HostThread t : out.threads()) {
        for (ReplayProgram.Call c : t.calls()) {
          if (c.what() instanceof HostCall.LaunchGraph l && l.whatIf()) {
            for (int op : l.ops()) {
              changed.add(op);
            }
          }
        }
      }
      notes.add("graph-launch: " + GraphLaunchWhatIf.summary(g, node));
    }
    return new Applied(out, changed, notes);
  }

  /**
   * Replays {@code whole} with the what-ifs on {@code base}'s node: the makespans before ({@code
   * base}) and after.
   *
   * @param whole the trace's whole program, numbered as {@code values} (before any region of interest)
   * @param region cuts the region of interest out of a program (the identity for none), as {@code base}'s was
   */
  public static Outcome replay(List<WhatIf> whatIfs, ReplayProgram whole, ProgramValues values, ReplayResult base,
      java.util.function.UnaryOperator<ReplayProgram> region) throws ReplayException, io.apptrace.node.NodeFileException {
    Applied a = apply(whatIfs, whole, values, base.node());
    ReplayResult after = Replayer.replay(region.apply(a.program()), base.node(), base.options().withSamples(false));
    List<String> names = new ArrayList<>();
    for (int op : a.changed()) {
      names.add((op >= whole.ops().size() ? "new " : "") + a.program().ops().get(op).name());
    }
    return new Outcome(base.node().name(), Math.round(base.makespanNs()), Math.round(after.makespanNs()), a.changed(),
        a.notes(), names);
  }
}
