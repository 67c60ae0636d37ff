package io.apptrace.node;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jgrapht.Graph;
import org.jgrapht.graph.SimpleGraph;

/**
 * A node as a JGraphT graph (vertices: CPU, GPU and switch ids; edges: links) and the routes data
 * takes through it.
 *
 * <p>Routing rules: a GPU is an endpoint, never a hop (copy engines do not forward traffic for
 * other devices); CPUs and switches forward. Among the routes the rules allow, the one whose
 * slowest link is fastest wins (DMA takes the widest path the topology offers), then the one with
 * fewest hops, then the first in the file's order. Memory on NUMA node N is reached at the CPU
 * whose {@code numa_node} is N.
 */
public final class Topology {
  private static final int MAX_HOPS = 8;

  private final Node node;
  private final Graph<String, Node.Link> graph;
  private final Set<String> gpus = new HashSet<>();
  /** Each link's place in the node file (routes prefer earlier links among equals). */
  private final java.util.Map<Node.Link, Integer> order = new java.util.IdentityHashMap<>();
  /** Routes already found: a node's routes never change. */
  private final java.util.Map<String, Optional<Route>> routes = new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.Map<String, Integer> localNuma = new java.util.concurrent.ConcurrentHashMap<>();

  private Topology(Node node) {
    this.node = node;
    this.graph = new SimpleGraph<>(null, null, false);
    for (Node.Cpu c : node.cpus()) {
      graph.addVertex(c.id());
    }
    for (Node.Gpu g : node.gpus()) {
      graph.addVertex(g.id());
      gpus.add(g.id());
    }
    for (Node.Switch s : node.switches()) {
      graph.addVertex(s.id());
    }
    for (Node.Link l : node.links()) {
      graph.addEdge(l.a(), l.b(), l);
      order.put(l, order.size());
    }
  }

  /**
   * The topology of a node, checked: every GPU can be reached from some CPU's memory.
   *
   * @throws NodeFileException naming the GPU no route reaches
   */
  public static Topology of(Node node) throws NodeFileException {
    Topology t = new Topology(node);
    for (Node.Gpu g : node.gpus()) {
      boolean reached = false;
      for (Node.Cpu c : node.cpus()) {
        reached |= t.route(c.id(), g.id()).isPresent();
      }
      if (!reached) {
        throw new NodeFileException(node.source() + ": gpus[" + g.index() + "]: GPU '" + g.id()
            + "' cannot be reached from any CPU's memory (a route may pass CPUs and switches, not other GPUs)");
      }
    }
    return t;
  }

  public Node node() {
    return node;
  }

  /** The node as a graph: read-only use. */
  public Graph<String, Node.Link> graph() {
    return graph;
  }

  /**
   * A route: vertices from one end to the other and the links between them.
   *
   * @param links in order from the first vertex
   */
  public record Route(List<String> vertices, List<Node.Link> links) {
    public Route {
      vertices = List.copyOf(vertices);
      links = List.copyOf(links);
    }

    /** The link with the least bandwidth (after its efficiency), the first such. */
    public Node.Link bottleneck() {
      Node.Link worst = links.get(0);
      for (Node.Link l : links) {
        if (l.bandwidth() * l.efficiency() < worst.bandwidth() * worst.efficiency()) {
          worst = l;
        }
      }
      return worst;
    }

    /**
     * Whether data moving along the route ({@code along}: from its first vertex to its last)
     * crosses link {@code k} from that link's {@code a} end.
     */
    public boolean fromA(int k, boolean along) {
      String from = along ? vertices.get(k) : vertices.get(k + 1);
      return from.equals(links.get(k).a());
    }

    /** Whether the route crosses a bus between CPU sockets (a remote NUMA node). */
    public boolean remote() {
      return links.stream().anyMatch(l -> l.type().cpuInterconnect());
    }

    public String describe() {
      return String.join(" -> ", vertices);
    }

    /** The same route walked from its last vertex to its first. */
    public Route reversed() {
      List<String> v = new java.util.ArrayList<>(vertices);
      List<Node.Link> l = new java.util.ArrayList<>(links);
      java.util.Collections.reverse(v);
      java.util.Collections.reverse(l);
      return new Route(v, l);
    }
  }

