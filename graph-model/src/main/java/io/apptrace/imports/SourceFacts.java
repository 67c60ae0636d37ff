package io.apptrace.imports;

import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.Note;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a source says besides its rows: the names of its processes and threads, its host, notes
 * for the trace's reader, the GPUs it describes and how its streams order. Importers state these
 * through {@link ImportAssembler}; {@link TraceEmitter} writes them.
 */
final class SourceFacts {
  private final Map<Long, StreamKind> streamKinds = new HashMap<>();
  private StreamKind defaultStreamKind = StreamKind.BLOCKING;
  private final Map<Long, String> threadNames = new HashMap<>();
  private final Map<Long, String> processNames = new HashMap<>();
  /** The pid orphan GPU work goes to, per process key (absent: the key is the pid). */
  private final Map<Long, Long> processPids = new HashMap<>();
  private final List<Note> notes = new ArrayList<>();
  /** The GPUs the source describes, by the device index its records use. */
  private final Map<Integer, DeviceInfo> devices = new TreeMap<>();
  private String hostname = "";

  static long key(long a, long b) {
    return a * 0x1_0000_0001L ^ b;
  }

  void streamKind(long proc, long stream, StreamKind kind) {
    streamKinds.put(key(proc, stream), kind);
  }

  void defaultStreamKind(StreamKind kind) {
    defaultStreamKind = kind;
  }

  /** How stream {@code stream} of process key {@code proc} orders. */
  StreamKind streamKind(long proc, long stream) {
    return streamKinds.getOrDefault(key(proc, stream), defaultStreamKind);
  }

  /** The stream handle the trace uses for a profiler stream id (0 for the legacy default stream). */
  long streamHandle(long proc, long streamId) {
    return streamKind(proc, streamId) == StreamKind.LEGACY ? 0 : handle(streamId);
  }

  /** Handles 0, 1 and 2 mean the legacy and per-thread default streams: other ids move above them. */
  static long handle(long streamId) {
    return streamId > 2 ? streamId : streamId + (1L << 32);
  }

  void threadName(long pid, long tid, String name) {
    threadNames.put(key(pid, tid), name == null ? "" : name);
  }

  /** Names a thread the source did not name. */
  void threadNameIfAbsent(long pid, long tid, String name) {
    threadNames.putIfAbsent(key(pid, tid), name);
  }

  String threadName(long pid, long tid) {
    return threadNames.getOrDefault(key(pid, tid), "");
  }

  void processName(long pid, String name) {
    processNames.put(pid, name == null ? "" : name);
  }

  String processName(long pid) {
    return processNames.getOrDefault(pid, "");
  }

  void processPid(long proc, long pid) {
    processPids.put(proc, pid);
  }

  /** The pid of process key {@code proc}. */
  long pidOf(long proc) {
    return processPids.getOrDefault(proc, proc);
  }

  private io.apptrace.proto.JobRank job;

  /** The MPI rank the environment the profiler recorded names ({@link io.apptrace.trace.JobRanks}). */
  void job(io.apptrace.proto.JobRank j) {
    job = j;
  }

  java.util.Optional<io.apptrace.proto.JobRank> job() {
    return java.util.Optional.ofNullable(job);
  }

  void hostname(String h) {
    hostname = h == null ? "" : h;
  }

  String hostname() {
    return hostname;
  }

  void note(String text, String severity) {
    notes.add(Note.newBuilder().setText(text == null ? "" : text).setSeverity(severity).build());
  }

  List<Note> notes() {
    return notes;
  }

  /** A GPU the source describes; the first description of a device index is kept. */
  void device(DeviceInfo d) {
    devices.putIfAbsent(d.getDevice(), d);
  }

  /** The GPUs the source describes, by device index. */
  Map<Integer, DeviceInfo> devices() {
    return devices;
  }
}
