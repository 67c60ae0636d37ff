package io.apptrace.graph;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Supplier;
import org.jgrapht.GraphType;
import org.jgrapht.graph.AbstractGraph;
import org.jgrapht.graph.DefaultGraphType;

/**
 * The JGraphT view of operations that read and write values ({@link OperationLists}): a
 * {@link Dvdg}'s ({@link DvdgGraph}), or a job's. Read-only, computed from the lists with a few int
 * arrays (no object per vertex or edge: graphs of millions of operations).
 *
 * <p>Vertices: value ids {@code 0..V-1}; then a synthetic source vertex for each operation with
 * no input (a memset, a kernel that reads nothing: where its edge starts); then a synthetic sink
 * vertex for each operation with no output. Edges: operation {@code op} with inputs I and
 * outputs O has {@code max(1,|I|) * max(1,|O|)} edges, one per (input, output) pair, numbered
 * from {@link #firstEdge(int)}; the edge for (input i, output o) is
 * {@code firstEdge(op) + i * max(1,|O|) + o}. Every edge of one operation shares its
 * {@link #operationOf(int) operation}.
 */
public class OperationGraph extends AbstractGraph<Integer, Integer> {
  private static final GraphType TYPE = new DefaultGraphType.Builder().directed()
      .allowMultipleEdges(false).allowSelfLoops(false).weighted(false).modifiable(false).build();

  private final OperationLists ops;
  private final int values;
  private final int[] sourceOps;
  private final int[] sinkOps;
  private final int[] edgeStart;
  private final int[] consumerStart;
  private final int[] consumers;

  public OperationGraph(OperationLists ops) {
    this.ops = ops;
    this.values = ops.values();
    int n = ops.operations();
    int[] src = new int[n];
    int[] snk = new int[n];
    int nSrc = 0;
    int nSnk = 0;
    edgeStart = new int[n + 1];
    long e = 0;
    consumerStart = new int[values + 1];
    for (int op = 0; op < n; op++) {
      int in = ops.inputCount(op);
      int out = ops.outputCount(op);
      if (in == 0) {
        src[nSrc++] = op;
      }
      if (out == 0) {
        snk[nSnk++] = op;
      }
      edgeStart[op] = (int) e;
      e += (long) Math.max(1, in) * Math.max(1, out);
      if (e > Integer.MAX_VALUE) {
        throw new IllegalStateException("the graph has more than 2^31 edges; JGraphT cannot index it");
      }
      for (int k = 0; k < in; k++) {
        consumerStart[ops.input(op, k) + 1]++;
      }
    }
    edgeStart[n] = (int) e;
    sourceOps = Arrays.copyOf(src, nSrc);
    sinkOps = Arrays.copyOf(snk, nSnk);
    for (int v = 0; v < values; v++) {
      consumerStart[v + 1] += consumerStart[v];
    }
    consumers = new int[consumerStart[values]];
    int[] fill = Arrays.copyOf(consumerStart, values);
    for (int op = 0; op < n; op++) {
      for (int k = 0, in = ops.inputCount(op); k < in; k++) {
        consumers[fill[ops.input(op, k)]++] = op;
      }
    }
  }

  /** Whether vertex {@code v} is a value (not a synthetic source or sink). */
  public boolean isValue(int v) {
    return v >= 0 && v < values;
  }

  /** The operation a synthetic vertex stands for; -1 for a value. */
  public int syntheticOperation(int v) {
    if (v < values) {
      return -1;
    }
    int i = v - values;
    return i < sourceOps.length ? sourceOps[i] : sinkOps[i - sourceOps.length];
  }

  /** Whether a synthetic vertex is an operation's source (else its sink). */
  public boolean isSource(int v) {
    return v >= values && v - values < sourceOps.length;
  }

