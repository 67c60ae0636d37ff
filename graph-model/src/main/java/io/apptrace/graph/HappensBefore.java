package io.apptrace.graph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * What is known to have happened before what, in one process: vector clocks over its streams,
 * maintained with CUDA's ordering rules. Operations in one stream run in issue order; the legacy
 * default stream waits for and blocks the blocking streams of its device; cudaEventRecord and
 * cudaStreamWaitEvent carry order across streams; a host thread that synchronized with a stream,
 * an event or the device knows that work finished, and orders all work it issues afterwards.
 * A synchronization that returned before another thread issued a call orders that call too:
 * the work was physically done by then.
 *
 * <p>An operation's position is (its stream, its sequence number in that stream); it is ordered
 * before a later operation iff the later one's clock has seen that position.
 */
final class HappensBefore {
  /** One stream of the process. */
  static final class Stream {
    final int index;
    final boolean legacy;
    final boolean blocking;
    final int device;
    int[] clock = NONE;
    /** The operation table's id for this stream on {@link #tableDevice} (-1: not looked up). */
    int tableId = -1;
    int tableDevice;
    /** A thread's per-thread default stream. */
    boolean perThread;
    /**
     * The clocks last joined into this one, {@code known} and a thread's: clocks are replaced,
     * never changed in place, and this one only grows, so joining the same array again changes
     * nothing.
     */
    int[] joinedKnown;
    int[] joinedThread;
    /** The handle it was first seen with, and its index in the call log (-1: none yet). */
    long handle;
    int callLogId = -1;

    Stream(int index, boolean legacy, boolean blocking, int device) {
      this.index = index;
      this.legacy = legacy;
      this.blocking = blocking;
      this.device = device;
    }
  }

  private static final int[] NONE = new int[0];

  private final List<Stream> streams = new ArrayList<>();
  private final io.apptrace.util.LongIntMap byHandle = new io.apptrace.util.LongIntMap();
  private final Map<Integer, Stream> legacyByDevice = new HashMap<>();
  private final Map<Integer, Stream> perThread = new HashMap<>();
  private final Map<Integer, List<Stream>> blockingByDevice = new HashMap<>();
  private final Map<Long, Boolean> nonBlockingHandles = new HashMap<>();
  /** What a host thread knows to have finished (its clock). */
  static final class ThreadClock {
    int[] clock = NONE;
  }

  /** Each host thread's clock: index by tid in {@code threadIndex}. */
  private final io.apptrace.util.LongIntMap threadIndex = new io.apptrace.util.LongIntMap();
  private final List<ThreadClock> threadClocks = new ArrayList<>();
  /** What each event handle's last cudaEventRecord captured: index by handle in {@code eventIndex}. */
  private final io.apptrace.util.LongIntMap eventIndex = new io.apptrace.util.LongIntMap();
  private final List<int[]> eventClocks = new ArrayList<>();

  private int[] eventClock(long event) {
    int i = eventIndex.get(event, -1);
    return i < 0 ? NONE : eventClocks.get(i);
  }
  /** What every thread knows once it is past a time: synchronizations by their return time. */
  private int[] known = NONE;
  /** A synchronization's return time and what it made known. */
  private record Learned(long exitNs, int[] clock) {}

  private final PriorityQueue<Learned> pending = new PriorityQueue<>((a, b) -> Long.compare(a.exitNs(), b.exitNs()));

  /** A stream created with these flags (cudaStreamNonBlocking = 1). */
  void created(long handle, int flags) {
    nonBlockingHandles.put(handle, (flags & 1) != 0);
    forget(handle);
  }

  /**
   * The streams of the handles last looked up, by a hash of the handle: threads issuing on a few
   * streams each, merged in time order, hop between streams on nearly every operation.
   */
  private final long[] recentHandles = {-1, -1, -1, -1, -1, -1, -1, -1};
  private final Stream[] recentStreams = new Stream[8];

  private static int slot(long handle) {
    return (int) ((handle * 0x9E3779B97F4A7C15L) >>> 61); // Fibonacci hashing: all bits count
  }

  private void forget(long handle) {
    int i = slot(handle);
    if (recentHandles[i] == handle) {
      recentHandles[i] = -1;
    }
  }

  /**
   * The stream an operation runs on. Handles 0 and 1 (cudaStreamLegacy) are the device's legacy
   * default stream; 2 (cudaStreamPerThread), or 0 passed to a _ptsz/_ptds function, is the
   * calling thread's per-thread default stream.
   */
  Stream stream(long handle, int device, int tid, boolean perThreadDefault) {
    int slot = slot(handle);
    if (handle > 2 && recentHandles[slot] == handle) {
      return recentStreams[slot]; // small enough to be inlined where it is called
    }
    return lookUp(handle, device, tid, perThreadDefault, slot);
  }

  private Stream lookUp(long handle, int device, int tid, boolean perThreadDefault, int slot) {
    if (handle == 2 || (handle == 0 && perThreadDefault)) {
      Stream s = perThread.get(tid);
      if (s == null) {
        s = newStream(false, true, device);
        s.perThread = true;
        s.handle = handle;
        perThread.put(tid, s);
      }
      return s;
    }
    if (handle == 0 || handle == 1) {
      Stream s = legacyByDevice.get(device);
      return s != null ? s : legacyByDevice.computeIfAbsent(device, d -> newStream(true, true, device));
    }
    int i = byHandle.get(handle, -1);
    Stream s;
    if (i < 0) {
      s = newStream(false, !nonBlockingHandles.getOrDefault(handle, false), device);
      s.handle = handle;
      byHandle.put(handle, s.index);
    } else {
      s = streams.get(i);
    }
    recentHandles[slot] = handle;
    recentStreams[slot] = s;
    return s;
  }

