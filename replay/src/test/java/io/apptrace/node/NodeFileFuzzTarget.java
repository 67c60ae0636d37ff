package io.apptrace.node;

import io.apptrace.fuzz.FuzzTarget;
import io.apptrace.fuzz.Mutator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The node-file loader fuzzed: the bundled node files and the tests' node, with lines deleted,
 * duplicated, moved and re-indented, values replaced by ones out of range or of another kind,
 * keys renamed, and hostile YAML inserted (alias bombs, deep nesting, huge scalars, tags, merge
 * keys, several documents), besides byte damage. A file is loaded, or refused with one line that
 * names it ({@link NodeFileException}).
 */
public final class NodeFileFuzzTarget implements FuzzTarget {
  private static final List<String> VALUES = List.of("0", "-1", "1e999", "\"1e999 GB/s\"", "\"-5 GB/s\"",
      "\"NaN GB/s\"", "\"Infinity GB/s\"", "99999999999999999999", "2147483648", "\"0 GB/s\"", "\"1e-320 s\"",
      "\"4.9e-324 B\"", "~", "null", "''", "[]", "{}", "[1, 2, 3]", "[[1, 2], [3]]", "true", "&a x", "*a",
      "!!binary AAAA", "!!int x", "!!float 1", "0x10", ".inf", "-.inf", ".nan", "1_000", "\"16 GiB\"", "\"1 µs\"",
      "'9.42 us'", "pcie", "nvlink", "[gpu0, gpu0]", "[cpu0]", "[nvlink, all, none]", "\"1 TiB/s\"",
      "\"1e308 TFLOP/s\"", "[[\"1 B\", \"1 B/s\"], [\"1 B\", \"2 B/s\"]]");
  private static final List<String> KEYS = List.of("name", "description", "aliases", "sources", "cpu_speed_factor",
      "cpus", "gpus", "switches", "links", "peer_access", "measured", "id", "model", "cores", "numa_node",
      "memory_bandwidth", "memory_bus", "width", "frequency", "transfers_per_cycle", "memory", "copy_engines",
      "peak_flops", "fp64", "sms", "clock", "between", "type", "generation", "lanes", "efficiency", "duplex",
      "count", "mps", "mrrs", "rcb", "overheads", "lane_bandwidth", "bandwidth", "pairs", "latency", "curves",
      "pinned_h2d", "gap", "h2d", "page_fault", "migration_granularity", "latency_from", "<<");

  private final Path dir;
  private final Path file;

  public NodeFileFuzzTarget() throws IOException {
    dir = Files.createTempDirectory("apptrace-fuzz-node-");
    file = dir.resolve("node.yaml");
  }

  @Override
  public String name() {
    return "node";
  }

  @Override
  public List<byte[]> seeds() throws IOException {
    List<byte[]> seeds = new ArrayList<>();
    seeds.add(TestNodes.GOOD.getBytes(StandardCharsets.UTF_8));
    for (String n : BundledNodes.names()) {
      try (InputStream in = NodeFileFuzzTarget.class.getResourceAsStream(NodeLoader.BUNDLED + n + ".yaml")) {
        seeds.add(in.readAllBytes());
      }
    }
    return seeds;
  }

  @Override
  public byte[] mutate(List<byte[]> seeds, Random r) {
    byte[] seed = seeds.get(r.nextInt(seeds.size()));
    int how = r.nextInt(10);
    byte[] b;
    if (how < 5) {
      List<String> lines = new ArrayList<>(Arrays.asList(new String(seed, StandardCharsets.UTF_8).split("\n", -1)));
      int n = 1 + r.nextInt(4);
      for (int i = 0; i < n; i++) {
        line(lines, seeds, r);
      }
      b = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    } else if (how < 7) {
      List<String> lines = new ArrayList<>(Arrays.asList(new String(seed, StandardCharsets.UTF_8).split("\n", -1)));
      lines.add(r.nextInt(lines.size() + 1), hostile(r));
      b = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    } else {
      b = Mutator.bytes(List.of(seed), r);
    }
    if (r.nextInt(8) == 0) {
      b = Mutator.some(b, seeds, r, 2);
    }
    return b;
  }

