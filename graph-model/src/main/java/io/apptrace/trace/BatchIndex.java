package io.apptrace.trace;

import io.apptrace.proto.Event;
import io.apptrace.proto.TraceHeader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Where each batch of a trace is, and the few events needed before any other: process starts,
 * module maps, kernel layouts (KernelInfo), device variables (SymbolInfo) and the GPUs
 * (DeviceInfo). One sequential pass
 * that decodes only those events (see {@link BatchWalk}).
 */
final class BatchIndex {
  /** A batch: from {@code offset}, {@code length} bytes (fewer than recorded when cut short). */
  record Entry(int pid, int tid, long offset, int length, boolean complete, long firstEntryNs) {}

  private static final int[] DEFINITIONS = {
    Event.PROCESS_START_FIELD_NUMBER, Event.MODULES_FIELD_NUMBER, Event.KERNEL_INFO_FIELD_NUMBER,
    Event.SYMBOL_FIELD_NUMBER, Event.DEVICE_INFO_FIELD_NUMBER
  };

  private final TraceHeader header;
  private final List<Entry> entries;
  private final List<TraceRecord> definitions;
  private final Optional<Truncation> truncation;
  private final long eventCount;

  private BatchIndex(TraceHeader header, List<Entry> entries, List<TraceRecord> definitions,
      Optional<Truncation> truncation, long eventCount) {
    this.header = header;
    this.entries = List.copyOf(entries);
    this.definitions = List.copyOf(definitions);
    this.truncation = truncation;
    this.eventCount = eventCount;
  }

  /** Batches read ahead of the one whose walk is taken next. */
  private static final int AHEAD = 8;

  /** A batch read (into a buffer of the pool) and its walk, running on a walking thread. */
  private record Pending(TraceReader.RawBatch batch, Future<Walker> walk) {}

  /**
   * One pass over the file: this thread reads the batches, straight into buffers of a pool, and
   * two others walk them, a few batches behind (walking takes about twice as long as reading).
   * Walks are taken in file order; at the first damaged batch, the batches read past it are
   * dropped.
   */
  static BatchIndex build(Path path) throws IOException, TraceException {
    List<Entry> entries = new ArrayList<>();
    List<TraceRecord> definitions = new ArrayList<>();
    long events = 0;
    ExecutorService walking = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "apptrace-trace-index");
      t.setDaemon(true);
      return t;
    });
    ArrayDeque<byte[]> pool = new ArrayDeque<>();
    ArrayDeque<Pending> pending = new ArrayDeque<>();
    try (TraceReader r = TraceReader.open(path)) {
      boolean more = true;
      while (more || !pending.isEmpty()) {
        if (more && pending.size() < AHEAD) {
          TraceReader.RawBatch read = r.nextRaw(pool.isEmpty() ? new byte[0] : pool.poll());
          if (read == null) {
            more = false;
          } else {
            pending.add(new Pending(read, walking.submit(() -> walk(read))));
          }
          continue;
        }
        Pending p = pending.poll();
        TraceReader.RawBatch b = p.batch();
        Walker w = Futures.await(p.walk());
        int good = w.good;
        definitions.addAll(w.definitions);
        int pid = w.pid;
        int tid = w.tid;
        long first = w.first;
        int count = w.events;
        if (!b.complete() || good < b.length() || w.events == 0) {
          // where the walk stopped early, or a batch of no events (never decoded later), the
          // parser says whether and where the file is damaged, as TraceReader does
          BatchParser.Result parsed = BatchParser.parse(b.data(), b.length(), b.complete());
          r.stopAt(b, parsed);
          if (parsed.problem() != null) {
            more = false; // nothing after the damage is read
            for (Pending dropped : pending) {
              dropped.walk().cancel(false);
            }
            pending.clear();
          }
          if (parsed.events().size() > count) {
            // fields the walk does not read (groups) before events the parser does
            for (Event e : parsed.events().subList(count, parsed.events().size())) {
              if (java.util.Arrays.stream(DEFINITIONS).anyMatch(d -> d == e.getBodyCase().getNumber())) {
                definitions.add(new TraceRecord(parsed.pid(), parsed.tid(), parsed.seq(), e));
              }
            }
            pid = parsed.pid();
            tid = parsed.tid();
            first = parsed.events().get(0).getEntryNs();
            count = parsed.events().size();
          }
        }
        events += count;
        if (count > 0) {
          entries.add(new Entry(pid, tid, b.offset(), b.length(), b.complete(), first));
        }
        pool.add(b.data());
      }
      return new BatchIndex(r.header(), entries, definitions, r.truncation(), events);
    } finally {
      walking.shutdownNow();
    }
  }

  private static Walker walk(TraceReader.RawBatch b) {
    Walker w = new Walker();
    w.good = BatchWalk.walk(b.data(), b.length(), w);
    return w;
  }

  /** Counts a batch's events and decodes the definitions among them. */
  private static final class Walker implements BatchWalk.Visitor {
    /** The definitions among the batch's events, decoded. */
    final List<TraceRecord> definitions = new ArrayList<>(0);
    /** How many of the batch's bytes the walk read as well-formed. */
    int good;
    int pid;
    int tid;
    long seq;
    int events;
    long first;

    @Override
    public void header(int pid, int tid, long seq) {
      this.pid = pid;
      this.tid = tid;
      this.seq = seq;
    }

    @Override
    public void event(byte[] data, int offset, int length) {
      BatchWalk.EventFields f = new BatchWalk.EventFields(data, offset, length);
      if (events++ == 0) {
        first = f.entryNs;
      }
      int body = f.body;
      for (int d : DEFINITIONS) {
        if (body == d) {
          try {
            definitions.add(new TraceRecord(pid, tid, seq,
                Event.parseFrom(java.nio.ByteBuffer.wrap(data, offset, length))));
          } catch (IOException e) {
            // damaged: the time-ordered pass reports where the file stops being readable
          }
        }
      }
    }
  }

  TraceHeader header() {
    return header;
  }

  List<Entry> entries() {
    return entries;
  }

  List<TraceRecord> definitions() {
    return definitions;
  }

  Optional<Truncation> truncation() {
    return truncation;
  }

  long eventCount() {
    return eventCount;
  }
}
