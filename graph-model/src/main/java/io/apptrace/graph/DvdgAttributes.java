package io.apptrace.graph;

import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.Copies;
import io.apptrace.trace.Direction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jgrapht.nio.Attribute;
import org.jgrapht.nio.AttributeType;
import org.jgrapht.nio.DefaultAttribute;

/**
 * What the exporters write for each vertex and edge: the same names and types in GraphML, DOT and
 * JSON (documented in docs/GRAPH.md; scripts rely on them). Vertices: {@code role}, {@code alloc},
 * {@code version}, {@code location}, {@code memory}, {@code bytes}, ...; edges: {@code op},
 * {@code kind}, {@code name}, {@code confidence}, ...
 */
public final class DvdgAttributes implements AttributedGraph {
  public static final List<Declared> VERTEX = List.of(
      new Declared("role", AttributeType.STRING), new Declared("alloc", AttributeType.INT),
      new Declared("version", AttributeType.INT), new Declared("location", AttributeType.STRING),
      new Declared("memory", AttributeType.STRING), new Declared("bytes", AttributeType.LONG),
      new Declared("offset", AttributeType.LONG), new Declared("address", AttributeType.STRING),
      new Declared("implicit", AttributeType.BOOLEAN), new Declared("label", AttributeType.STRING),
      new Declared("pid", AttributeType.INT), new Declared("op", AttributeType.INT),
      new Declared("numa_node", AttributeType.INT));

  public static final List<Declared> EDGE = List.of(
      new Declared("op", AttributeType.INT), new Declared("kind", AttributeType.STRING),
      new Declared("name", AttributeType.STRING), new Declared("confidence", AttributeType.STRING),
      new Declared("pid", AttributeType.INT), new Declared("thread", AttributeType.INT),
      new Declared("stream", AttributeType.STRING), new Declared("device", AttributeType.INT),
      new Declared("entry_ns", AttributeType.LONG), new Declared("duration_ns", AttributeType.LONG),
      new Declared("gpu_start_ns", AttributeType.LONG), new Declared("gpu_end_ns", AttributeType.LONG),
      new Declared("bytes", AttributeType.LONG), new Declared("direction", AttributeType.STRING),
      new Declared("src_memory", AttributeType.STRING), new Declared("dst_memory", AttributeType.STRING),
      new Declared("synchronous", AttributeType.BOOLEAN), new Declared("grid", AttributeType.STRING),
      new Declared("block", AttributeType.STRING), new Declared("call_site", AttributeType.STRING),
      new Declared("function", AttributeType.STRING), new Declared("file", AttributeType.STRING),
      new Declared("line", AttributeType.INT), new Declared("read_bytes", AttributeType.LONG),
      new Declared("race", AttributeType.STRING), new Declared("race_guesses", AttributeType.STRING),
      new Declared("race_writer", AttributeType.INT));

  private final Dvdg g;
  private final DvdgGraph view;
  private final CallSites sites;
  /** The races by (reader, value): the edges from that value of that operation carry them. */
  private final Map<Long, Race> races = new java.util.HashMap<>();

  public DvdgAttributes(Dvdg g, CallSites sites) {
    this.g = g;
    this.view = g.view();
    this.sites = sites;
    for (Race r : g.races()) {
      races.putIfAbsent(raceKey(r.reader(), r.value()), r);
    }
  }

  private static long raceKey(int reader, int value) {
    return ((long) reader << 32) | (value & 0xffffffffL);
  }

  static String vertexId(int v) {
    return "n" + v;
  }

  static String edgeId(int e) {
    return "e" + e;
  }

  @Override
  public org.jgrapht.Graph<Integer, Integer> graph() {
    return view;
  }

  @Override
  public List<Declared> vertexAttributes() {
    return VERTEX;
  }

  @Override
  public List<Declared> edgeAttributes() {
    return EDGE;
  }

  /** The race the edges from {@code value} of operation {@code reader} are in; null when none. */
  public Race race(int reader, int value) {
    return races.isEmpty() ? null : races.get(raceKey(reader, value));
  }

  /** A synthetic vertex: the source (else the sink) of operation {@code op} of process {@code pid}. */
  public static Map<String, Attribute> synthetic(boolean source, int pid, int op) {
    Map<String, Attribute> m = new LinkedHashMap<>();
    m.put("role", DefaultAttribute.createAttribute(source ? "source" : "sink"));
    m.put("alloc", DefaultAttribute.createAttribute(-1));
    m.put("version", DefaultAttribute.createAttribute(-1));
    m.put("memory", DefaultAttribute.createAttribute("none"));
    m.put("bytes", DefaultAttribute.createAttribute(0L));
    m.put("pid", DefaultAttribute.createAttribute(pid));
    m.put("op", DefaultAttribute.createAttribute(op));
    return m;
  }

