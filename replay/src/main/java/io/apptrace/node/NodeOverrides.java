package io.apptrace.node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Applies {@code --set PATH=VALUE} overrides to a composed node file, before {@link NodeLoader}
 * checks it: PATH is resolved against the format's keys (below, as docs/NODE-FORMAT.md lists them)
 * and the list items the file has; VALUE is composed as YAML with its marks labelled by the
 * {@code --set}, so that the loader's errors about it name the {@code --set} instead of a line of
 * the file.
 */
final class NodeOverrides {
  private NodeOverrides() {}

  /**
   * A place in a node file: a single value (a leaf: {@code keys} and {@code item} null), a mapping
   * of the {@code keys} the format allows, or a list of {@code item}s, each named by its {@code id}
   * (or, for links, {@code <a>-<b>} from {@code between}).
   *
   * @param word what a list item is called in messages ({@code GPU})
   * @param excludes for a mapping: keys that are alternatives, setting one removes the other
   */
  private record Place(Map<String, Place> keys, Place item, String word, boolean byBetween,
      Map<String, String> excludes) {
    boolean isMap() {
      return keys != null;
    }

    boolean isList() {
      return item != null;
    }
  }

  private static final Place LEAF = new Place(null, null, null, false, Map.of());

  /** A mapping whose keys are the file's own (CPU ids), each a single value. */
  private static final Place BY_CPU = new Place(Map.of(), null, "CPU", false, Map.of());

  private static Place map(Map<String, String> excludes, Object... keysAndPlaces) {
    Map<String, Place> keys = new LinkedHashMap<>();
    for (int i = 0; i < keysAndPlaces.length; i++) {
      String k = (String) keysAndPlaces[i];
      if (i + 1 < keysAndPlaces.length && keysAndPlaces[i + 1] instanceof Place p) {
        keys.put(k, p);
        i++;
      } else {
        keys.put(k, LEAF);
      }
    }
    return new Place(keys, null, null, false, excludes);
  }

  private static Place leaves(Iterable<String> keys) {
    Map<String, Place> m = new LinkedHashMap<>();
    keys.forEach(k -> m.put(k, LEAF));
    return new Place(m, null, null, false, Map.of());
  }

  private static Place list(String word, boolean byBetween, Place item) {
    return new Place(null, item, word, byBetween, Map.of());
  }

  /** The format (docs/NODE-FORMAT.md): the keys {@link NodeLoader} reads, at every place. */
  private static final Place ROOT;

  static {
    List<String> kinds = new ArrayList<>();
    for (TransferKind k : TransferKind.values()) {
      kinds.add(k.key());
    }
    Place cpu = map(Map.of("memory_bandwidth", "memory_bus", "memory_bus", "memory_bandwidth"),
        "id", "model", "cores", "clock", "numa_node", "memory", "memory_bandwidth",
        "memory_bus", map(Map.of(), "width", "frequency", "transfers_per_cycle"));
    Place gpu = map(Map.of(), "id", "model", "memory", "memory_bandwidth",
        "peak_flops", leaves(new java.util.TreeSet<>(java.util.Arrays.stream(Precision.values()).map(Precision::key).toList())), "copy_engines", "implicit_sync",
        "concurrent_kernels", "sms", "clock", "launch_overhead");
    Place sw = map(Map.of(), "id", "type", "model");
    Place link = map(Map.of("bandwidth", "lane_bandwidth", "lane_bandwidth", "bandwidth"),
        "between", "type", "duplex", "efficiency", map(Map.of(), "read", "write"), "count", "generation", "lanes",
        "mps", "mrrs", "rcb",
        "overheads", map(Map.of(), "mrd", "mwr", "cpld"), "lane_bandwidth", "bandwidth");
    Place measured = map(Map.of(), "source", "simulated", "latency", leaves(kinds), "latency_from",
        "gap", map(Map.of(), "h2d", "d2h"), "bandwidth", leaves(kinds), "curves", leaves(kinds),
        "page_fault", map(Map.of(), "cpu_to_gpu", "gpu_to_cpu", "gpu_gpu_local", "gpu_gpu_remote"),
        "migration_granularity", "fitted_to", "timed", "memset", "staging_chunk", "memcpy_bandwidth", BY_CPU);
    ROOT = map(Map.of(), "name", "description", "aliases", "sources", "cpu_speed_factor",
        "cpus", list("CPU", false, cpu), "gpus", list("GPU", false, gpu), "switches", list("switch", false, sw),
        "links", list("link", true, link), "peer_access", map(Map.of(), "pairs"), "measured", measured);
  }