  /** The route between host memory on NUMA node {@code numa} and a GPU. */
  public Optional<Route> hostRoute(int numa, String gpu) {
    return node.cpuOfNuma(numa).flatMap(c -> route(c.id(), gpu));
  }

  /** The NUMA node local to a GPU: the one whose route to it crosses no CPU bus (the first such). */
  public int localNuma(String gpu) {
    return localNuma.computeIfAbsent(gpu, g -> {
      for (Node.Cpu c : node.cpus()) {
        Optional<Route> r = route(c.id(), g);
        if (r.isPresent() && !r.get().remote()) {
          return c.numaNode();
        }
      }
      return node.cpus().get(0).numaNode();
    });
  }

  /** Whether two GPUs can use peer access (the node's {@code peer_access}). */
  public boolean peerAccess(String a, String b) {
    if (a.equals(b)) {
      return true;
    }
    Node.PeerAccess p = node.peerAccess();
    if (p.pairs().contains(Set.of(a, b)) || p.rules().contains("all")) {
      return true;
    }
    if (p.rules().contains("nvlink") && (directLink(a, b, LinkType.NVLINK) || commonSwitch(a, b, "nvswitch"))) {
      return true;
    }
    return p.rules().contains("pcie-switch") && commonSwitch(a, b, "pcie");
  }

  private boolean directLink(String a, String b, LinkType type) {
    Node.Link l = graph.getEdge(a, b);
    return l != null && l.type() == type;
  }

  private boolean commonSwitch(String a, String b, String type) {
    for (Node.Switch s : node.switches()) {
      if (s.type().equals(type) && graph.containsEdge(a, s.id()) && graph.containsEdge(b, s.id())) {
        return true;
      }
    }
    return false;
  }

  /** The route between two vertices: GPUs only at the ends (see the class comment). */
  public Optional<Route> route(String from, String to) {
    return routes.computeIfAbsent(from + "\u0000" + to, k -> search(from, to));
  }

  private Optional<Route> search(String from, String to) {
    if (!graph.containsVertex(from) || !graph.containsVertex(to) || from.equals(to)) {
      return Optional.empty();
    }
    Search s = new Search(to);
    List<String> path = new ArrayList<>();
    path.add(from);
    s.walk(from, path, new ArrayList<>(), new HashSet<>(Set.of(from)));
    if (s.best == null) {
      return Optional.empty();
    }
    return Optional.of(new Route(s.bestVertices, s.best));
  }

  /** Depth-first over simple paths; node graphs are small. */
  private final class Search {
    final String to;
    List<Node.Link> best;
    List<String> bestVertices;
    double bestWidth;

    Search(String to) {
      this.to = to;
    }

    void walk(String at, List<String> vertices, List<Node.Link> links, Set<String> seen) {
      if (at.equals(to)) {
        double width = Double.POSITIVE_INFINITY;
        for (Node.Link l : links) {
          width = Math.min(width, l.bandwidth() * l.efficiency());
        }
        if (best == null || width > bestWidth * (1 + 1e-12)
            || (Math.abs(width - bestWidth) <= bestWidth * 1e-12 && links.size() < best.size())) {
          best = new ArrayList<>(links);
          bestVertices = new ArrayList<>(vertices);
          bestWidth = width;
        }
        return;
      }
      if (links.size() >= MAX_HOPS || (links.size() > 0 && gpus.contains(at))) {
        return; // GPUs do not forward
      }
      List<Node.Link> out = new ArrayList<>(graph.edgesOf(at));
      Collections.sort(out, (x, y) -> Integer.compare(order.get(x), order.get(y)));
      for (Node.Link l : out) {
        String next = l.other(at);
        if (seen.add(next)) {
          vertices.add(next);
          links.add(l);
          walk(next, vertices, links, seen);
          links.remove(links.size() - 1);
          vertices.remove(vertices.size() - 1);
          seen.remove(next);
        }
      }
    }
  }
}
