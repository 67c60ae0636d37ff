package io.apptrace.replay;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How much later each operation could end before the makespan grows (docs/REPLAY.md, "Slack"):
 * its total float in the projected schedule, everything else's durations and order held. It
 * follows what had to come after the operation: the next operations of its stream and those that
 * waited for it by events or implicit synchronization, the next operation its engine ran, the
 * blocking calls that waited for it and, from them, the host thread's later calls and the
 * operations they issued. An operation on the critical path has none. Not followed: the bandwidth
 * a copy leaves to others on a shared link (a later copy might run faster, so slack through link
 * sharing is not counted either way).
 */
final class Slack {
  private Slack() {}

  /** Each operation's slack, ns; NaN for one the replay did not run. */
  static double[] of(Timeline tl, double makespan) {
    OpTable t = tl.ops();
    int ops = t.size;
    int calls = tl.callStart().length;
    int nodes = ops + 2 * calls; // operations, then call starts, then call ends
    Edges e = new Edges(nodes);
    for (int a = 0; a < ops; a++) {
      if (Double.isNaN(t.end[a])) {
        continue;
      }
      final int from = a;
      tl.dependencies().successors(a, b -> {
        if (!Double.isNaN(t.start[b])) {
          e.add(from, b, t.start[b] - t.end[from]);
        }
      });
    }
    engineOrder(t, e);
    int[] callBase = tl.callBase();
    for (int th = 0; th + 1 < callBase.length; th++) {
      for (int c = callBase[th]; c < callBase[th + 1]; c++) {
        int start = ops + c;
        int end = ops + calls + c;
        e.add(start, end, tl.callEnd()[c] - tl.callOwnEnd()[c]);
        if (c + 1 < callBase[th + 1]) {
          e.add(end, ops + c + 1, 0); // the host work between them moves with it: no float
        }
        int[] targets = tl.callTargets()[c];
        if (targets != null) {
          for (int op : targets) {
            if (!Double.isNaN(t.end[op])) {
              e.add(op, end, tl.callEnd()[c] - t.end[op]);
            }
          }
        }
      }
    }
    for (int op = 0; op < ops; op++) {
      if (t.issuedBy[op] >= 0 && !Double.isNaN(t.start[op])) {
        e.add(ops + t.issuedBy[op], op, t.start[op] - tl.callStart()[t.issuedBy[op]]);
      }
    }
    double[] slack = new double[nodes];
    for (int n = 0; n < nodes; n++) {
      double at = n < ops ? t.end[n] : n >= ops + calls ? tl.callEnd()[n - ops - calls] : Double.NaN;
      slack[n] = Double.isNaN(at) ? Double.POSITIVE_INFINITY : makespan - at;
    }
    e.backwards(slack);
    double[] out = new double[ops];
    for (int op = 0; op < ops; op++) {
      out[op] = Double.isNaN(t.end[op]) || Double.isInfinite(slack[op]) ? Double.NaN : Math.max(0, slack[op]);
    }
    return out;
  }

  /** Each operation to the first its engine started after it ended. */
  private static void engineOrder(OpTable t, Edges e) {
    int engines = 0;
    for (int op = 0; op < t.size; op++) {
      engines = Math.max(engines, t.engineOf[op] + 1);
    }
    List<List<Integer>> byEngine = new ArrayList<>();
    for (int i = 0; i < engines; i++) {
      byEngine.add(new ArrayList<>());
    }
    for (int op = 0; op < t.size; op++) {
      if (t.engineOf[op] >= 0 && !Double.isNaN(t.start[op])) {
        byEngine.get(t.engineOf[op]).add(op);
      }
    }
    for (List<Integer> on : byEngine) {
      on.sort((a, b) -> Double.compare(t.start[a], t.start[b]));
      double[] starts = new double[on.size()];
      for (int i = 0; i < starts.length; i++) {
        starts[i] = t.start[on.get(i)];
      }
      for (int a : on) {
        int i = Arrays.binarySearch(starts, t.end[a]);
        if (i < 0) {
          i = -i - 1;
        }
        while (i > 0 && starts[i - 1] >= t.end[a]) {
          i--; // the first of equal starts
        }
        for (; i < starts.length && on.get(i) == a; i++) {
          // a zero-length operation starts where it ends: not its own successor
        }
        if (i < starts.length) {
          e.add(a, on.get(i), starts[i] - t.end[a]);
        }
      }
    }
  }

  /** A graph of "must come after" edges with the time between the two, walked from its ends backwards. */
  private static final class Edges {
    private final int nodes;
    private int[] from = new int[1024];
    private int[] to = new int[1024];
    private double[] gap = new double[1024];
    private int count;

    Edges(int nodes) {
      this.nodes = nodes;
    }

    void add(int a, int b, double g) {
      if (count == from.length) {
        from = Arrays.copyOf(from, count * 2);
        to = Arrays.copyOf(to, count * 2);
        gap = Arrays.copyOf(gap, count * 2);
      }
      from[count] = a;
      to[count] = b;
      gap[count++] = Math.max(0, g);
    }

    /** slack(a) = min(its own, gap + slack(b) over its edges), successors first (Kahn's order, reversed). */
    void backwards(double[] slack) {
      int[] out = new int[nodes];
      int[] inHead = new int[nodes];
      int[] inNext = new int[count];
      Arrays.fill(inHead, -1);
      for (int k = 0; k < count; k++) {
        out[from[k]]++;
        inNext[k] = inHead[to[k]];
        inHead[to[k]] = k;
      }
      int[] queue = new int[nodes];
      int head = 0;
      int tail = 0;
      for (int n = 0; n < nodes; n++) {
        if (out[n] == 0) {
          queue[tail++] = n;
        }
      }
      while (head < tail) {
        int b = queue[head++];
        for (int k = inHead[b]; k >= 0; k = inNext[k]) {
          int a = from[k];
          slack[a] = Math.min(slack[a], gap[k] + slack[b]);
          if (--out[a] == 0) {
            queue[tail++] = a;
          }
        }
      }
    }
  }
}