  /** One change to one line. */
  private static void line(List<String> lines, List<byte[]> seeds, Random r) {
    int i = r.nextInt(lines.size());
    String l = lines.get(i);
    switch (r.nextInt(8)) {
      case 0 -> lines.remove(i);
      case 1 -> lines.add(r.nextInt(lines.size() + 1), l);
      case 2 -> lines.set(i, "  " + l);
      case 3 -> lines.set(i, l.startsWith("  ") ? l.substring(2) : l.strip());
      case 4 -> {
        int colon = l.indexOf(": ");
        if (colon >= 0) {
          lines.set(i, l.substring(0, colon + 2) + VALUES.get(r.nextInt(VALUES.size())));
        }
      }
      case 5 -> {
        // a key renamed, or a value inside a flow mapping replaced
        int colon = l.indexOf(':');
        int start = Math.max(Math.max(l.lastIndexOf(' ', Math.max(colon - 1, 0)), l.lastIndexOf('{',
            Math.max(colon - 1, 0))), l.lastIndexOf('-', Math.max(colon - 1, 0)));
        if (colon > 0 && start < colon) {
          String key = KEYS.get(r.nextInt(KEYS.size()));
          lines.set(i, l.substring(0, start + 1) + key + l.substring(colon));
        }
      }
      case 6 -> {
        int j = r.nextInt(lines.size());
        lines.set(i, lines.get(j));
        lines.set(j, l);
      }
      default -> {
        String[] other = new String(seeds.get(r.nextInt(seeds.size())), StandardCharsets.UTF_8).split("\n");
        lines.add(i, other[r.nextInt(other.length)]);
      }
    }
  }

  /** YAML meant to exhaust a loader. */
  static String hostile(Random r) {
    StringBuilder s = new StringBuilder();
    switch (r.nextInt(10)) {
      case 0 -> {
        // billion laughs: each level nine aliases of the one before
        s.append("lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        int levels = 2 + r.nextInt(9);
        for (int k = 1; k <= levels; k++) {
          s.append("lol").append(k).append(": &l").append(k).append(" [");
          for (int a = 0; a < 9; a++) {
            s.append(a == 0 ? "" : ", ").append("*l").append(k - 1);
          }
          s.append("]\n");
        }
      }
      case 1 -> {
        int depth = r.nextBoolean() ? 1 + r.nextInt(100) : 10_000 + r.nextInt(90_000);
        s.append("deep: ").append("[".repeat(depth)).append("x").append("]".repeat(r.nextBoolean() ? depth : 0));
      }
      case 2 -> {
        int depth = 1 + r.nextInt(r.nextBoolean() ? 100 : 3000);
        s.append("deep:\n");
        for (int k = 1; k <= depth; k++) {
          s.append(" ".repeat(k)).append("- \n");
        }
      }
      case 3 -> s.append("description: ").append("x".repeat(r.nextBoolean() ? 100_000 : 4_200_000));
      case 4 -> s.append("a: &a [*a]\nb: &b {k: *b}");
      case 5 -> s.append("base: &base {id: cpu9, model: X, cores: 1, numa_node: 9, memory_bandwidth: \"1 GB/s\"}\n"
          + "more: {<<: *base, <<: [*base, *base]}");
      case 6 -> s.append("? [complex, key]\n: value\n? {a: b}\n: c");
      case 7 -> s.append("---\nname: second\n...\n%YAML 1.2\n---\n");
      case 8 -> s.append("many:\n").append("  - {id: g, x: [1, 2, 3]}\n".repeat(1 + r.nextInt(50_000)));
      default -> s.append("\t").append("name: !!python/object:os.system x\n\u0000\uFEFF");
    }
    return s.toString();
  }

  @Override
  public String run(byte[] input) throws Throwable {
    Files.write(file, input);
    try {
      NodeLoader.load(file);
      return "loaded";
    } catch (NodeFileException e) {
      FuzzTarget.oneLine(e.getMessage(), e);
      if (!e.getMessage().startsWith(file.toString())) {
        throw new AssertionError("the message does not name the file: " + e.getMessage(), e);
      }
      return "refused";
    }
  }

  @Override
  public void close() throws IOException {
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }
}