  private Stream newStream(boolean legacy, boolean blocking, int device) {
    Stream s = new Stream(streams.size(), legacy, blocking, device);
    streams.add(s);
    if (blocking && !legacy) {
      blockingByDevice.computeIfAbsent(device, d -> new ArrayList<>()).add(s);
    }
    return s;
  }

  /** A stream destroyed: its handle may be reused for a new stream. */
  void destroyed(long handle) {
    forget(handle);
    byHandle.put(handle, -1); // a later stream with this handle is a new stream
    nonBlockingHandles.remove(handle);
  }

  /** Thread {@code tid}'s clock (callers may keep it: it is the thread's for good). */
  ThreadClock threadClock(int tid) {
    int i = threadIndex.get(tid, -1);
    if (i < 0) {
      i = threadClocks.size();
      threadIndex.put(tid, i);
      threadClocks.add(new ThreadClock());
    }
    return threadClocks.get(i);
  }

  /**
   * Orders an operation {@code thread} issues on {@code s} at {@code entryNs} after everything
   * it must follow; returns its sequence number in {@code s}. The stream's clock, after this, is
   * what the operation has seen ({@link #seen}).
   */
  int issue(ThreadClock thread, Stream s, long entryNs) {
    prepare(thread, s, entryNs);
    s.clock = grow(s.clock, s.index + 1);
    return ++s.clock[s.index];
  }

  /**
   * What an operation issued on {@code s} now would be ordered after, joined into {@code s}'s
   * clock, without issuing one (a CUDA graph launch: its nodes start from there).
   */
  void prepare(ThreadClock thread, Stream s, long entryNs) {
    if (!pending.isEmpty()) {
      learnUntil(entryNs);
    }
    if (s.joinedKnown != known) {
      s.clock = join(s.clock, known);
      s.joinedKnown = known;
    }
    if (s.joinedThread != thread.clock) {
      s.clock = join(s.clock, thread.clock);
      s.joinedThread = thread.clock;
    }
    if (s.legacy) { // the legacy default stream waits for every blocking stream of its device
      for (Stream other : blockingByDevice.getOrDefault(s.device, List.of())) {
        s.clock = join(s.clock, other.clock);
      }
    } else if (s.blocking) { // and a blocking stream waits for the legacy default stream
      Stream legacy = legacyByDevice.get(s.device);
      if (legacy != null) {
        s.clock = join(s.clock, legacy.clock);
      }
    }
  }

  /** Whether the operation at ({@code producerStream}, {@code producerSeq}) is ordered before
   * the operation just issued on {@code consumer}. */
  boolean seen(Stream consumer, int producerStream, int producerSeq) {
    return producerStream < consumer.clock.length && consumer.clock[producerStream] >= producerSeq;
  }

  void record(long event, Stream s) {
    int[] snapshot = Arrays.copyOf(s.clock, s.clock.length);
    int i = eventIndex.get(event, -1);
    if (i < 0) {
      eventIndex.put(event, eventClocks.size());
      eventClocks.add(snapshot);
    } else {
      eventClocks.set(i, snapshot);
    }
  }

  void waitEvent(Stream s, long event) {
    s.clock = join(s.clock, eventClock(event));
  }

  /** Thread {@code tid} waited for {@code s}, returning at {@code exitNs}. */
  void synchronizedWith(int tid, Stream s, long exitNs) {
    learned(tid, s.clock, exitNs);
  }

  void synchronizedWithEvent(int tid, long event, long exitNs) {
    learned(tid, eventClock(event), exitNs);
  }

  void synchronizedWithDevice(int tid, int device, long exitNs) {
    int[] all = NONE;
    for (Stream s : streams) {
      if (s.device == device) {
        all = join(all, s.clock);
      }
    }
    learned(tid, all, exitNs);
  }

  private void learned(int tid, int[] clock, long exitNs) {
    ThreadClock t = threadClock(tid);
    t.clock = join(t.clock, clock);
    pending.add(new Learned(exitNs, Arrays.copyOf(clock, clock.length)));
  }

  /** Makes what synchronizations returned before {@code nowNs} known to every thread. */
  private void learnUntil(long nowNs) {
    while (!pending.isEmpty() && pending.peek().exitNs() <= nowNs) {
      known = join(known, pending.poll().clock());
    }
  }

  private static int[] grow(int[] c, int size) {
    return c.length >= size ? c : Arrays.copyOf(c, size);
  }

  private static int[] join(int[] a, int[] b) {
    if (b.length == 0 || a == b) {
      return a;
    }
    int[] r = grow(a, b.length);
    if (r == a && b.length <= a.length) {
      boolean changes = false;
      for (int i = 0; i < b.length && !changes; i++) {
        changes = b[i] > a[i];
      }
      if (!changes) {
        return a;
      }
      r = Arrays.copyOf(a, a.length);
    } else if (r == a) {
      r = Arrays.copyOf(a, a.length);
    }
    for (int i = 0; i < b.length; i++) {
      r[i] = Math.max(r[i], b[i]);
    }
    return r;
  }
}
