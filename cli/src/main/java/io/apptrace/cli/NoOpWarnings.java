package io.apptrace.cli;

import io.apptrace.node.Node;
import io.apptrace.node.NodeOverride;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * No silent no-ops (docs/REPLAY.md, "What-if"): a replay option that changes nothing in this
 * replay says so in one line, with why, instead of letting the user read an unchanged figure as
 * an answer.
 */
final class NoOpWarnings {
  private NoOpWarnings() {}

  /** What a replay was asked for beside the trace and the nodes. */
  record Asked(boolean keepMeasured, boolean kernelPolicyGiven, String kernelPolicy, List<NodeOverride> sets,
      Map<Integer, Integer> map, String managedHostReadsGiven, boolean diffGiven) {}

  /** The warnings a replay of {@code p} with {@code asked} calls for, before it runs. */
  static List<String> before(ReplayProgram p, Asked asked, List<Node> targets) {
    List<String> out = new ArrayList<>();
    boolean anyMeasured = p.ops().stream().anyMatch(ReplayProgram.Op::measured);
    boolean kernelsMeasured = p.ops().stream().anyMatch(o -> o.kind() == ReplayProgram.Kind.KERNEL && o.measured());
    String why = p.provenance().simulated() ? " (a capture on the simulated device measures none)" : "";
    if (asked.keepMeasured() && !anyMeasured) {
      out.add("--keep-measured changes nothing: the trace has no measured GPU times" + why);
    }
    if (asked.kernelPolicyGiven() && !kernelsMeasured) {
      out.add("--kernel-policy " + asked.kernelPolicy() + " changes nothing: the trace has no measured kernel times"
          + why + "; its kernels are priced at their lower bound");
    }
    if (asked.managedHostReadsGiven() != null && p.managed().isEmpty()) {
      out.add("--managed-host-reads " + asked.managedHostReadsGiven() + " changes nothing: the trace has no managed"
          + " memory");
    }
    if (asked.diffGiven() && targets.size() < 2) {
      out.add("--diff changes nothing: it compares the nodes with the first, and one --node was given");
    }
    List<Integer> devices = p.devices();
    for (Map.Entry<Integer, Integer> e : asked.map().entrySet()) {
      if (!devices.contains(e.getKey())) {
        out.add("--map gpu" + e.getKey() + "=gpu" + e.getValue() + " changes nothing: the trace uses no device "
            + e.getKey() + " (it uses " + (devices.isEmpty() ? "none" : "gpu" + String.join(", gpu",
                devices.stream().map(String::valueOf).toList())) + ")");
      } else if (e.getKey().equals(e.getValue())) {
        out.add("--map gpu" + e.getKey() + "=gpu" + e.getValue() + " changes nothing: device " + e.getKey()
            + " runs on GPU " + e.getValue() + " without it");
      }
    }
    for (NodeOverride s : asked.sets()) {
      if (!s.path().startsWith("gpus.")) {
        continue;
      }
      String gpu = s.path().split("\\.", 3)[1];
      for (Node n : targets) {
        Set<String> used = new LinkedHashSet<>();
        for (int d : devices) {
          n.gpu(asked.map().getOrDefault(d, d)).ifPresent(g -> used.add(g.id()));
        }
        if (n.gpu(gpu).isPresent() && !used.contains(gpu)) {
          out.add("--set " + s.path() + "=" + s.value() + " changes nothing on " + n.name() + ": no operation of the"
              + " trace runs on " + gpu + " (it uses " + (used.isEmpty() ? "none" : String.join(", ", used)) + ")");
        }
      }
    }
    return out;
  }

  /**
   * After the replay: {@code --set}s that left a node's projection exactly as it was without them.
   *
   * @param without the same replay on each node without the {@code --set}s
   */
  static List<String> after(Asked asked, List<ReplayResult> with, List<ReplayResult> without) {
    List<String> out = new ArrayList<>();
    if (asked.sets().isEmpty()) {
      return out;
    }
    String sets = String.join(" ", asked.sets().stream().map(s -> "--set " + s.path() + "=" + s.value()).toList());
    for (int i = 0; i < with.size() && i < without.size(); i++) {
      ReplayResult a = with.get(i);
      ReplayResult b = without.get(i);
      if (same(a, b)) {
        boolean links = asked.sets().stream().anyMatch(s -> s.path().startsWith("links."));
        out.add(sets + " changed nothing in the projection on " + a.node().name() + (links
            ? ": no operation of the trace uses what it changed, or the change leaves the bandwidth of every route"
                + " the trace's copies take as it was" : ": no operation of the trace uses what it changed"));
      }
    }
    return out;
  }

  private static boolean same(ReplayResult a, ReplayResult b) {
    if (a.makespanNs() != b.makespanNs() || a.ops().size() != b.ops().size()) {
      return false;
    }
    for (int i = 0; i < a.ops().size(); i++) {
      if (a.ops().get(i).startNs() != b.ops().get(i).startNs() || a.ops().get(i).endNs() != b.ops().get(i).endNs()) {
        return false;
      }
    }
    return true;
  }
}
