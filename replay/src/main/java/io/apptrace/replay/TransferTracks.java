package io.apptrace.replay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * The transfers of a replay (copies while their bytes cross links) as tracks a timeline can draw
 * without overlap: transfers in flight at the same time go on separate tracks. Each transfer, in
 * order of when its bytes started to move, goes on the lowest-numbered track that is free then
 * (greedy interval partitioning: as many tracks as the most transfers ever in flight at once).
 * The links each crosses and how busy they are stay in {@link ReplayResult#route(int)} and
 * {@link ReplayResult#linkUse()}.
 */
public final class TransferTracks {
  /**
   * One transfer on its track.
   *
   * @param startNs when its bytes started to cross its links (its fixed part L+o is before)
   * @param endNs when it ended
   */
  public record Slice(int op, int track, double startNs, double endNs) {}

  private TransferTracks() {}

  /** Every transfer of {@code r} on its track, by start time (then operation). */
  public static List<Slice> of(ReplayResult r) {
    List<double[]> flows = new ArrayList<>();
    for (int i = 0; i < r.ops().size(); i++) {
      double s = r.flowStartNs(i);
      double e = r.ops().get(i).endNs();
      if (!Double.isNaN(s) && !Double.isNaN(e)) {
        flows.add(new double[] {s, e, i});
      }
    }
    flows.sort(Comparator.<double[]>comparingDouble(f -> f[0]).thenComparingDouble(f -> f[2]));
    List<Slice> out = new ArrayList<>(flows.size());
    // busy tracks by when they free up; free tracks by number
    PriorityQueue<double[]> busy = new PriorityQueue<>(Comparator.<double[]>comparingDouble(b -> b[0])
        .thenComparingDouble(b -> b[1]));
    TreeSet<Integer> free = new TreeSet<>();
    int tracks = 0;
    for (double[] f : flows) {
      while (!busy.isEmpty() && busy.peek()[0] <= f[0]) {
        free.add((int) busy.poll()[1]);
      }
      int track = free.isEmpty() ? tracks++ : free.pollFirst();
      busy.add(new double[] {f[1], track});
      out.add(new Slice((int) f[2], track, f[0], f[1]));
    }
    return out;
  }

  /** How many tracks {@code slices} use. */
  public static int count(List<Slice> slices) {
    int n = 0;
    for (Slice s : slices) {
      n = Math.max(n, s.track() + 1);
    }
    return n;
  }
}
