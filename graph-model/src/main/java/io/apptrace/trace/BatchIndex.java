package io.apptrace.trace;

import io.apptrace.proto.Event;
import io.apptrace.proto.TraceHeader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where each batch of a trace is, and the few events needed before any other: process starts,
 * module maps, kernel layouts (KernelInfo) and device variables (SymbolInfo). One sequential pass
 * that decodes only those events (see {@link BatchWalk}).
 */
final class BatchIndex {
  /** A batch: from {@code offset}, {@code length} bytes (fewer than recorded when cut short). */
  record Entry(int pid, int tid, long offset, int length, boolean complete, long firstEntryNs) {}

  private static final int[] DEFINITIONS = {
    Event.PROCESS_START_FIELD_NUMBER, Event.MODULES_FIELD_NUMBER, Event.KERNEL_INFO_FIELD_NUMBER,
    Event.SYMBOL_FIELD_NUMBER
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

  static BatchIndex build(Path path) throws IOException, TraceException {
    List<Entry> entries = new ArrayList<>();
    List<TraceRecord> definitions = new ArrayList<>();
    long[] events = {0};
    try (TraceReader r = TraceReader.open(path)) {
      TraceReader.RawBatch b;
      while ((b = r.nextRaw()) != null) {
        Walker w = new Walker(definitions);
        int good = BatchWalk.walk(b.data(), b.length(), w);
        int pid = w.pid;
        int tid = w.tid;
        long first = w.first;
        int count = w.events;
        if (!b.complete() || good < b.length() || w.events == 0) {
          // where the walk stopped early, or a batch of no events (never decoded later), the
          // parser says whether and where the file is damaged, as TraceReader does
          BatchParser.Result p = BatchParser.parse(b.data(), b.length(), b.complete());
          r.stopAt(b, p);
          if (p.events().size() > count) {
            // fields the walk does not read (groups) before events the parser does
            for (Event e : p.events().subList(count, p.events().size())) {
              if (java.util.Arrays.stream(DEFINITIONS).anyMatch(d -> d == e.getBodyCase().getNumber())) {
                definitions.add(new TraceRecord(p.pid(), p.tid(), p.seq(), e));
              }
            }
            pid = p.pid();
            tid = p.tid();
            first = p.events().get(0).getEntryNs();
            count = p.events().size();
          }
        }
        events[0] += count;
        if (count > 0) {
          entries.add(new Entry(pid, tid, b.offset(), b.length(), b.complete(), first));
        }
      }
      return new BatchIndex(r.header(), entries, definitions, r.truncation(), events[0]);
    }
  }

  /** Counts a batch's events and decodes the definitions among them. */
  private static final class Walker implements BatchWalk.Visitor {
    final List<TraceRecord> definitions;
    int pid;
    int tid;
    long seq;
    int events;
    long first;

    Walker(List<TraceRecord> definitions) {
      this.definitions = definitions;
    }

    @Override
    public void header(int pid, int tid, long seq) {
      this.pid = pid;
      this.tid = tid;
      this.seq = seq;
    }

    @Override
    public void event(byte[] data, int offset, int length) {
      if (events++ == 0) {
        first = BatchWalk.entryNs(data, offset, length);
      }
      int body = BatchWalk.bodyField(data, offset, length);
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
