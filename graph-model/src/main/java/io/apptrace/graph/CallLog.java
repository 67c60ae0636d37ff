package io.apptrace.graph;

import io.apptrace.util.ByteList;
import io.apptrace.util.IntList;
import io.apptrace.util.LongList;
import java.util.ArrayList;
import java.util.List;

/**
 * Every API call of a trace, per host thread in issue order, with what a replay needs to know of
 * it: an operation it issued (a copy, memset or kernel of the graph), a synchronization, an event
 * recorded or waited for, or just host time. Built with the graph when asked for
 * ({@link DvdgBuilder#build(java.nio.file.Path, boolean)}).
 */
public final class CallLog {
  /** What a call does. */
  public enum Type {
    /** Issues operation {@link #a} of the graph on stream {@link #b}. */
    OP,
    /** Blocks until everything issued to stream {@link #a} is done. */
    SYNC_STREAM,
    /** Blocks until event {@link #a}'s last record is done. */
    SYNC_EVENT,
    /** Blocks until everything the process issued to device {@link #a} is done. */
    SYNC_DEVICE,
    /** Records event {@link #b} on stream {@link #a}. */
    EVENT_RECORD,
    /** Makes stream {@link #a} wait for event {@link #b}'s last record. */
    STREAM_WAIT_EVENT,
    /** Host time only (allocations, queries, anything else). */
    HOST,
    /**
     * Blocks until some streams of device {@link #a} are done: a synchronization whose stream an
     * imported trace does not name; the replay waits for the streams whose work had ended, as
     * measured, when the call returned.
     */
    SYNC_SOME_STREAMS,
    /**
     * Launches a CUDA graph on stream {@link #b}: launch {@link #a} of the graph's
     * {@link GraphLaunchTable}, whose operations it issues all at once.
     */
    GRAPH_LAUNCH
  }

  private static final Type[] TYPES = Type.values();

  /**
   * A range of a host thread's time the program named (an NVTX range: push/pop or start/end; an
   * imported trace's user annotation or profiler step; {@code cudaProfilerStart}/{@code Stop} as
   * the range "cudaProfiler").
   *
   * @param thread the thread index that opened it (as {@link #thread} numbers threads)
   * @param domain its NVTX domain, "" for the default one
   */
  public record Range(int thread, String name, String domain, long startNs, long endNs) {}

  /** An instant the program named (an NVTX mark). */
  public record Mark(int thread, String name, String domain, long ns) {}

  /** A stream as the replay sees it. */
  public record Stream(int pid, int device, boolean legacy, boolean blocking, boolean perThread, long handle) {}

  private final IntList thread = new IntList();
  private final ByteList type = new ByteList();
  private final LongList entryNs = new LongList();
  private final LongList durationNs = new LongList();
  private final IntList a = new IntList();
  private final IntList b = new IntList();
  private final IntList apiName = new IntList();
  private final LongList bytes = new LongList();
  private final LongList cpuEntry = new LongList();
  private final LongList cpuExit = new LongList();
  private final LongList collector = new LongList();
  private final List<Stream> streams = new ArrayList<>();
  private final List<Range> ranges = new ArrayList<>();
  private final List<Mark> marks = new ArrayList<>();
  private int events;

  void add(int threadIndex, Type t, long entry, long duration, int argA, int argB, int name) {
    add(threadIndex, t, entry, duration, argA, argB, name, 0);
  }

  void add(int threadIndex, Type t, long entry, long duration, int argA, int argB, int name, long size) {
    bytes.add(size);
    cpuEntry.add(0);
    cpuExit.add(0);
    collector.add(0);
    thread.add(threadIndex);
    type.add((byte) t.ordinal());
    entryNs.add(entry);
    durationNs.add(duration);
    a.add(argA);
    b.add(argB);
    apiName.add(name);
  }

  void addRange(Range r) {
    ranges.add(r);
  }

  void addMark(Mark m) {
    marks.add(m);
  }

  /** The ranges the program named, in the order they closed. */
  public List<Range> ranges() {
    return java.util.Collections.unmodifiableList(ranges);
  }

  /** The marks the program made, in time order per thread. */
  public List<Mark> marks() {
    return java.util.Collections.unmodifiableList(marks);
  }

  int addStream(Stream s) {
    streams.add(s);
    return streams.size() - 1;
  }

  int newEvent() {
    return events++;
  }

  void trim() {
    thread.trim();
    type.trim();
    entryNs.trim();
    durationNs.trim();
    a.trim();
    b.trim();
    apiName.trim();
    bytes.trim();
    cpuEntry.trim();
    cpuExit.trim();
    collector.trim();
  }

  /** Sets the last call's thread CPU times (0: not read) and the collector's time before it. */
  void cpuTimes(long entryNs, long exitNs, long collectorNs) {
    int last = size() - 1;
    cpuEntry.set(last, entryNs);
    cpuExit.set(last, exitNs);
    collector.set(last, collectorNs);
  }

  /** Wall time the collector spent on the thread between its previous call and this one, ns. */
  public long collectorNs(int call) {
    return collector.get(call);
  }

  /** The calling thread's CPU time at the call's entry, ns; 0 when the trace did not read it. */
  public long cpuEntryNs(int call) {
    return cpuEntry.get(call);
  }

  /** The calling thread's CPU time at the call's exit, ns; 0 when the trace did not read it. */
  public long cpuExitNs(int call) {
    return cpuExit.get(call);
  }

  /** Calls, all threads together in time order. */
  public int size() {
    return thread.size();
  }

  /** The thread index (as {@link OperationTable#tid} and {@link OperationTable#pid} number them). */
  public int thread(int call) {
    return thread.get(call);
  }

  public Type type(int call) {
    return TYPES[type.get(call)];
  }

  public long entryNs(int call) {
    return entryNs.get(call);
  }

  public long durationNs(int call) {
    return durationNs.get(call);
  }

  /** The first argument (see {@link Type}). */
  public int a(int call) {
    return a.get(call);
  }

  /** The second argument (see {@link Type}). */
  public int b(int call) {
    return b.get(call);
  }

  /**
   * The bytes a call allocated, freed, pinned or unpinned (a host call's; what a host-overhead
   * model prices per MiB), else 0.
   */
  public long bytes(int call) {
    return bytes.get(call);
  }

  /** The API function's name id (for {@link OperationTable#nameOf(int)}). */
  public int apiName(int call) {
    return apiName.get(call);
  }

  /** Streams, by the index calls and operations use. */
  public List<Stream> streams() {
    return List.copyOf(streams);
  }

  /** Events recorded or waited for (each handle of each process once). */
  public int eventCount() {
    return events;
  }
}
