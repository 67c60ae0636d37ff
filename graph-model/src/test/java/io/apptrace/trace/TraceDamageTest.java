package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.bench.SyntheticTrace;
import io.apptrace.imports.Importer;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.TraceHeader;
import io.apptrace.stats.TraceStats;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trace files cut short and forged (docs/RELIABILITY.md, "Hostile and broken input"). Each test
 * trace, cut at every record boundary (every batch's end and every event's end), a byte either
 * side of each, and at random offsets, reads back as exactly the events before the cut, and the
 * readers say where they stopped. Length fields that claim more than the file holds are damage,
 * found without allocating what they claim.
 */
class TraceDamageTest {
  @TempDir static Path tmp;
  /** The traces, by where they come from. */
  private static final Map<String, byte[]> TRACES = new LinkedHashMap<>();

  @BeforeAll
  static void traces() throws Exception {
    TRACES.put("two threads", TraceSamples.twoThreads(tmp.resolve("two.apptrace")));
    Path synthetic = tmp.resolve("synthetic.apptrace");
    SyntheticTrace.write(synthetic, 400);
    TRACES.put("synthetic capture", Files.readAllBytes(synthetic));
    for (String f : List.of("kineto-current.json", "kineto-older.json")) {
      Path json = tmp.resolve(f);
      try (InputStream in = TraceDamageTest.class.getResourceAsStream("/imports/" + f)) {
        Files.copy(in, json);
      }
      Path out = tmp.resolve(f + ".apptrace");
      Importer.run(json, out, Importer.Options.defaults().withTmpDir(tmp));
      TRACES.put("import of " + f, Files.readAllBytes(out));
    }
  }

  @Test
  void everyCutReadsExactlyTheEventsBeforeItAndSaysWhereItStopped() throws Exception {
    for (Map.Entry<String, byte[]> t : TRACES.entrySet()) {
      byte[] whole = t.getValue();
      TraceSamples.Layout layout = TraceSamples.layout(whole);
      Path file = tmp.resolve("whole.apptrace");
      Files.write(file, whole);
      List<TraceRecord> all = TraceReader.readAll(file).records();
      assertThat(all).as(t.getKey()).hasSize(layout.eventEnds().size());
      TreeSet<Long> cuts = new TreeSet<>();
      cuts.add(layout.headerEnd());
      for (long end : concat(layout.batchEnds(), layout.eventEnds())) {
        cuts.addAll(List.of(end - 1, end, end + 1));
      }
      Random random = new Random(7);
      for (int i = 0; i < 100; i++) {
        cuts.add(layout.headerEnd() + (long) random.nextInt((int) (whole.length - layout.headerEnd())));
      }
      for (long cut : cuts.subSet(layout.headerEnd(), true, (long) whole.length, false)) {
        cutAt(t.getKey(), whole, layout, all, cut);
      }
    }
  }