  @Override
  public Map<String, Attribute> vertex(int v) {
    if (!view.isValue(v)) {
      int op = view.syntheticOperation(v);
      return synthetic(view.isSource(v), g.operations().pid(op), op);
    }
    Map<String, Attribute> m = new LinkedHashMap<>();
    ValueTable values = g.values();
    Allocation a = g.allocation(values.allocation(v));
    m.put("role", DefaultAttribute.createAttribute("value"));
    m.put("alloc", DefaultAttribute.createAttribute(a.id()));
    m.put("version", DefaultAttribute.createAttribute(values.version(v)));
    m.put("location", DefaultAttribute.createAttribute(a.location()));
    m.put("memory", DefaultAttribute.createAttribute(Copies.kindName(a.kind())));
    m.put("bytes", DefaultAttribute.createAttribute(values.bytes(v)));
    m.put("offset", DefaultAttribute.createAttribute(values.offset(v)));
    m.put("address", DefaultAttribute.createAttribute(hex(a.start() + values.offset(v))));
    m.put("implicit", DefaultAttribute.createAttribute(a.implicit()));
    a.numaNode().ifPresent(n -> m.put("numa_node", DefaultAttribute.createAttribute(n)));
    if (!a.label().isEmpty()) {
      m.put("label", DefaultAttribute.createAttribute(a.label()));
    }
    m.put("pid", DefaultAttribute.createAttribute(a.pid()));
    return m;
  }

  @Override
  public Map<String, Attribute> edge(int e) {
    OperationTable ops = g.operations();
    int op = view.operationOf(e);
    Map<String, Attribute> m = new LinkedHashMap<>();
    m.put("op", DefaultAttribute.createAttribute(op));
    m.put("kind", DefaultAttribute.createAttribute(ops.kind(op).key()));
    m.put("name", DefaultAttribute.createAttribute(ops.name(op)));
    m.put("confidence", DefaultAttribute.createAttribute(confidence(e, op).key()));
    if (ops.inputCount(op) > 0) {
      int k = (e - view.firstEdge(op)) / Math.max(1, ops.outputCount(op));
      m.put("read_bytes", DefaultAttribute.createAttribute(ops.inputBytes(op, k)));
      Race r = race(op, ops.input(op, k));
      if (r != null) {
        race(m, r, r.writer());
      }
    }
    m.put("pid", DefaultAttribute.createAttribute(ops.pid(op)));
    m.put("thread", DefaultAttribute.createAttribute(ops.tid(op)));
    m.put("stream", DefaultAttribute.createAttribute(hex(ops.stream(op))));
    m.put("device", DefaultAttribute.createAttribute(ops.device(op)));
    m.put("entry_ns", DefaultAttribute.createAttribute(ops.entryNs(op)));
    m.put("duration_ns", DefaultAttribute.createAttribute(ops.durationNs(op)));
    long[] gpu = ops.gpuTimes(op);
    if (gpu != null) {
      m.put("gpu_start_ns", DefaultAttribute.createAttribute(gpu[0]));
      m.put("gpu_end_ns", DefaultAttribute.createAttribute(gpu[1]));
    }
    if (ops.kind(op) != OpKind.KERNEL) {
      m.put("bytes", DefaultAttribute.createAttribute(ops.bytes(op)));
    }
    Direction d = ops.direction(op);
    if (d != null) {
      m.put("direction", DefaultAttribute.createAttribute(d.key()));
      m.put("src_memory", DefaultAttribute.createAttribute(memory(ops.srcMemory(op))));
      m.put("dst_memory", DefaultAttribute.createAttribute(memory(ops.dstMemory(op))));
    }
    if (ops.kind(op) != OpKind.KERNEL) {
      m.put("synchronous", DefaultAttribute.createAttribute(ops.synchronous(op)));
    } else {
      m.put("grid", DefaultAttribute.createAttribute(dims(ops.grid(op))));
      m.put("block", DefaultAttribute.createAttribute(dims(ops.block(op))));
    }
    if (ops.callSite(op) != 0) {
      m.put("call_site", DefaultAttribute.createAttribute(hex(ops.callSite(op))));
      sites.lookup(ops.pid(op), ops.callSite(op)).ifPresent(cs -> {
        m.put("function", DefaultAttribute.createAttribute(cs.function()));
        cs.file().ifPresent(f -> m.put("file", DefaultAttribute.createAttribute(f)));
        if (cs.line().isPresent()) {
          m.put("line", DefaultAttribute.createAttribute(cs.line().getAsInt()));
        }
      });
    }
    return m;
  }

  /** Marks an edge from a raced value: {@code race}, {@code race_guesses}, {@code race_writer} ({@code writer}). */
  public static void race(Map<String, Attribute> m, Race r, int writer) {
    m.put("race", DefaultAttribute.createAttribute(r.confidence()));
    m.put("race_guesses", DefaultAttribute.createAttribute(r.guessSet().stream().map(Race.Guess::text)
        .collect(java.util.stream.Collectors.joining("; "))));
    m.put("race_writer", DefaultAttribute.createAttribute(writer));
  }

  /** The edge's confidence: the less certain of its input's and its output's. */
  private Confidence confidence(int e, int op) {
    OperationTable ops = g.operations();
    int w = Math.max(1, ops.outputCount(op));
    int k = e - view.firstEdge(op);
    Confidence c = Confidence.EXACT;
    if (ops.inputCount(op) > 0) {
      c = Confidence.weaker(c, ops.inputConfidence(op, k / w));
    }
    if (ops.outputCount(op) > 0) {
      c = Confidence.weaker(c, ops.outputConfidence(op, k % w));
    }
    return c;
  }

  private static String memory(MemoryKind k) {
    return Copies.kindName(k);
  }

  private static String dims(int[] d) {
    return d[0] + "," + d[1] + "," + d[2];
  }

  public static String hex(long v) {
    return "0x" + Long.toHexString(v);
  }
}
