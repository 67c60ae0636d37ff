package io.apptrace.replay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which engines and links bound a projection (docs/REPLAY.md, "What it reports"): each one's busy
 * time as a share of the makespan, busiest first, and whether an operation of the critical path
 * ran on it. An engine busy most of the makespan and on the path is what the program waits for; a
 * link is busy while any transfer crosses it.
 */
public final class BusyShare {
  private BusyShare() {}

  /**
   * One engine or link direction.
   *
   * @param share busy time over the makespan, 0 to 1
   * @param onCriticalPath an operation of the critical path ran on it (engines only)
   */
  public record Resource(String name, boolean link, double busyNs, double share, boolean onCriticalPath) {}

  /** The engines and links of {@code r}, busiest first. */
  public static List<Resource> of(ReplayResult r) {
    Set<String> onPath = new HashSet<>();
    for (ReplayResult.Segment s : r.criticalPath()) {
      if (s.op() >= 0) {
        onPath.add(r.ops().get(s.op()).engine());
      }
    }
    double makespan = Math.max(1, r.makespanNs());
    List<Resource> out = new ArrayList<>();
    r.engineBusy().forEach((k, v) -> out.add(new Resource(k, false, v, v / makespan, onPath.contains(k))));
    r.linkBusy().forEach((k, v) -> out.add(new Resource(k, true, v, v / makespan, false)));
    out.sort(Comparator.comparingDouble(Resource::busyNs).reversed().thenComparing(Resource::name));
    return out;
  }
}