  /** {@code --set a=1 --set b=2}, for {@link Node#source()}. */
  static String describe(List<NodeOverride> overrides) {
    StringBuilder s = new StringBuilder();
    for (NodeOverride o : overrides) {
      s.append(s.length() == 0 ? "" : " ").append(o);
    }
    return s.toString();
  }

  /** The node's name for messages: its {@code name}, or {@code file} when it has none. */
  static String nodeName(String file, MappingNode root) {
    Optional<Node> n = get(root, "name");
    return n.isPresent() && n.get() instanceof ScalarNode s && !s.getValue().isBlank() ? s.getValue() : file;
  }

  /** Applies the overrides in order (a later one wins) to {@code root}, changing it. */
  static void apply(String file, MappingNode root, List<NodeOverride> overrides)
      throws NodeOverrideException, NodeFileException {
    for (NodeOverride o : overrides) {
      apply(file, root, o);
    }
  }

  private static void apply(String file, MappingNode root, NodeOverride o)
      throws NodeOverrideException, NodeFileException {
    String label = o.toString();
    String path = o.path();
    if (path.isEmpty()) {
      throw new NodeOverrideException(label + ": no PATH before '='; write it PATH=VALUE, like --set"
          + " gpus.gpu0.copy_engines=2");
    }
    Optional<Mark> mark = Optional.of(BoundedYaml.mark(label));
    Place place = ROOT;
    Node at = root;
    String rest = path;
    // the value is composed once the path is known to exist, so that a bad PATH is reported first
    while (true) {
      if (place.isMap()) {
        MappingNode m = (MappingNode) at;
        int dot = rest.indexOf('.');
        String key = dot < 0 ? rest : rest.substring(0, dot);
        Place child = place == BY_CPU ? LEAF : place.keys().get(key);
        if (child == null) {
          throw noField(file, root, path);
        }
        String exclude = place.excludes().get(key);
        if (exclude != null) {
          remove(m, exclude);
        }
        if (dot < 0) {
          put(m, key, BoundedYaml.composeValue(label, o.value()), mark);
          return;
        }
        rest = rest.substring(dot + 1);
        Optional<Node> current = get(m, key);
        Node next;
        if (child.isMap()) {
          next = current.isPresent() && current.get() instanceof MappingNode cm ? copy(cm)
              : new MappingNode(Tag.MAP, true, new ArrayList<>(), FlowStyle.FLOW, mark, mark);
        } else if (child.isList()) {
          next = current.isPresent() && current.get() instanceof SequenceNode cs ? copy(cs)
              : new SequenceNode(Tag.SEQ, true, new ArrayList<>(), FlowStyle.FLOW, mark, mark);
        } else {
          throw noField(file, root, path);
        }
        if (child.isMap() || current.isPresent()) {
          put(m, key, next, mark);
        }
        place = child;
        at = next;
      } else if (place.isList()) {
        SequenceNode seq = (SequenceNode) at;
        List<String> ids = new ArrayList<>();
        int found = -1;
        String id = null;
        for (int i = 0; i < seq.getValue().size(); i++) {
          String itemId = itemId(seq.getValue().get(i), place.byBetween());
          ids.add(itemId);
          if (itemId != null && (rest.equals(itemId) || rest.startsWith(itemId + "."))
              && (id == null || itemId.length() > id.length())) {
            found = i;
            id = itemId;
          }
        }
        if (found < 0) {
          int dot = rest.indexOf('.');
          String wanted = dot < 0 ? rest : rest.substring(0, dot);
          if (wanted.isEmpty()) {
            throw noField(file, root, path);
          }
          List<String> has = ids.stream().filter(x -> x != null).toList();
          throw new NodeOverrideException("no " + place.word() + " '" + wanted + "' in node " + nodeName(file, root)
              + " (it has " + (has.isEmpty() ? "none" : String.join(", ", has)) + ")");
        }
        if (rest.equals(id)) {
          seq.getValue().set(found, BoundedYaml.composeValue(label, o.value()));
          return;
        }
        MappingNode item = copy((MappingNode) seq.getValue().get(found));
        seq.getValue().set(found, item);
        rest = rest.substring(id.length() + 1);
        place = place.item();
        at = item;
      } else {
        throw noField(file, root, path);
      }
    }
  }

