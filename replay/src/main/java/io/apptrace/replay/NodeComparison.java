package io.apptrace.replay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Why one node's projection differs from another's (docs/REPLAY.md, "What it reports"): the
 * categories of their critical paths side by side, largest difference first, and the operations
 * whose projected times differ most. The same program replayed on both, so operation {@code i} is
 * the same operation on each.
 *
 * @param base the node compared against (the first {@code --node})
 * @param other the node compared
 * @param categories every category of either breakdown, largest absolute difference first (no
 *     category without a difference)
 * @param ops the operations whose projected durations differ most, largest absolute difference
 *     first, at most the number asked for
 */
public record NodeComparison(ReplayResult base, ReplayResult other, List<Category> categories, List<Op> ops) {
  /** A category of the critical path ({@link ReplayResult#breakdown()}'s keys) on both nodes, ns. */
  public record Category(String name, double baseNs, double otherNs) {
    public double differenceNs() {
      return otherNs - baseNs;
    }
  }

  /** An operation's projected duration on both nodes, ns, and its end on each. */
  public record Op(int op, double baseNs, double otherNs, double baseEndNs, double otherEndNs) {
    public double differenceNs() {
      return otherNs - baseNs;
    }
  }

  public NodeComparison {
    categories = List.copyOf(categories);
    ops = List.copyOf(ops);
  }

  /** How much faster {@code other} is than {@code base} (its makespan over the other's). */
  public double speedup() {
    return base.makespanNs() / Math.max(1.0, other.makespanNs());
  }

  /**
   * Every node after the first against the first.
   *
   * @param topOps how many operations to list per comparison (0: none)
   */
  public static List<NodeComparison> againstFirst(List<ReplayResult> results, int topOps) {
    List<NodeComparison> out = new ArrayList<>();
    for (int i = 1; i < results.size(); i++) {
      out.add(of(results.get(0), results.get(i), topOps));
    }
    return out;
  }

  /** {@code other} against {@code base}: the same program replayed on two nodes. */
  public static NodeComparison of(ReplayResult base, ReplayResult other, int topOps) {
    if (base.ops().size() != other.ops().size()) {
      throw new IllegalArgumentException("not the same program: " + base.ops().size() + " and "
          + other.ops().size() + " operations");
    }
    Map<String, Double> a = base.breakdown();
    Map<String, Double> b = other.breakdown();
    Set<String> names = new LinkedHashSet<>(a.keySet());
    names.addAll(b.keySet());
    for (String sum : List.of("copies", "calls")) {
      if (names.stream().anyMatch(n -> n.startsWith(sum + " "))) {
        names.remove(sum); // the sum of the kinds listed beside it
      }
    }
    List<Category> cats = new ArrayList<>();
    for (String n : names) {
      double x = a.getOrDefault(n, 0.0);
      double y = b.getOrDefault(n, 0.0);
      if (x != y) {
        cats.add(new Category(n, x, y));
      }
    }
    cats.sort(Comparator.comparingDouble((Category c) -> -Math.abs(c.differenceNs())).thenComparing(Category::name));
    List<Op> ops = new ArrayList<>();
    if (topOps > 0) {
      for (int i = 0; i < base.ops().size(); i++) {
        ReplayResult.OpTimes p = base.ops().get(i);
        ReplayResult.OpTimes q = other.ops().get(i);
        if (p.durationNs() != q.durationNs()) {
          ops.add(new Op(i, p.durationNs(), q.durationNs(), p.endNs(), q.endNs()));
        }
      }
      ops.sort(Comparator.comparingDouble((Op o) -> -Math.abs(o.differenceNs())).thenComparingInt(Op::op));
      if (ops.size() > topOps) {
        ops = new ArrayList<>(ops.subList(0, topOps));
      }
    }
    return new NodeComparison(base, other, cats, ops);
  }
}
