package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.Memset;
import io.apptrace.proto.TraceHeader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writing and reading trace files, and reading files cut short or damaged. */
class TraceReaderTest {
  @TempDir Path tmp;
  private Path file;
  /** Byte offset in the file where each event ends, in order. */
  private final List<Long> eventEnds = new ArrayList<>();
  private long headerEnd;

  /** Three batches of 1, 2 and 3 memset events from two threads. */
  @BeforeEach
  void writeSample() throws IOException {
    file = tmp.resolve("sample.apptrace");
    TraceHeader h = TraceHeader.newBuilder().setSchemaVersion(1).setSourceFormat("capture").build();
    try (TraceWriter w = TraceWriter.create(file, h)) {
      headerEnd = Files.size(file);
      long offset = headerEnd;
      int counter = 0;
      for (int b = 0; b < 3; b++) {
        Batch.Builder batch = Batch.newBuilder().setPid(10).setTid(100 + b % 2).setSeq(b);
        for (int i = 0; i <= b; i++) {
          batch.addEvents(event(counter++));
        }
        Batch built = batch.build();
        byte[] bytes = built.toByteArray();
        int lenSize = com.google.protobuf.CodedOutputStream.computeUInt32SizeNoTag(bytes.length);
        // each event ends where its serialized form (tag + length + body) ends inside the batch
        long pos = offset + lenSize + headerFieldsSize(built);
        for (Event e : built.getEventsList()) {
          pos += 1 + com.google.protobuf.CodedOutputStream.computeUInt32SizeNoTag(e.getSerializedSize())
              + e.getSerializedSize();
          eventEnds.add(pos);
        }
        w.writeBatch(built);
        offset += lenSize + bytes.length;
      }
    }
  }

  private static long headerFieldsSize(Batch b) {
    return b.toBuilder().clearEvents().build().getSerializedSize();
  }

  private static Event event(int i) {
    return Event.newBuilder().setEntryNs(1000 + i).setDurationNs(5).setApi(Api.cudaMemsetAsync)
        .setMemset(Memset.newBuilder().setPtr(0x7000 + i).setBytes(64).setValue(i)).build();
  }

  @Test
  void readsEverythingBack() throws Exception {
    TraceReader.Trace t = TraceReader.readAll(file);
    assertThat(t.header().getSourceFormat()).isEqualTo("capture");
    assertThat(t.truncation()).isEmpty();
    assertThat(t.records()).hasSize(6);
    assertThat(t.records()).extracting(r -> r.event().getMemset().getValue()).containsExactly(0, 1, 2, 3, 4, 5);
    assertThat(t.records()).extracting(TraceRecord::tid).containsExactly(100, 101, 101, 100, 100, 100);
    assertThat(t.records()).extracting(TraceRecord::batchSeq).containsExactly(0L, 1L, 1L, 2L, 2L, 2L);
  }

  /** A file cut at any byte yields exactly the events that end before the cut. */
  @Test
  void cutAtEveryByteReadsEveryCompleteEventBefore() throws Exception {
    byte[] whole = Files.readAllBytes(file);
    for (int cut = (int) headerEnd; cut < whole.length; cut++) {
      Path part = tmp.resolve("cut.apptrace");
      Files.write(part, Arrays.copyOf(whole, cut));
      TraceReader.Trace t = TraceReader.readAll(part);
      final int at = cut;
      long complete = eventEnds.stream().filter(end -> end <= at).count();
      assertThat(t.records()).as("cut at %d", cut).hasSize((int) complete);
      boolean atBoundary = cut == headerEnd || isBatchEnd(cut);
      assertThat(t.truncation().isPresent()).as("truncation reported, cut at %d", cut).isEqualTo(!atBoundary);
      t.truncation().ifPresent(tr -> assertThat(tr.byteOffset()).isBetween(headerEnd, (long) at));
    }
  }

  private boolean isBatchEnd(long offset) {
    // batches end after events 1, 3 and 6
    return offset == eventEnds.get(0) || offset == eventEnds.get(2) || offset == eventEnds.get(5);
  }

  @Test
  void damagedRecordStopsThereAndKeepsWhatCameBefore() throws Exception {
    byte[] bytes = Files.readAllBytes(file);
    int damage = (int) (eventEnds.get(2) + 3); // inside the third batch's first event
    bytes[damage] = (byte) 0xff;
    bytes[damage + 1] = (byte) 0xff;
    Files.write(file, bytes);
    TraceReader.Trace t = TraceReader.readAll(file);
    assertThat(t.records().size()).isGreaterThanOrEqualTo(3).isLessThan(6);
    assertThat(t.records().subList(0, 3)).extracting(r -> r.event().getMemset().getValue()).containsExactly(0, 1, 2);
  }

  @Test
  void lengthFieldBeyondTheFileIsDamageNotAnAllocation() throws Exception {
    byte[] bytes = Files.readAllBytes(file);
    byte[] evil = Arrays.copyOf(bytes, (int) headerEnd + 5);
    // a varint claiming 2^31-1 bytes right after the header
    evil[(int) headerEnd] = (byte) 0xff;
    evil[(int) headerEnd + 1] = (byte) 0xff;
    evil[(int) headerEnd + 2] = (byte) 0xff;
    evil[(int) headerEnd + 3] = (byte) 0xff;
    evil[(int) headerEnd + 4] = (byte) 0x07;
    Files.write(file, evil);
    TraceReader.Trace t = TraceReader.readAll(file);
    assertThat(t.records()).isEmpty();
    assertThat(t.truncation()).hasValueSatisfying(tr -> {
      assertThat(tr.byteOffset()).isEqualTo(headerEnd);
      assertThat(tr.reason()).contains("damaged record");
    });
  }

  @Test
  void newerSchemaIsRefusedNamingBothVersions() throws Exception {
    Path newer = tmp.resolve("newer.apptrace");
    TraceWriter.create(newer, TraceHeader.newBuilder().setSchemaVersion(99).build()).close();
    assertThatThrownBy(() -> TraceReader.open(newer))
        .isInstanceOf(TraceException.class)
        .hasMessageContaining("schema version 99")
        .hasMessageContaining("up to " + TraceFormat.SCHEMA_VERSION);
  }

  @Test
  void notATraceSaysSoAndSuggestsImportForSqlite() throws Exception {
    Path sqlite = tmp.resolve("report.sqlite");
    Files.write(sqlite, "SQLite format 3\0....".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    assertThatThrownBy(() -> TraceReader.open(sqlite))
        .isInstanceOf(TraceException.class)
        .hasMessageContaining("is not an apptrace trace")
        .hasMessageContaining("apptrace import");
  }

  @Test
  void writerRefusesASymbolicLink() throws Exception {
    Path target = tmp.resolve("elsewhere");
    Path link = tmp.resolve("link.apptrace");
    Files.createSymbolicLink(link, target);
    assertThatThrownBy(() -> TraceWriter.create(link, TraceHeader.getDefaultInstance()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("symbolic link");
    assertThat(target).doesNotExist();
  }
}
