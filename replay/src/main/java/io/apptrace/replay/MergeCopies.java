package io.apptrace.replay;

import java.util.List;
import java.util.Locale;

/**
 * The what-if {@code merge-copies} (docs/REPLAY.md, "Application what-ifs"): copies one host
 * thread issues back to back (no call between them), of one kind, on one stream, whose
 * destinations are adjacent ranges of one allocation and whose sources are one allocation, become
 * one copy of their total size: one fixed cost instead of several (van Werkhoven et al. 2014, eq.
 * 1: each copy pays L + o). The DVDG gives the range a copy wrote but only the version a copy
 * read, not where in it: sources read from one version of one allocation are taken to be adjacent
 * as their destinations are, and the report counts those merges apart.
 */
final class MergeCopies {
  private MergeCopies() {}

  static String apply(ProgramEdit e, ProgramValues values) {
    int merged = 0;
    int into = 0;
    int assumed = 0;
    for (int t = 0; t < e.threads(); t++) {
      List<ReplayProgram.Call> calls = e.calls(t);
      int head = -1; // the copy others merge into
      boolean headGrew = false;
      ProgramValues.Region headSrc = null;
      long[] end = null; // {source alloc, source end, destination alloc, destination end}
      for (ReplayProgram.Call c : calls) {
        int op = c.issuedOp();
        ReplayProgram.Op o = op >= 0 ? e.op(op) : null;
        if (o == null || o.kind() != ReplayProgram.Kind.COPY || values.reads(op).size() != 1
            || values.writes(op).size() != 1) {
          head = -1;
          continue;
        }
        ProgramValues.Region src = values.reads(op).get(0);
        ProgramValues.Region dst = values.writes(op).get(0);
        ReplayProgram.Op h = head >= 0 ? e.op(head) : null;
        if (h != null && h.transfer() == o.transfer() && h.stream() == o.stream() && h.synchronous() == o.synchronous()
            && end[0] == src.allocation() && (end[1] == src.offset() || src.equals(headSrc))
            && end[2] == dst.allocation() && end[3] == dst.offset()) {
          if (src.equals(headSrc)) {
            assumed++;
          }
          if (!headGrew) {
            into++;
            headGrew = true;
          }
          e.set(ProgramEdit.with(h, h.transfer(), h.bytes() + o.bytes(), h.stream(), h.synchronous()));
          e.drop(op);
          merged++;
        } else {
          head = op;
          headGrew = false;
          headSrc = src;
        }
        end = new long[] {src.allocation(), src.offset() + src.bytes(), dst.allocation(), dst.offset() + dst.bytes()};
      }
    }
    return String.format(Locale.ROOT, "%d cop%s merged into %d%s", merged + into, merged + into == 1 ? "y" : "ies",
        into, assumed == 0 ? "" : String.format(Locale.ROOT, " (%d of them read one version of their source"
            + " allocation, taken to be the adjacent range: the trace gives where a copy wrote, not where it read)",
            assumed));
  }
}
