package io.apptrace.trace;

import io.apptrace.proto.Event;
import io.apptrace.proto.TraceHeader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A trace's events in the order they happened: each thread's in issue order, threads merged by
 * entry time (ties by pid, then tid). In the file, a thread's batches interleave with other
 * threads' in the order they reached the collector, which can be far from time order.
 *
 * <p>Two passes: {@link BatchIndex} reads the file once and notes where each thread's batches
 * are; then each thread's batches are read back one at a time with positional reads and merged.
 * Memory: two batches per thread (the one being read, and the next, decoded ahead on another
 * core), plus the index (a few longs per batch). The definitions the
 * index collected ({@link #definitions()}: process starts, module maps, kernel layouts, device
 * variables, GPUs) are available before the first event, since a kernel's layout may be recorded by one
 * thread after another thread's first launch of it.
 *
 * <p>Events come as {@link TraceRecord}s ({@link #open(Path)}), or as what a {@link Decoder} makes
 * of them on the decoding core ({@link #open(Path, Decoder)}).
 *
 * @param <T> what an event is read as
 */
public final class TimeOrderedReader<T> implements Closeable {
  /** Batches decoded ahead per thread. */
  private static final int PREFETCH = 2;

  /** Makes what the reader returns of one event; runs on the decoder thread. */
  @FunctionalInterface
  public interface Decoder<T> {
    T decode(int pid, int tid, long batchSeq, Event e);
  }

  /**
   * A decoder that reads some events straight from their encoding, without their {@link Event}
   * being built; the others it is given parsed.
   */
  public interface WireDecoder<T> extends Decoder<T> {
    /**
     * The event encoded in {@code data[offset, offset + length)}, or null to be given it parsed.
     * It must read an event exactly as the parser would, and leave to the parser whatever it
     * cannot (damage included); it must not throw.
     */
    T decode(int pid, int tid, long batchSeq, byte[] data, int offset, int length);

    /** The entry time of an event this decoder made. */
    long entryNs(T event);
  }

  private static final Comparator<TimeOrderedReader<?>.ThreadCursor> ORDER = (a, b) -> {
    int c = Long.compare(a.head, b.head);
    if (c == 0) {
      c = Integer.compare(a.pid, b.pid);
    }
    return c != 0 ? c : Integer.compare(a.tid, b.tid);
  };

  private final FileChannel channel;
  private final BatchIndex index;
  /** Threads not current, in a queue when there are many; few are scanned (cheaper). */
  private final PriorityQueue<ThreadCursor> heads = new PriorityQueue<>(ORDER);
  private final List<ThreadCursor> few = new ArrayList<>();
  private boolean manyThreads;
  /** Decodes each thread's next batch while the current one is consumed. */
  private final ExecutorService decoder = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "apptrace-trace-decoder");
    t.setDaemon(true);
    return t;
  });
  /** The thread being read: it stays current while its next event is the earliest. */
  private ThreadCursor current;
  /**
   * The first damage found inside an event when its batch was decoded (the index checks only how
   * events are framed, not what they hold); the rest of that batch is not read.
   */
  private Truncation damage;

  /** One thread's batches, read in turn. */
  private final class ThreadCursor {
    final int pid;
    final int tid;
    final List<BatchIndex.Entry> batches;
    int nextBatch;
    List<T> events = List.of();
    /** The entry times of {@link #events}, read on the decoder thread (fewer cache misses here). */
    long[] entries = new long[0];
    int next;
    long head;
    /** The next batches, decoding on the decoder thread (threads often run out of events together). */
    final java.util.ArrayDeque<Future<Loaded<T>>> ahead = new java.util.ArrayDeque<>();
    int queued;

    ThreadCursor(int pid, int tid, List<BatchIndex.Entry> batches) {
      this.pid = pid;
      this.tid = tid;
      this.batches = batches;
    }

    /** Moves to the next event, loading batches as needed; false when the thread is done. */
    boolean advance() throws IOException {
      next++;
      while (next >= events.size()) {
        if (nextBatch >= batches.size()) {
          return false;
        }
        Loaded<T> l = !ahead.isEmpty() ? Futures.await(ahead.poll()) : load(batches.get(nextBatch));
        events = l.records();
        entries = l.entryNs();
        if (l.damage() != null && (damage == null || l.damage().byteOffset() < damage.byteOffset())) {
          damage = l.damage();
        }
        if (queued <= nextBatch) {
          queued = nextBatch + 1;
        }
        nextBatch++;
        while (queued < batches.size() && queued < nextBatch + PREFETCH) {
          BatchIndex.Entry e = batches.get(queued++);
          ahead.add(decoder.submit(() -> load(e)));
        }
        next = 0;
      }
      head = entries[next];
      return true;
    }
  }

  private final Decoder<T> decode;

  private TimeOrderedReader(FileChannel channel, BatchIndex index, Decoder<T> decode) throws IOException {
    this.channel = channel;
    this.index = index;
    this.decode = decode;
    Map<Long, List<BatchIndex.Entry>> byThread = new LinkedHashMap<>();
    for (BatchIndex.Entry e : index.entries()) {
      byThread.computeIfAbsent(((long) e.pid() << 32) | (e.tid() & 0xffffffffL), k -> new ArrayList<>()).add(e);
    }
    for (List<BatchIndex.Entry> list : byThread.values()) {
      // A thread's batches never overlap in time; ordering them by their first event also puts
      // the batches of an image that exec'd (same pid and tid) before those of its successor,
      // which arrive on another connection and may be written to the file in either order.
      list.sort(Comparator.comparingLong(BatchIndex.Entry::firstEntryNs));
      ThreadCursor c = new ThreadCursor(list.get(0).pid(), list.get(0).tid(), list);
      c.next = -1;
      if (c.advance()) {
        few.add(c);
      }
    }
    manyThreads = few.size() > 32;
    if (manyThreads) {
      heads.addAll(few);
      few.clear();
    }
  }

  private void park(ThreadCursor c) {
    if (manyThreads) {
      heads.add(c);
    } else {
      few.add(c);
    }
  }

  /** Where in {@link #few} the last {@link #earliest} found it. */
  private int earliestAt;

  /** The earliest waiting thread, or null. */
  private ThreadCursor earliest() {
    if (manyThreads) {
      return heads.peek();
    }
    ThreadCursor best = null;
    for (int i = 0; i < few.size(); i++) {
      ThreadCursor c = few.get(i);
      if (best == null || ORDER.compare(c, best) < 0) {
        best = c;
        earliestAt = i;
      }
    }
    return best;
  }

  private ThreadCursor take(ThreadCursor c) {
    if (manyThreads) {
      return heads.poll();
    }
    few.remove(c);
    return c;
  }

  /**
   * Opens a trace and indexes it.
   *
   * @throws TraceException if the file is not a trace this apptrace reads
   * @throws IOException if the file cannot be read
   */
  public static TimeOrderedReader<TraceRecord> open(Path path) throws IOException, TraceException {
    return open(path, TraceRecord::new);
  }

  /**
   * Opens a trace and indexes it; its events are read as {@code decode} makes them.
   *
   * @throws TraceException if the file is not a trace this apptrace reads
   * @throws IOException if the file cannot be read
   */
  public static <T> TimeOrderedReader<T> open(Path path, Decoder<T> decode) throws IOException, TraceException {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(decode, "decode");
    BatchIndex index = BatchIndex.build(path);
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    try {
      return new TimeOrderedReader<>(ch, index, decode);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  public TraceHeader header() {
    return index.header();
  }

  /**
   * Where reading stopped early (a file cut short or damaged), if it did: the first damage in the
   * file, at the offset {@link TraceReader#truncation()} gives. Damage inside an event is found
   * when its batch is decoded, so this is final once every event was read; the events of other
   * threads' batches after a damaged event are still read.
   */
  public Optional<Truncation> truncation() {
    Optional<Truncation> t = index.truncation();
    if (damage != null && (t.isEmpty() || damage.byteOffset() < t.get().byteOffset())) {
      return Optional.of(damage);
    }
    return t;
  }

  /** Events in the file: process starts, module maps, kernel layouts, device variables and GPUs. */
  public List<TraceRecord> definitions() {
    return index.definitions();
  }

  /** Events in the file, all threads together. */
  public long eventCount() {
    return index.eventCount();
  }

  public boolean hasNext() {
    return current != null || !heads.isEmpty() || !few.isEmpty();
  }

  /** The next event in time order. */
  public T next() throws IOException {
    // Threads' events come in runs: the current thread goes on while it is still the earliest,
    // without a queue operation per event.
    ThreadCursor waiting = earliest();
    if (current == null || (waiting != null && ORDER.compare(current, waiting) > 0)) {
      if (waiting == null) {
        throw new NoSuchElementException("no more events");
      }
      if (current != null && !manyThreads) {
        few.set(earliestAt, current); // the two trade places (the order of few is free)
        current = waiting;
      } else {
        if (current != null) {
          park(current);
        }
        current = take(waiting);
      }
    }
    T r = current.events.get(current.next);
    if (!current.advance()) {
      current = null;
    }
    return r;
  }

  /** A decoded batch: its records and their entry times, and where it is damaged (or null). */
  private record Loaded<T>(List<T> records, long[] entryNs, Truncation damage) {}

  /**
   * A buffer and spans per thread that loads batches (the decoder, and this reader's caller for
   * the first batches): what a batch decodes to never refers to them, so they serve every batch.
   */
  private static final class Scratch {
    ByteBuffer buf = ByteBuffer.allocate(0);
    final Spans spans = new Spans();
  }

  private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

  private Loaded<T> load(BatchIndex.Entry e) throws IOException {
    Scratch sc = scratch.get();
    if (sc.buf.capacity() < e.length()) {
      sc.buf = ByteBuffer.allocate(Math.max(e.length(), sc.buf.capacity() * 2));
    }
    ByteBuffer buf = sc.buf.clear().limit(e.length());
    long pos = e.offset();
    while (buf.hasRemaining()) {
      int n = channel.read(buf, pos);
      if (n < 0) {
        break;
      }
      pos += n;
    }
    if (decode instanceof WireDecoder<T> wire && e.complete()) {
      Loaded<T> l = loadWire(wire, buf.array(), buf.position(), sc.spans);
      if (l != null) {
        return l;
      }
    }
    BatchParser.Result r = BatchParser.parse(buf.array(), buf.position(), e.complete());
    List<T> out = new ArrayList<>(r.events().size());
    long[] entries = new long[r.events().size()];
    for (Event ev : r.events()) {
      entries[out.size()] = ev.getEntryNs();
      out.add(decode.decode(r.pid(), r.tid(), r.seq(), ev));
    }
    Truncation damage = r.problem() == null ? null
        : new Truncation(e.offset() + r.goodBytes(), e.complete() ? "damaged record" : "cut short");
    return new Loaded<>(out, entries, damage);
  }

  /** Where a batch's events are, and its header (a walk's visitor). */
  private static final class Spans implements BatchWalk.Visitor {
    int pid;
    int tid;
    long seq;
    int count;
    int[] offsets = new int[2048];
    int[] lengths = new int[2048];

    @Override
    public void header(int pid, int tid, long seq) {}

    @Override
    public void event(byte[] data, int offset, int length) {
      if (count == offsets.length) {
        offsets = java.util.Arrays.copyOf(offsets, count * 2);
        lengths = java.util.Arrays.copyOf(lengths, count * 2);
      }
      offsets[count] = offset;
      lengths[count++] = length;
    }

    @Override
    public void end(int pid, int tid, long seq) {
      this.pid = pid;
      this.tid = tid;
      this.seq = seq;
    }
  }

  /**
   * Decodes a whole batch with a wire decoder; null when the batch is damaged anywhere, for the
   * parser to say where (see {@link BatchParser}).
   */
  private Loaded<T> loadWire(WireDecoder<T> wire, byte[] data, int length, Spans s) {
    s.count = 0;
    if (BatchWalk.walk(data, length, s) < length) {
      return null;
    }
    List<T> out = new ArrayList<>(s.count);
    long[] entries = new long[s.count];
    for (int i = 0; i < s.count; i++) {
      T t = wire.decode(s.pid, s.tid, s.seq, data, s.offsets[i], s.lengths[i]);
      if (t == null) {
        try {
          t = wire.decode(s.pid, s.tid, s.seq, Event.parser().parseFrom(data, s.offsets[i], s.lengths[i]));
        } catch (com.google.protobuf.InvalidProtocolBufferException damaged) {
          return null;
        }
      }
      entries[i] = wire.entryNs(t);
      out.add(t);
    }
    return new Loaded<>(out, entries, null);
  }

  @Override
  public void close() throws IOException {
    decoder.shutdownNow();
    channel.close();
  }
}