  /** The operation an edge belongs to. */
  public int operationOf(int edge) {
    int i = Arrays.binarySearch(edgeStart, edge);
    if (i < 0) {
      return -i - 2;
    }
    while (i + 1 < edgeStart.length && edgeStart[i + 1] == edge) {
      i++; // operations with no edges cannot occur (each has at least one), kept for safety
    }
    return i;
  }

  /** The first edge of an operation. */
  public int firstEdge(int op) {
    return edgeStart[op];
  }

  /** The input an edge starts from: its index among its operation's inputs (0 when it has none). */
  public int inputIndex(int edge) {
    int op = operationOf(edge);
    return (edge - edgeStart[op]) / outWidth(op);
  }

  /** The output an edge ends at: its index among its operation's outputs (0 when it has none). */
  public int outputIndex(int edge) {
    int op = operationOf(edge);
    return (edge - edgeStart[op]) % outWidth(op);
  }

  private int outWidth(int op) {
    return Math.max(1, ops.outputCount(op));
  }

  private int sourceVertex(int op) {
    return values + Arrays.binarySearch(sourceOps, op);
  }

  private int sinkVertex(int op) {
    return values + sourceOps.length + Arrays.binarySearch(sinkOps, op);
  }

  @Override
  public Integer getEdgeSource(Integer edge) {
    int op = operationOf(edge);
    int i = (edge - edgeStart[op]) / outWidth(op);
    return ops.inputCount(op) == 0 ? sourceVertex(op) : ops.input(op, i);
  }

  @Override
  public Integer getEdgeTarget(Integer edge) {
    int op = operationOf(edge);
    int o = (edge - edgeStart[op]) % outWidth(op);
    return ops.outputCount(op) == 0 ? sinkVertex(op) : ops.output(op, o);
  }

  /** The index of the input (output) {@code v} is of {@code op}. */
  private static int indexOf(OperationLists ops, int op, int v, boolean input) {
    int n = input ? ops.inputCount(op) : ops.outputCount(op);
    for (int k = 0; k < n; k++) {
      if ((input ? ops.input(op, k) : ops.output(op, k)) == v) {
        return k;
      }
    }
    return -1;
  }

  @Override
  public Set<Integer> outgoingEdgesOf(Integer v) {
    assertVertexExist(v);
    if (v >= values) {
      int op = syntheticOperation(v);
      return isSource(v) ? range(edgeStart[op], edgeStart[op + 1]) : Set.of();
    }
    int[] out = new int[0];
    int size = 0;
    for (int c = consumerStart[v]; c < consumerStart[v + 1]; c++) {
      int op = consumers[c];
      int w = outWidth(op);
      int i = indexOf(ops, op, v, true);
      if (out.length < size + w) {
        out = Arrays.copyOf(out, Math.max(size + w, out.length * 2));
      }
      for (int o = 0; o < w; o++) {
        out[size++] = edgeStart[op] + i * w + o;
      }
    }
    return new IntSet(Arrays.copyOf(out, size));
  }

  @Override
  public Set<Integer> incomingEdgesOf(Integer v) {
    assertVertexExist(v);
    if (v >= values) {
      int op = syntheticOperation(v);
      return isSource(v) ? Set.of() : range(edgeStart[op], edgeStart[op + 1]);
    }
    int op = ops.producer(v);
    if (op < 0) {
      return Set.of();
    }
    int w = outWidth(op);
    int o = indexOf(ops, op, v, false);
    int rows = Math.max(1, ops.inputCount(op));
    int[] in = new int[rows];
    for (int i = 0; i < rows; i++) {
      in[i] = edgeStart[op] + i * w + o;
    }
    return new IntSet(in);
  }

  @Override
  public Set<Integer> edgesOf(Integer v) {
    Set<Integer> in = incomingEdgesOf(v);
    Set<Integer> out = outgoingEdgesOf(v);
    int[] all = new int[in.size() + out.size()];
    int k = 0;
    for (int e : in) {
      all[k++] = e;
    }
    for (int e : out) {
      all[k++] = e;
    }
    return new IntSet(all);
  }

