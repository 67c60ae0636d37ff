package io.apptrace.imports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.fuzz.FuzzTarget;
import io.apptrace.fuzz.Mutator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

/**
 * The Kineto importer fuzzed: the test fixtures ({@code imports/kineto-*.json}) with values
 * replaced by numbers out of range, values of the wrong type, fields and events removed,
 * duplicated or renamed, deep nesting, cuts and byte damage; some inputs are gzipped.
 */
public final class KinetoFuzzTarget implements FuzzTarget {
  private List<byte[]> seeds;
  static final List<String> FIXTURES = List.of("/imports/kineto-current.json", "/imports/kineto-older.json");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final List<String> KEYS = List.of("ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "id",
      "bp", "correlation", "stream", "device", "context", "bytes", "grid", "block", "shared memory",
      "cuda_sync_kind", "wait_on_stream", "wait_on_cuda_event_record_corr_id", "traceEvents", "deviceProperties",
      "distributedInfo", "hostname", "totalGlobalMem");
  private static final List<String> CATEGORIES = List.of("cuda_runtime", "Runtime", "cuda_driver", "kernel",
      "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "cuda_sync", "ac2g", "async_cpu_to_gpu", "cpu_op");
  private static final List<String> STRINGS = List.of("", "X", "M", "s", "f", "Memcpy HtoD (Pinned -> Device)",
      "Memcpy PtoP (Device -> Device)", "Memset (Device)", "Memcpy", "cudaStreamSynchronize", "cudaEventRecord",
      "Event Sync", "Stream Wait Event", "12", "-7", " 1.5 ", "1e5", "1E+999999999", "9223372036854775808",
      "thread_name", "process_name", "\u0000", "é\uD83D\uDE00");

  private final ImportFuzzing importer;
  private final Map<byte[], JsonNode> trees = new IdentityHashMap<>();

  public KinetoFuzzTarget() throws IOException {
    importer = new ImportFuzzing("apptrace-fuzz-kineto-");
  }

  @Override
  public String name() {
    return "kineto";
  }

  @Override
  public List<byte[]> seeds() throws IOException {
    if (seeds != null) {
      return seeds;
    }
    seeds = new ArrayList<>();
    for (String f : FIXTURES) {
      try (InputStream in = KinetoFuzzTarget.class.getResourceAsStream(f)) {
        byte[] b = in.readAllBytes();
        seeds.add(b);
        trees.put(b, JSON.readTree(b));
      }
    }
    return seeds;
  }

  @Override
  public byte[] mutate(List<byte[]> seeds, Random r) throws IOException {
    byte[] seed = seeds.get(r.nextInt(seeds.size()));
    byte[] b;
    int how = r.nextInt(10);
    if (how < 5 && trees.containsKey(seed)) {
      JsonNode tree = trees.get(seed).deepCopy();
      int n = 1 + r.nextInt(4);
      for (int i = 0; i < n; i++) {
        tree = structure(tree, r);
      }
      b = r.nextBoolean() ? JSON.writeValueAsBytes(tree)
          : JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(tree);
    } else if (how < 6) {
      b = nest(seed, r);
    } else if (how < 7) {
      b = java.util.Arrays.copyOf(seed, r.nextInt(seed.length + 1));
    } else {
      b = Mutator.bytes(List.of(seed), r);
    }
    if (r.nextInt(8) == 0) {
      b = Mutator.some(b, seeds, r, 2);
    }
    if (r.nextInt(20) == 0) {
      b = gzip(b);
      if (r.nextBoolean()) {
        b = java.util.Arrays.copyOf(b, r.nextInt(b.length + 1));
      }
    }
    return b;
  }

  /** One change to the document's structure or values. */
  private static JsonNode structure(JsonNode root, Random r) {
    List<ContainerNode<?>> containers = new ArrayList<>();
    collect(root, containers);
    ContainerNode<?> c = containers.get(r.nextInt(containers.size()));
    if (c.size() == 0) {
      return root;
    }
    if (c instanceof ObjectNode o) {
      List<String> names = new ArrayList<>();
      o.fieldNames().forEachRemaining(names::add);
      String k = names.get(r.nextInt(names.size()));
      switch (r.nextInt(6)) {
        case 0 -> o.remove(k);
        case 1 -> o.set(KEYS.get(r.nextInt(KEYS.size())), o.remove(k));
        case 2 -> o.set(k, k.equals("cat") ? F.textNode(CATEGORIES.get(r.nextInt(CATEGORIES.size()))) : value(r));
        case 3 -> o.set(KEYS.get(r.nextInt(KEYS.size())), value(r));
        case 4 -> o.set(k, containers.get(r.nextInt(containers.size())).deepCopy());
        default -> o.set(k, o.get(names.get(r.nextInt(names.size()))).deepCopy());
      }
    } else if (c instanceof ArrayNode a) {
      int i = r.nextInt(a.size());
      switch (r.nextInt(5)) {
        case 0 -> a.remove(i);
        case 1 -> {
          int reps = r.nextInt(10) == 0 ? 200 : 1 + r.nextInt(3);
          for (int k = 0; k < reps; k++) {
            a.insert(r.nextInt(a.size() + 1), a.get(i).deepCopy());
          }
        }
        case 2 -> a.set(i, value(r));
        case 3 -> {
          int j = r.nextInt(a.size());
          JsonNode t = a.get(i);
          a.set(i, a.get(j));
          a.set(j, t);
        }
        default -> a.insert(i, containers.get(r.nextInt(containers.size())).deepCopy());
      }
    }
    return root;
  }

  private static void collect(JsonNode n, List<ContainerNode<?>> out) {
    if (n instanceof ContainerNode<?> c) {
      out.add(c);
      for (Iterator<JsonNode> it = n.elements(); it.hasNext(); ) {
        collect(it.next(), out);
      }
    }
  }

  /** A value a field should not hold, or an extreme one it may. */
  private static JsonNode value(Random r) {
    return switch (r.nextInt(22)) {
      case 0 -> F.numberNode(0);
      case 1 -> F.numberNode(-1);
      case 2 -> F.numberNode(Long.MAX_VALUE);
      case 3 -> F.numberNode(Long.MIN_VALUE);
      case 4 -> F.numberNode(BigInteger.ONE.shiftLeft(64 + r.nextInt(200)));
      case 5 -> F.numberNode(1e308);
      case 6 -> F.numberNode(-1e308);
      case 7 -> F.numberNode(4.9e-324);
      case 8 -> F.numberNode(new BigDecimal("1E+" + (r.nextBoolean() ? 999999999 : 100000)));
      case 9 -> F.numberNode(new BigDecimal("-1E-999999999"));
      case 10 -> F.numberNode(new BigDecimal("123456789012.3456789"));
      case 11 -> F.numberNode(0.5);
      case 12 -> F.numberNode(9.3e18);
      case 13 -> F.textNode(STRINGS.get(r.nextInt(STRINGS.size())));
      case 14 -> F.textNode("x".repeat(r.nextBoolean() ? 100_000 : 1000));
      case 15 -> F.nullNode();
      case 16 -> F.booleanNode(r.nextBoolean());
      case 17 -> F.arrayNode();
      case 18 -> F.objectNode();
      case 19 -> F.arrayNode().add(new BigDecimal("1e400")).add(-1).add("x").add(Long.MAX_VALUE);
      case 20 -> F.numberNode(r.nextInt(100));
      default -> F.numberNode(r.nextLong());
    };
  }

  /** Deep nesting or a long run of brackets inserted somewhere. */
  private static byte[] nest(byte[] seed, Random r) {
    int depth = r.nextBoolean() ? 1 + r.nextInt(2000) : 10_000 + r.nextInt(100_000);
    String open = r.nextBoolean() ? "[" : "{\"a\":";
    byte[] deep = Mutator.repeat(open, depth);
    if (r.nextBoolean()) {
      String close = open.equals("[") ? "]" : "}";
      byte[] closing = Mutator.repeat(close, depth);
      deep = Mutator.insert(deep, deep.length, closing);
      deep = Mutator.insert(deep, deep.length - closing.length, "1".getBytes(StandardCharsets.US_ASCII));
    }
    int at = r.nextInt(seed.length + 1);
    return Mutator.insert(seed, at, deep);
  }

  private static byte[] gzip(byte[] b) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(b);
    }
    return out.toByteArray();
  }

  @Override
  public String run(byte[] input) throws Throwable {
    return importer.run(input, "input.json");
  }

  @Override
  public void close() throws IOException {
    importer.close();
  }
}