  /** A list item's id: its {@code id}, or a link's {@code <a>-<b>}; null when it has none. */
  private static String itemId(Node item, boolean byBetween) {
    if (!(item instanceof MappingNode m)) {
      return null;
    }
    Optional<Node> v = get(m, byBetween ? "between" : "id");
    if (v.isEmpty()) {
      return null;
    }
    if (!byBetween) {
      return v.get() instanceof ScalarNode s ? s.getValue() : null;
    }
    if (v.get() instanceof SequenceNode s && s.getValue().size() == 2
        && s.getValue().get(0) instanceof ScalarNode a && s.getValue().get(1) instanceof ScalarNode b) {
      return a.getValue() + "-" + b.getValue();
    }
    return null;
  }

  private static NodeOverrideException noField(String file, MappingNode root, String path) {
    String nearest = null;
    int best = Integer.MAX_VALUE;
    for (String p : validPaths(root)) {
      int d = EditDistance.of(path, p);
      if (d < best) {
        best = d;
        nearest = p;
      }
    }
    return new NodeOverrideException("no field '" + path + "' in node " + nodeName(file, root)
        + (nearest == null ? "" : " (did you mean " + nearest + "?)"));
  }

  /**
   * Every path a {@code --set} could use on this node: the places the format allows, with the list
   * items the file has, whether the file gives them a value or not.
   */
  static List<String> validPaths(MappingNode root) {
    List<String> out = new ArrayList<>();
    paths(ROOT, root, "", out);
    return out;
  }

  private static void paths(Place place, Node at, String prefix, List<String> out) {
    if (place == BY_CPU && at instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        if (t.getKeyNode() instanceof ScalarNode k) {
          out.add(prefix + "." + k.getValue());
        }
      }
    } else if (place.isMap()) {
      for (Map.Entry<String, Place> e : place.keys().entrySet()) {
        String p = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
        out.add(p);
        Node child = at instanceof MappingNode m ? get(m, e.getKey()).orElse(null) : null;
        paths(e.getValue(), child, p, out);
      }
    } else if (place.isList() && at instanceof SequenceNode seq) {
      for (Node item : seq.getValue()) {
        String id = itemId(item, place.byBetween());
        if (id != null) {
          out.add(prefix + "." + id);
          paths(place.item(), item, prefix + "." + id, out);
        }
      }
    }
  }

  private static Optional<Node> get(MappingNode m, String key) {
    for (NodeTuple t : m.getValue()) {
      if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
        return Optional.of(t.getValueNode());
      }
    }
    return Optional.empty();
  }

  /** Sets {@code key} to {@code value}: in place if the mapping has it, else added at the end. */
  private static void put(MappingNode m, String key, Node value, Optional<Mark> mark) {
    List<NodeTuple> tuples = new ArrayList<>(m.getValue());
    for (int i = 0; i < tuples.size(); i++) {
      if (tuples.get(i).getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
        tuples.set(i, new NodeTuple(k, value));
        m.setValue(tuples);
        return;
      }
    }
    tuples.add(new NodeTuple(new ScalarNode(Tag.STR, true, key, ScalarStyle.PLAIN, mark, mark), value));
    m.setValue(tuples);
  }

  private static void remove(MappingNode m, String key) {
    List<NodeTuple> tuples = new ArrayList<>(m.getValue());
    tuples.removeIf(t -> t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key));
    m.setValue(tuples);
  }

  /**
   * A shallow copy, so that changing a mapping or list on the way to the value changes no other
   * place the file shares it with (a YAML alias).
   */
  private static MappingNode copy(MappingNode m) {
    return new MappingNode(m.getTag(), true, new ArrayList<>(m.getValue()), m.getFlowStyle(), m.getStartMark(),
        m.getEndMark());
  }

  private static SequenceNode copy(SequenceNode s) {
    return new SequenceNode(s.getTag(), true, new ArrayList<>(s.getValue()), s.getFlowStyle(), s.getStartMark(),
        s.getEndMark());
  }
}