  @Override
  public int inDegreeOf(Integer v) {
    return incomingEdgesOf(v).size();
  }

  @Override
  public int outDegreeOf(Integer v) {
    return outgoingEdgesOf(v).size();
  }

  @Override
  public int degreeOf(Integer v) {
    return inDegreeOf(v) + outDegreeOf(v);
  }

  @Override
  public Set<Integer> getAllEdges(Integer u, Integer v) {
    Integer e = getEdge(u, v);
    return e == null ? Set.of() : Set.of(e);
  }

  @Override
  public Integer getEdge(Integer u, Integer v) {
    if (!containsVertex(u) || !containsVertex(v)) {
      return null;
    }
    for (int e : outgoingEdgesOf(u)) {
      if (getEdgeTarget(e).equals(v)) {
        return e;
      }
    }
    return null;
  }

  @Override
  public boolean containsEdge(Integer e) {
    return e != null && e >= 0 && e < edgeStart[edgeStart.length - 1];
  }

  @Override
  public boolean containsVertex(Integer v) {
    return v != null && v >= 0 && v < vertexCount();
  }

  private int vertexCount() {
    return values + sourceOps.length + sinkOps.length;
  }

  @Override
  public Set<Integer> vertexSet() {
    return range(0, vertexCount());
  }

  @Override
  public Set<Integer> edgeSet() {
    return range(0, edgeStart[edgeStart.length - 1]);
  }

  @Override
  public GraphType getType() {
    return TYPE;
  }

  @Override
  public double getEdgeWeight(Integer e) {
    return DEFAULT_EDGE_WEIGHT;
  }

  @Override
  public Supplier<Integer> getVertexSupplier() {
    return null;
  }

  @Override
  public Supplier<Integer> getEdgeSupplier() {
    return null;
  }

  private static UnsupportedOperationException immutable() {
    return new UnsupportedOperationException("a DVDG cannot be changed once built");
  }

  @Override
  public Integer addEdge(Integer u, Integer v) {
    throw immutable();
  }

  @Override
  public boolean addEdge(Integer u, Integer v, Integer e) {
    throw immutable();
  }

  @Override
  public Integer addVertex() {
    throw immutable();
  }

  @Override
  public boolean addVertex(Integer v) {
    throw immutable();
  }

  @Override
  public Integer removeEdge(Integer u, Integer v) {
    throw immutable();
  }

  @Override
  public boolean removeEdge(Integer e) {
    throw immutable();
  }

  @Override
  public boolean removeVertex(Integer v) {
    throw immutable();
  }

  @Override
  public void setEdgeWeight(Integer e, double weight) {
    throw immutable();
  }

  private static Set<Integer> range(int from, int to) {
    return new AbstractSet<>() {
      @Override
      public Iterator<Integer> iterator() {
        return new Iterator<>() {
          int next = from;

          @Override
          public boolean hasNext() {
            return next < to;
          }

          @Override
          public Integer next() {
            if (next >= to) {
              throw new NoSuchElementException();
            }
            return next++;
          }
        };
      }

      @Override
      public boolean contains(Object o) {
        return o instanceof Integer i && i >= from && i < to;
      }

      @Override
      public int size() {
        return to - from;
      }
    };
  }

  /** A small read-only set of ints. */
  private static final class IntSet extends AbstractSet<Integer> {
    private final int[] items;

    IntSet(int[] items) {
      this.items = items;
    }

    @Override
    public Iterator<Integer> iterator() {
      return Arrays.stream(items).iterator();
    }

    @Override
    public boolean contains(Object o) {
      if (!(o instanceof Integer i)) {
        return false;
      }
      for (int x : items) {
        if (x == i) {
          return true;
        }
      }
      return false;
    }

    @Override
    public int size() {
      return items.length;
    }
  }
}