  private static List<Long> concat(List<Long> a, List<Long> b) {
    List<Long> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static void cutAt(String name, byte[] whole, TraceSamples.Layout layout, List<TraceRecord> all, long cut)
      throws Exception {
    String at = name + " cut at " + cut;
    Path part = tmp.resolve("cut.apptrace");
    Files.write(part, Arrays.copyOf(whole, (int) cut));
    int complete = (int) layout.eventEnds().stream().filter(end -> end <= cut).count();
    TraceReader.Trace t = TraceReader.readAll(part);
    assertThat(t.records()).as(at).isEqualTo(all.subList(0, complete));
    boolean onBatchBoundary = cut == layout.headerEnd() || layout.batchEnds().contains(cut);
    assertThat(t.truncation().isPresent()).as(at + ": truncation reported").isEqualTo(!onBatchBoundary);
    if (!onBatchBoundary) {
      long lastGood = complete == 0 ? layout.headerEnd() : layout.eventEnds().get(complete - 1);
      long batchStart = layout.headerEnd();
      for (long end : layout.batchEnds()) {
        batchStart = end < cut ? end : batchStart;
      }
      long stop = t.truncation().orElseThrow().byteOffset();
      // at the end of the last whole event, or past the batch's own fields (pid, tid, seq) after it
      assertThat(stop).as(at + ": where reading stopped").isBetween(Math.max(lastGood, batchStart), cut);
      if (layout.eventEnds().contains(cut)) {
        assertThat(stop).as(at + ": a cut at an event's end").isEqualTo(cut);
      }
    }
    try (TimeOrderedReader<TraceRecord> r = TimeOrderedReader.open(part)) {
      List<TraceRecord> ordered = new ArrayList<>();
      while (r.hasNext()) {
        ordered.add(r.next());
      }
      assertThat(ordered).as(at + ": in time order").hasSameSizeAs(t.records());
      TraceSamples.sameEventsPerThread(t, ordered, r.truncation());
    }
    try (TraceReader r = TraceReader.open(part)) {
      assertThat(TraceStats.compute(r).truncation()).as(at + ": apptrace stats").isEqualTo(t.truncation());
    }
  }

  /** A header and one batch whose length field says {@code claimed}, followed by {@code tail} bytes. */
  private static Path forged(long claimed, int tail) throws IOException {
    Path f = tmp.resolve("forged-" + claimed + ".apptrace");
    try (TraceWriter w = TraceWriter.create(f, TraceHeader.newBuilder().setSchemaVersion(1).build())) {
      w.writeBatch(Batch.newBuilder().setPid(1).setTid(1).addEvents(Event.newBuilder().setEntryNs(5)).build());
    }
    byte[] head = Files.readAllBytes(f);
    byte[] out = Arrays.copyOf(head, head.length + 10 + tail);
    int n = head.length;
    long v = claimed;
    while ((v & ~0x7fL) != 0) {
      out[n++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out[n++] = (byte) v;
    Files.write(f, Arrays.copyOf(out, n + tail));
    return f;
  }

  private static long allocated() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  /** Reads a forged file with both readers; returns the bytes this thread allocated doing so. */
  private static long readBoth(Path f, long expectedStop, String reason) throws Exception {
    long before = allocated();
    TraceReader.Trace t = TraceReader.readAll(f);
    try (TimeOrderedReader<TraceRecord> r = TimeOrderedReader.open(f)) {
      while (r.hasNext()) {
        r.next();
      }
      assertThat(r.truncation()).isEqualTo(t.truncation());
    }
    long used = allocated() - before;
    assertThat(t.records()).hasSize(1);
    assertThat(t.truncation()).hasValueSatisfying(s -> {
      assertThat(s.byteOffset()).isEqualTo(expectedStop);
      assertThat(s.reason()).startsWith(reason);
    });
    return used;
  }

  @Test
  void aBatchLengthOf2To31IsDamageNotAnAllocation() throws Exception {
    Path f = forged(Integer.MAX_VALUE, 3);
    long stop = Files.size(f) - 3 - 5;
    assertThat(readBoth(f, stop, "damaged record (length 2147483647)")).as("bytes allocated")
        .isLessThan(4L << 20);
  }

  @Test
  void aBatchLengthUnderTheLimitButBeyondTheFileAllocatesWhatTheFileHolds() throws Exception {
    Path f = forged(TraceFormat.MAX_BATCH_BYTES - 1, 3);
    long stop = Files.size(f) - 3; // after the length field: none of the 3 bytes is a whole field
    assertThat(readBoth(f, stop, "cut short")).as("bytes allocated").isLessThan(4L << 20);
  }

  @Test
  void anEventLengthOf2To31IsDamageNotAnAllocation() throws Exception {
    // a batch of one whole event, then an event whose length field claims 2^31-1 bytes
    Batch good = Batch.newBuilder().setPid(1).setTid(1).addEvents(Event.newBuilder().setEntryNs(5)).build();
    byte[] body = good.toByteArray();
    byte[] evil = Arrays.copyOf(body, body.length + 6);
    evil[body.length] = (byte) (Batch.EVENTS_FIELD_NUMBER << 3 | 2);
    evil[body.length + 1] = (byte) 0xff;
    evil[body.length + 2] = (byte) 0xff;
    evil[body.length + 3] = (byte) 0xff;
    evil[body.length + 4] = (byte) 0xff;
    evil[body.length + 5] = 0x07;
    Path f = tmp.resolve("evil-event.apptrace");
    try (TraceWriter w = TraceWriter.create(f, TraceHeader.newBuilder().setSchemaVersion(1).build())) {
      w.writeBatch(evil, 0, evil.length);
    }
    long before = allocated();
    TraceReader.Trace t = TraceReader.readAll(f);
    assertThat(allocated() - before).as("bytes allocated").isLessThan(4L << 20);
    assertThat(t.records()).extracting(r -> r.event().getEntryNs()).containsExactly(5L);
    long stop = Files.size(f) - 6;
    assertThat(t.truncation()).hasValueSatisfying(s -> {
      assertThat(s.byteOffset()).isEqualTo(stop);
      assertThat(s.reason()).isEqualTo("damaged record");
    });
  }

  @Test
  void aForgedBatchSequenceNumberCostsNoBitSetOfItsSize() throws Exception {
    Path f = tmp.resolve("seq.apptrace");
    try (TraceWriter w = TraceWriter.create(f, TraceHeader.newBuilder().setSchemaVersion(1).build())) {
      for (long seq : new long[] {0, Integer.MAX_VALUE - 1, -1}) { // -1: 2^64-1 as the file holds it
        w.writeBatch(Batch.newBuilder().setPid(1).setTid(1).setSeq(seq).addEvents(Event.newBuilder().setEntryNs(5))
            .build());
      }
    }
    long before = allocated();
    TraceStats stats;
    try (TraceReader r = TraceReader.open(f)) {
      stats = TraceStats.compute(r);
    }
    assertThat(allocated() - before).as("bytes allocated").isLessThan(4L << 20);
    // batches 1 to 2^31-3 are missing; the sequence number of 2^64-1 is damage, not counted
    assertThat(stats.lostBatches()).isEqualTo(Integer.MAX_VALUE - 2L);
  }

  @Test
  void aHeaderLengthBeyondTheFileIsRefusedWithoutAnAllocation() throws Exception {
    Path f = tmp.resolve("header.apptrace");
    byte[] b = {'A', 'P', 'P', 'T', 'R', 'A', 'C', 'E', (byte) 0xff, (byte) 0xff, 0x3f, 1, 2, 3};
    Files.write(f, b);
    long before = allocated();
    assertThatThrownBy(() -> TraceReader.readAll(f)).isInstanceOf(TraceException.class)
        .hasMessage(f + " has a damaged header (length 1048575 at byte 10); it holds no readable events");
    assertThat(allocated() - before).as("bytes allocated").isLessThan(4L << 20);
  }

  @Test
  void aHeaderLengthLongerThanAVarintIsRefused() throws Exception {
    Path f = tmp.resolve("varint.apptrace");
    byte[] b = Arrays.copyOf("APPTRACE".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 20);
    Arrays.fill(b, 8, 20, (byte) 0x80);
    Files.write(f, b);
    assertThatThrownBy(() -> TraceReader.readAll(f)).isInstanceOf(TraceException.class)
        .hasMessage(f + " has a damaged header (its length at byte 8 is longer than a varint); it holds no"
            + " readable events");
  }
}
