package io.apptrace.imports;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Reads the events of a Kineto trace's event array into {@link KinetoEvent}s: Jackson's streaming
 * parser, field names guessed ({@link KinetoFieldNames}), each value read as its field's type
 * ({@link KinetoValues}). Tokenizing is four fifths of a Kineto import's reading, so it runs on a
 * thread of its own, batches of events ahead of the importer ({@link ReadAhead}), behind a pull
 * API ({@link Events#next}); a parser error reaches the importer after every event before it.
 * Events of categories the importer does not use are skipped unread after their "cat".
 */
final class KinetoTokenizer {
  /** The JSON parsers' factory. */
  static final JsonFactory JSON = JsonFactory.builder().build();
  /** Events handed from the parsing thread to the reading one at a time. */
  private static final int BATCH = 512;
  /** Batches in flight between the two threads: what bounds the memory the handing over takes. */
  private static final int BATCHES = 8;

  private final Predicate<String> used;
  private final KinetoFieldNames names = new KinetoFieldNames();
  /** Ids of the pids and tids that are strings, the same in every pass over a file. */
  private final Strings idStrings = new Strings();

  /** @param used whether events of a category are read whole (a null category is) */
  KinetoTokenizer(Predicate<String> used) {
    this.used = used;
  }

  /** Parsed events; {@link #at} makes an event on first use (a small file fills a few). */
  private static final class Batch {
    final KinetoEvent[] events = new KinetoEvent[BATCH];
    int size;

    KinetoEvent at(int i) {
      KinetoEvent e = events[i];
      if (e == null) {
        e = events[i] = new KinetoEvent();
      }
      return e;
    }
  }

  /** The events of an array, one at a time, in file order. */
  final class Events implements Closeable {
    private final ReadAhead<Batch, IOException> ahead;
    private Batch batch;
    private int at;

    private Events(JsonParser p) {
      List<Batch> batches = new ArrayList<>();
      for (int i = 0; i < BATCHES; i++) {
        batches.add(new Batch());
      }
      ahead = new ReadAhead<>("apptrace-kineto-parser", batches, b -> fill(p, b));
    }

    /**
     * The next event, valid until the next call; null after the array's last.
     *
     * @throws IOException the parser's, once every event before the point it failed was given
     */
    KinetoEvent next() throws IOException {
      while (batch == null || at == batch.size) {
        if (batch != null) {
          ahead.recycle(batch);
          batch = null;
        }
        try {
          batch = ahead.next();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while reading the trace");
        }
        if (batch == null) {
          return null;
        }
        at = 0;
      }
      return batch.events[at++];
    }

    /** Stops the parsing thread (the parser is the caller's to close). */
    @Override
    public void close() {
      ahead.close();
    }
  }

  /**
   * The elements of the JSON array whose start {@code p} has just read, parsed on a thread of
   * their own; close them before the parser.
   */
  Events events(JsonParser p) {
    return new Events(p);
  }

  /** Fills a batch with the next events; false at the array's end. */
  private boolean fill(JsonParser p, Batch b) throws IOException {
    b.size = 0;
    while (nextObject(p, "traceEvents")) {
      KinetoEvent e = b.at(b.size);
      e.reset();
      fields(p, e);
      if (++b.size == BATCH) {
        return true;
      }
    }
    return false;
  }

  /**
   * Moves to the next object of the array {@code section} (elements of other kinds are skipped);
   * false at the array's end.
   */
  static boolean nextObject(JsonParser p, String section) throws IOException {
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t == null) {
        throw new EOFException("the file ends inside " + section);
      }
      if (t == JsonToken.START_OBJECT) {
        return true;
      }
      p.skipChildren();
    }
    return false;
  }

  private void fields(JsonParser p, KinetoEvent e) throws IOException {
    KinetoFieldNames.Predictor names = this.names.event();
    String k;
    while ((k = names.next(p)) != null) {
      JsonToken v = p.nextToken();
      switch (k) {
        case "ph" -> {
          e.ph = KinetoValues.text(p, v);
          names = this.names.afterPhase(names, e.ph);
        }
        case "cat" -> {
          e.cat = KinetoValues.text(p, v);
          if (e.ph != null && !"M".equals(e.ph) && !(e.cat == null || used.test(e.cat))) {
            // a CPU op, GPU-side annotation or other event the importer does not use: the rest is skipped unread
            skipRest(p);
            return;
          }
        }
        case "name" -> e.name = KinetoValues.text(p, v);
        case "pid" -> {
          e.pidNumeric = v == JsonToken.VALUE_NUMBER_INT;
          e.pid = KinetoValues.idOf(p, v, idStrings);
        }
        case "tid" -> {
          e.tidNumeric = v == JsonToken.VALUE_NUMBER_INT;
          e.tid = KinetoValues.idOf(p, v, idStrings);
        }
        case "ts" -> e.ts = KinetoValues.micros(p, v);
        case "dur" -> e.dur = KinetoValues.micros(p, v);
        case "id" -> e.id = KinetoValues.text(p, v);
        case "bp" -> e.bp = KinetoValues.text(p, v);
        case "args" -> {
          if (v == JsonToken.START_OBJECT) {
            args(p, e);
          } else {
            p.skipChildren();
          }
        }
        default -> p.skipChildren();
      }
    }
  }

  private static void skipRest(JsonParser p) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      p.nextToken();
      p.skipChildren();
    }
  }

  private void args(JsonParser p, KinetoEvent e) throws IOException {
    KinetoFieldNames.Predictor names = this.names.args(e.cat);
    String k;
    while ((k = names.next(p)) != null) {
      JsonToken v = p.nextToken();
      switch (k) {
        case "correlation" -> e.correlation = KinetoValues.integer(p, v, -1);
        case "stream" -> e.stream = KinetoValues.integer(p, v, Long.MIN_VALUE);
        case "device" -> e.device = KinetoValues.integer(p, v, -1);
        case "context" -> e.context = KinetoValues.integer(p, v, 0);
        case "graph id" -> e.graphId = Math.max(KinetoValues.integer(p, v, 0), 0);
        case "graph node id" -> e.graphNodeId = Math.max(KinetoValues.integer(p, v, 0), 0);
        case "bytes" -> e.bytes = KinetoValues.integer(p, v, -1);
        case "grid" -> e.hasGrid = KinetoValues.triple(p, v, e.grid);
        case "block" -> e.hasBlock = KinetoValues.triple(p, v, e.block);
        case "shared memory" -> {
          long shared = KinetoValues.integer(p, v, -1);
          e.hasSharedMemory = shared >= 0;
          e.sharedMemory = Math.max(shared, 0);
        }
        case "registers per thread" -> e.registers = Math.max(KinetoValues.integer(p, v, 0), 0);
        // the key of current Kineto versions, and the name it had before
        case "est. achieved occupancy %", "est. occupancy %" -> e.occupancy = KinetoValues.decimal(p, v);
        case "blocks per SM" -> e.blocksPerSm = KinetoValues.decimal(p, v);
        case "warps per SM" -> e.warpsPerSm = KinetoValues.decimal(p, v);
        case "cuda_sync_kind" -> e.syncKind = KinetoValues.text(p, v);
        case "wait_on_stream" -> e.waitOnStream = KinetoValues.integer(p, v, -1);
        case "wait_on_cuda_event_record_corr_id" -> e.waitOnRecordCorr = KinetoValues.integer(p, v, -1);
        case "wait_on_cuda_event_id" -> e.waitOnEventId = KinetoValues.integer(p, v, -1);
        case "name" -> e.metaName = KinetoValues.text(p, v);
        default -> p.skipChildren();
      }
    }
  }
}
