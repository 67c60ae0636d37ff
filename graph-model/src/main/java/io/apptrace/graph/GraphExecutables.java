package io.apptrace.graph;

import io.apptrace.proto.GraphEdge;
import io.apptrace.proto.GraphExec;
import io.apptrace.proto.GraphNode;
import io.apptrace.proto.GraphNodeKind;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One process's executable CUDA graphs as the trace describes them (GraphExec records:
 * docs/TRACE-FORMAT.md, "CUDA graphs"), and what a launch of each runs: its kernel, memcpy and
 * memset nodes in an order that respects its edges, each with the nodes of that kind it waits
 * for. The other nodes (empty, host, event, memory and child graph nodes) issue no operation;
 * the order they carry is kept, passed through them.
 */
final class GraphExecutables {
  /**
   * What a launch runs: the nodes that issue an operation, each with the indexes (in {@code nodes})
   * of those it waits for; and its memory alloc and free nodes (graph memory is allocated as a
   * launch begins and freed as it ends: **choice**, the order of those nodes among the others is
   * not followed).
   */
  record Plan(List<GraphNode> nodes, int[][] waitsFor, List<GraphNode> allocs, List<GraphNode> frees) {}

  private static final class Description {
    final int serial;
    final Map<Long, GraphNode> nodes = new LinkedHashMap<>();

    Description(int serial) {
      this.serial = serial;
    }

    final List<GraphEdge> edges = new ArrayList<>();
    Plan plan;
  }

  private final Map<Long, Description> byExec = new HashMap<>();
  private int described;

  /** Takes a GraphExec record: a new description, a part of the last one, or nodes that replace theirs. */
  void accept(GraphExec g) {
    Description d = byExec.get(g.getExec());
    if (!g.getPart()) {
      d = new Description(described);
      byExec.put(g.getExec(), d);
      described++;
    } else if (d == null) {
      return; // a part of a description the trace does not hold (cut short)
    }
    for (GraphNode n : g.getNodesList()) {
      d.nodes.put(n.getId(), n);
    }
    d.edges.addAll(g.getEdgesList());
    d.plan = null;
  }

  /** Executable graphs described (each instantiation and update once). */
  int described() {
    return described;
  }

  /** The number of {@code exec}'s description in the process (from 0), or -1. */
  int serial(long exec) {
    Description d = byExec.get(exec);
    return d == null ? -1 : d.serial;
  }

  /** What a launch of {@code exec} runs; null when the trace does not describe it. */
  Plan plan(long exec) {
    Description d = byExec.get(exec);
    if (d == null) {
      return null;
    }
    if (d.plan == null) {
      d.plan = plan(d);
    }
    return d.plan;
  }

  private static boolean issues(GraphNode n) {
    return !n.getDisabled() && (n.getKind() == GraphNodeKind.GRAPH_KERNEL && n.hasLaunch()
        || n.getKind() == GraphNodeKind.GRAPH_MEMCPY && n.hasCopy()
        || n.getKind() == GraphNodeKind.GRAPH_MEMSET && n.hasMemset());
  }

  /** The nodes in topological order (Kahn's, ties in the order they were described). */
  private static Plan plan(Description d) {
    List<GraphNode> all = new ArrayList<>(d.nodes.values());
    Map<Long, Integer> index = new HashMap<>();
    for (int i = 0; i < all.size(); i++) {
      index.put(all.get(i).getId(), i);
    }
    List<List<Integer>> preds = new ArrayList<>();
    List<List<Integer>> succs = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      preds.add(new ArrayList<>());
      succs.add(new ArrayList<>());
    }
    for (GraphEdge e : d.edges) {
      Integer from = index.get(e.getFrom());
      Integer to = index.get(e.getTo());
      if (from != null && to != null) {
        preds.get(to).add(from);
        succs.get(from).add(to);
      }
    }
    int[] left = new int[all.size()];
    ArrayDeque<Integer> ready = new ArrayDeque<>();
    for (int i = 0; i < all.size(); i++) {
      left[i] = preds.get(i).size();
      if (left[i] == 0) {
        ready.add(i);
      }
    }
    // per node: the issuing nodes (their plan indexes) it is ordered after, passed through the others
    List<java.util.BitSet> after = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      after.add(new java.util.BitSet());
    }
    int[] planIndex = new int[all.size()];
    List<GraphNode> nodes = new ArrayList<>();
    List<int[]> waits = new ArrayList<>();
    while (!ready.isEmpty()) {
      int i = ready.poll();
      java.util.BitSet mine = new java.util.BitSet();
      for (int p : preds.get(i)) {
        if (planIndex[p] > 0) {
          mine.set(planIndex[p] - 1);
        } else {
          mine.or(after.get(p));
        }
      }
      if (issues(all.get(i))) {
        nodes.add(all.get(i));
        waits.add(mine.stream().toArray());
        planIndex[i] = nodes.size();
      } else {
        after.set(i, mine);
      }
      for (int s : succs.get(i)) {
        if (--left[s] == 0) {
          ready.add(s);
        }
      }
    }
    List<GraphNode> allocs = new ArrayList<>();
    List<GraphNode> frees = new ArrayList<>();
    for (GraphNode n : all) {
      if (n.getKind() == GraphNodeKind.GRAPH_MEM_ALLOC && n.getPtr() != 0) {
        allocs.add(n);
      } else if (n.getKind() == GraphNodeKind.GRAPH_MEM_FREE && n.getPtr() != 0) {
        frees.add(n);
      }
    }
    return new Plan(List.copyOf(nodes), waits.toArray(new int[0][]), List.copyOf(allocs), List.copyOf(frees));
  }
}
