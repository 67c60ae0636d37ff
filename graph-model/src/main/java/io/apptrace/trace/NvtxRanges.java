package io.apptrace.trace;

import io.apptrace.proto.Annotation;
import io.apptrace.proto.Api;
import io.apptrace.util.LongIntMap;
import io.apptrace.util.LongList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The ranges and marks a program named, from its trace's NVTX annotations and profiler calls
 * (docs/CAPTURE.md, "NVTX ranges and marks"):
 *
 * <ul>
 *   <li>a push opens a range on its thread's stack for its domain (one stack per process, thread
 *       and domain); a pop closes the innermost one, and a pop with nothing open closes nothing;
 *   <li>a start opens range {@code range_id} of its process, which an end closes on any thread (an
 *       end read before its start, from another thread's batch, closes it as soon as it opens);
 *   <li>{@code cudaProfilerStart} opens the process's range "cudaProfiler" (one at a time), from the
 *       call's entry to the exit of the {@code cudaProfilerStop} that closes it;
 *   <li>a range still open when the trace ends is closed at the last event of the thread that
 *       opened it, and counted as such ({@link Range#closedAtEnd()}).
 * </ul>
 *
 * Events of each thread must come in that thread's order; threads may interleave in any order.
 */
public final class NvtxRanges {
  /** The range {@code cudaProfilerStart}/{@code Stop} make. */
  public static final String PROFILER = "cudaProfiler";

  /**
   * A named span of a thread's time.
   *
   * @param tid the thread that opened it
   * @param domain its NVTX domain, "" for the default one
   * @param closedAtEnd it was never closed: it ends at its thread's last event
   */
  public record Range(int pid, int tid, String name, String domain, long startNs, long endNs, boolean closedAtEnd) {}

  /** A named instant. */
  public record Mark(int pid, int tid, String name, String domain, long ns) {}

  private record Open(int tid, String name, String domain, long startNs) {}

  private record StackKey(int pid, int tid, String domain) {}

  private record IdKey(int pid, long id) {}

  private final Consumer<Range> ranges;
  private final Consumer<Mark> marks;
  private final Map<StackKey, ArrayDeque<Open>> stacks = new HashMap<>();
  private final Map<IdKey, Open> started = new HashMap<>();
  /** Ends read before their start (another thread's batch came first): their times. */
  private final Map<IdKey, Long> earlyEnds = new HashMap<>();
  private final Map<Integer, Open> profiler = new HashMap<>();
  /** A process's cudaProfilerStop read before its start (another thread's batch came first). */
  private final Map<Integer, Long> earlyStops = new HashMap<>();
  /** The end of each thread's last event: a thread's index in {@link #lastEventNs}, by pid and tid. */
  private final LongIntMap threadIndex = new LongIntMap();
  private final LongList lastEventNs = new LongList();

  /** Ranges go to {@code ranges} as they close; marks to {@code marks} as they come. */
  public NvtxRanges(Consumer<Range> ranges, Consumer<Mark> marks) {
    this.ranges = ranges;
    this.marks = marks;
  }

  /** Any event of a thread that ends at {@code endNs} (where a range left open ends). */
  public void seen(int pid, int tid, long endNs) {
    long key = threadKey(pid, tid);
    int i = threadIndex.get(key, -1);
    if (i < 0) {
      threadIndex.put(key, lastEventNs.size());
      lastEventNs.add(endNs);
    } else if (endNs > lastEventNs.get(i)) {
      lastEventNs.set(i, endNs);
    }
  }

  /** An NVTX annotation the thread made at {@code ns}. */
  public void annotation(int pid, int tid, long ns, Annotation a) {
    seen(pid, tid, ns);
    switch (a.getKind()) {
      case RANGE_PUSH -> stacks.computeIfAbsent(new StackKey(pid, tid, a.getDomain()), k -> new ArrayDeque<>())
          .push(new Open(tid, a.getMessage(), a.getDomain(), ns));
      case RANGE_POP -> {
        ArrayDeque<Open> s = stacks.get(new StackKey(pid, tid, a.getDomain()));
        if (s != null && !s.isEmpty()) {
          close(pid, s.pop(), ns, false);
        }
      }
      case RANGE_START -> {
        IdKey k = new IdKey(pid, a.getRangeId());
        Open o = new Open(tid, a.getMessage(), a.getDomain(), ns);
        Long end = earlyEnds.remove(k);
        if (end != null) {
          close(pid, o, Math.max(ns, end), false);
        } else {
          started.put(k, o);
        }
      }
      case RANGE_END -> {
        IdKey k = new IdKey(pid, a.getRangeId());
        Open o = started.remove(k);
        if (o != null) {
          close(pid, o, ns, false);
        } else {
          earlyEnds.put(k, ns);
        }
      }
      case MARK -> marks.accept(new Mark(pid, tid, a.getMessage(), a.getDomain(), ns));
      default -> {
        // a kind this version does not know: nothing to pair
      }
    }
  }

  /** A successful call to {@code cudaProfilerStart} ({@code start}) or {@code cudaProfilerStop}. */
  public void profiler(int pid, int tid, long entryNs, long exitNs, boolean start) {
    seen(pid, tid, exitNs);
    if (start) {
      if (profiler.containsKey(pid)) {
        return; // already started: the profiler is one per process
      }
      Open o = new Open(tid, PROFILER, "", entryNs);
      Long stop = earlyStops.remove(pid);
      if (stop != null && stop >= entryNs) {
        close(pid, o, stop, false);
      } else {
        profiler.put(pid, o);
      }
    } else {
      Open o = profiler.remove(pid);
      if (o != null) {
        close(pid, o, exitNs, false);
      } else {
        earlyStops.put(pid, exitNs);
      }
    }
  }

  /**
   * Whether a call is one of the profiler calls {@link #profiler} takes: 1 for
   * {@code cudaProfilerStart} (or the driver's {@code cuProfilerStart}, in imported traces), -1 for
   * the stops, 0 for any other.
   */
  public static int profilerCall(int api, String otherName) {
    if (api == Api.cudaProfilerStart_VALUE) {
      return 1;
    }
    if (api == Api.cudaProfilerStop_VALUE) {
      return -1;
    }
    if (api == Api.API_OTHER_VALUE) {
      return otherName.equals("cuProfilerStart") ? 1 : otherName.equals("cuProfilerStop") ? -1 : 0;
    }
    return 0;
  }

  /** Closes every range still open at its thread's last event; call once, at the end. */
  public void finish() {
    List<Map.Entry<Integer, Open>> open = new ArrayList<>();
    stacks.forEach((k, s) -> {
      // outermost first, as they opened
      s.descendingIterator().forEachRemaining(o -> open.add(Map.entry(k.pid(), o)));
    });
    started.forEach((k, o) -> open.add(Map.entry(k.pid(), o)));
    profiler.forEach((pid, o) -> open.add(Map.entry(pid, o)));
    open.sort(java.util.Comparator.comparingLong(e -> e.getValue().startNs()));
    for (Map.Entry<Integer, Open> e : open) {
      Open o = e.getValue();
      int i = threadIndex.get(threadKey(e.getKey(), o.tid()), -1);
      long last = i < 0 ? o.startNs() : lastEventNs.get(i);
      close(e.getKey(), o, Math.max(last, o.startNs()), true);
    }
    stacks.clear();
    started.clear();
    profiler.clear();
  }

  private void close(int pid, Open o, long endNs, boolean atEnd) {
    ranges.accept(new Range(pid, o.tid(), o.name(), o.domain(), o.startNs(), Math.max(endNs, o.startNs()), atEnd));
  }

  private static long threadKey(int pid, int tid) {
    return ((long) pid << 32) | (tid & 0xffffffffL);
  }
}
