package io.apptrace.trace;

import io.apptrace.bench.SyntheticTrace;
import io.apptrace.fuzz.FuzzTarget;
import io.apptrace.fuzz.Mutator;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.imports.Importer;
import io.apptrace.stats.TraceStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The trace decoder fuzzed: {@link TraceReader}, {@link TimeOrderedReader} (with its index),
 * {@code apptrace stats} ({@link TraceStats}) and the graph build ({@link DvdgBuilder}) on damaged
 * trace files. The seeds are traces the
 * project writes: a capture-shaped synthetic trace, a trace of two threads, and the trace an import
 * of the Kineto fixture writes. Besides byte mutations, inputs have their record and event length
 * fields forged and are cut at record boundaries.
 *
 * <p>A damaged file is read up to the damage, which {@link TraceReader#truncation()} places
 * inside the file; the time-ordered reader returns the same events; a file that is not a trace is
 * refused with a one-line {@link TraceException}.
 */
public final class TraceFuzzTarget implements FuzzTarget {
  private List<byte[]> seeds;
  private final Path dir;
  private final Path file;
  private final Map<byte[], List<int[]>> lengths = new IdentityHashMap<>();

  public TraceFuzzTarget() throws IOException {
    dir = Files.createTempDirectory("apptrace-fuzz-trace-");
    file = dir.resolve("input.apptrace");
  }

  @Override
  public String name() {
    return "trace";
  }

  @Override
  public List<byte[]> seeds() throws Exception {
    if (seeds != null) {
      return seeds;
    }
    seeds = new ArrayList<>();
    Path synthetic = dir.resolve("synthetic.apptrace");
    SyntheticTrace.write(synthetic, 240);
    seeds.add(Files.readAllBytes(synthetic));
    seeds.add(TraceSamples.twoThreads(dir.resolve("two.apptrace")));
    Path json = dir.resolve("kineto.json");
    try (var in = TraceFuzzTarget.class.getResourceAsStream("/imports/kineto-current.json")) {
      Files.copy(in, json);
    }
    Path imported = dir.resolve("imported.apptrace");
    Importer.run(json, imported, Importer.Options.defaults().withTmpDir(dir));
    seeds.add(Files.readAllBytes(imported));
    for (byte[] s : seeds) {
      lengths.put(s, TraceSamples.lengthFields(s));
    }
    return seeds;
  }

  @Override
  public byte[] mutate(List<byte[]> seeds, Random r) {
    byte[] seed = seeds.get(r.nextInt(seeds.size()));
    List<int[]> fields = lengths.get(seed);
    byte[] b;
    int how = r.nextInt(10);
    if (how < 4 && fields != null && !fields.isEmpty()) {
      // a record's or an event's length field forged: offset, old width, old value
      int[] f = fields.get(r.nextInt(fields.size()));
      long claimed = switch (r.nextInt(8)) {
        case 0 -> 0;
        case 1 -> f[2] + 1L;
        case 2 -> f[2] - 1L;
        case 3 -> Integer.MAX_VALUE;
        case 4 -> TraceFormat.MAX_BATCH_BYTES;
        case 5 -> TraceFormat.MAX_BATCH_BYTES + 1L;
        case 6 -> seed.length - f[0];
        default -> r.nextLong() >>> r.nextInt(64);
      };
      b = Mutator.insert(Mutator.delete(seed, f[0], f[1]), f[0], varint(claimed));
    } else if (how < 5 && fields != null && !fields.isEmpty()) {
      // cut at a record boundary, or a byte either side of one
      int[] f = fields.get(r.nextInt(fields.size()));
      b = java.util.Arrays.copyOf(seed, Math.max(0, Math.min(seed.length, f[0] + r.nextInt(3) - 1)));
    } else {
      b = Mutator.bytes(List.of(seed), r);
    }
    if (r.nextInt(4) == 0) {
      b = Mutator.some(b, seeds, r, 3);
    }
    return b;
  }

  private static byte[] varint(long v) {
    byte[] out = new byte[10];
    int n = 0;
    while ((v & ~0x7fL) != 0) {
      out[n++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out[n++] = (byte) v;
    return java.util.Arrays.copyOf(out, n);
  }

  @Override
  public String run(byte[] input) throws Throwable {
    Files.write(file, input);
    TraceReader.Trace all;
    try {
      all = TraceReader.readAll(file);
    } catch (TraceException e) {
      FuzzTarget.oneLine(e.getMessage(), e);
      return "refused";
    }
    all.truncation().ifPresent(t -> {
      if (t.byteOffset() > input.length) {
        throw new AssertionError("truncation at " + t.byteOffset() + " is past the end of a file of " + input.length);
      }
      FuzzTarget.oneLine(t.reason(), null);
    });
    List<TraceRecord> ordered = new ArrayList<>();
    java.util.Optional<Truncation> cut;
    try (TimeOrderedReader<TraceRecord> r = TimeOrderedReader.open(file)) {
      while (r.hasNext()) {
        ordered.add(r.next());
      }
      cut = r.truncation();
      TraceSamples.sameEventsPerThread(all, ordered, cut);
    }
    // the graph's decoder, which reads most events without parsing them, reads the same events
    // and stops at the same damage
    try (TimeOrderedReader<GraphEvent> r = TimeOrderedReader.open(file, GraphEvent.DECODER)) {
      int i = 0;
      while (r.hasNext()) {
        GraphEvent g = r.next();
        TraceRecord t = i < ordered.size() ? ordered.get(i) : null;
        if (t == null || !GraphEventWireTest.same(g, GraphEvent.of(t.pid(), t.tid(), t.batchSeq(), t.event()))) {
          throw new AssertionError("event " + i + " read by the graph's decoder as " + g + ", parsed as " + t);
        }
        i++;
      }
      if (i != ordered.size() || !r.truncation().equals(cut)) {
        throw new AssertionError("the graph's decoder read " + i + " events and " + r.truncation()
            + "; parsed: " + ordered.size() + " and " + cut);
      }
    }
    try (TraceReader r = TraceReader.open(file)) {
      TraceStats.compute(r);
    }
    DvdgBuilder.build(file);
    return all.truncation().isPresent() ? "truncated" : "read";
  }

  @Override
  public void close() throws IOException {
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
