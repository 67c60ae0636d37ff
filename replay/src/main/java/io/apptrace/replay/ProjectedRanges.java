package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The program's NVTX ranges (and profiler ranges, imported annotations: {@link
 * ReplayProgram#ranges()}) on a timeline. On the measured timeline a range is where the trace
 * recorded it. On a projected one, each end is placed where it fell among its thread's calls:
 * inside a call at the same fraction of the call's projected time, between two calls at the same
 * fraction of the host time between them, before the first call or after the last as far from it
 * as it was in the trace. The placement keeps the order of every end and call of the thread, so
 * ranges that nested in the trace nest on the projection.
 */
public final class ProjectedRanges {
  /** A range on a timeline, ns from the first call; {@code thread} indexes {@link ReplayProgram#threads()}. */
  public record Slice(int thread, String name, String domain, double startNs, double endNs) {}

  private ProjectedRanges() {}

  /** The ranges where the trace recorded them, ns from its first call. */
  public static List<Slice> measured(ReplayProgram p) {
    long first = p.firstEntryNs();
    List<Slice> out = new ArrayList<>();
    for (CallLog.Range r : p.ranges()) {
      if (r.thread() >= 0 && r.thread() < p.threads().size()) {
        out.add(new Slice(r.thread(), r.name(), r.domain(), r.startNs() - first, r.endNs() - first));
      }
    }
    return out;
  }

  /** The ranges placed on the projected timeline of {@code r}. */
  public static List<Slice> projected(ReplayResult r) {
    ReplayProgram p = r.program();
    List<Slice> out = new ArrayList<>();
    Placement[] byThread = new Placement[p.threads().size()];
    for (CallLog.Range range : p.ranges()) {
      int t = range.thread();
      if (t < 0 || t >= byThread.length) {
        continue;
      }
      if (byThread[t] == null) {
        byThread[t] = new Placement(p.threads().get(t), r.calls().get(t));
      }
      Placement m = byThread[t];
      if (m.isEmpty()) {
        continue;
      }
      out.add(new Slice(t, range.name(), range.domain(), m.at(range.startNs()), m.at(range.endNs())));
    }
    return out;
  }

  /**
   * A thread's measured times mapped onto its projected ones, piecewise linearly between the
   * calls' entries and exits.
   */
  private static final class Placement {
    private final double[] measured;
    private final double[] projected;
    private final int n;

    Placement(ReplayProgram.HostThread thread, List<ReplayResult.CallTimes> times) {
      measured = new double[2 * times.size()];
      projected = new double[2 * times.size()];
      int k = 0;
      for (ReplayResult.CallTimes c : times) {
        ReplayProgram.Call call = thread.calls().get(c.index());
        if (Double.isNaN(c.startNs()) || Double.isNaN(c.endNs())) {
          continue;
        }
        double entry = Math.max(call.entryNs(), k > 0 ? measured[k - 1] : Double.NEGATIVE_INFINITY);
        double exit = Math.max(entry, call.entryNs() + call.durationNs());
        measured[k] = entry;
        projected[k++] = c.startNs();
        measured[k] = exit;
        projected[k++] = c.endNs();
      }
      n = k;
    }

    boolean isEmpty() {
      return n == 0;
    }

    double at(long ns) {
      if (ns <= measured[0]) {
        return Math.max(0, projected[0] - (measured[0] - ns));
      }
      if (ns >= measured[n - 1]) {
        return projected[n - 1] + (ns - measured[n - 1]);
      }
      int i = Arrays.binarySearch(measured, 0, n, ns);
      if (i >= 0) {
        while (i + 1 < n && measured[i + 1] == ns) {
          i++; // the latest of equal breakpoints: a range that starts where a call ends starts after it
        }
        return projected[i];
      }
      int hi = -i - 1;
      int lo = hi - 1;
      double f = (ns - measured[lo]) / (measured[hi] - measured[lo]);
      return projected[lo] + f * (projected[hi] - projected[lo]);
    }
  }
}
