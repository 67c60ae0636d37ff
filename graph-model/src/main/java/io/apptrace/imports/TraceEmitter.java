package io.apptrace.imports;

import io.apptrace.proto.Annotation;
import io.apptrace.proto.AnnotationKind;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.ClockDomain;
import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.Event;
import io.apptrace.proto.EventOp;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.Note;
import io.apptrace.proto.ProcessStart;
import io.apptrace.proto.SetDevice;
import io.apptrace.proto.StreamOp;
import io.apptrace.proto.Sync;
import io.apptrace.proto.SyncScope;
import io.apptrace.proto.ThreadStart;
import io.apptrace.trace.ApiNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes the joined rows as the trace's events, thread by thread in time order, in batches: per
 * process a ProcessStart, the notes, a DeviceInfo per GPU its work ran on and a StreamOp creating
 * each stream it uses; per thread a ThreadStart, then each call with what it did (the body of its
 * GPU operation, followed by the operation's GpuActivity; or what it synchronized with), a
 * SetDevice where the device changes, and its NVTX annotations among its calls. A call that begins
 * before the previous call of its thread ended starts when that one ended: the replay runs a
 * thread's calls one after the other.
 */
final class TraceEmitter {
  /** Events in a batch. */
  private static final int BATCH_EVENTS = 4096;

  private final SourceFacts facts;
  private final Strings strings;
  private final ImportWarnings warnings;
  private final Emitted em = new Emitted();
  private final Map<Long, ProcOut> procs = new HashMap<>();

  TraceEmitter(SourceFacts facts, Strings strings, ImportWarnings warnings) {
    this.facts = facts;
    this.strings = strings;
    this.warnings = warnings;
  }

  /** What {@link #emit} wrote. */
  static final class Emitted {
    long calls;
    long kernels;
    long memcpys;
    long memsets;
    long syncs;
    /** Call records that were a second record of a call, merged into it. */
    long duplicateCalls;
    /** Calls that began before the previous call of their thread ended, moved to its end. */
    long overlapping;
    /** Synchronization records joined to the call they belong to. */
    long syncRecords;
    long orphans;
    /** Calls added to carry a call's second and later GPU operations (graph launches). */
    long extras;
    /** Annotations that open a range, and marks. */
    long ranges;
    long marks;
    long events;
    final Set<Long> threads = new HashSet<>();
    final Set<Long> processes = new HashSet<>();
  }

  /** One host thread's batch under construction. */
  private static final class ThreadOut {
    final int pid;
    final int tid;
    long batchSeq;
    Batch.Builder batch = Batch.newBuilder();
    long device;
    /** When the thread's last call ended: calls run one after the other on a thread. */
    long lastEnd = Long.MIN_VALUE;
    /** When the thread's last call began, as written. */
    long lastStart = Long.MIN_VALUE;

    ThreadOut(int pid, int tid) {
      this.pid = pid;
      this.tid = tid;
      batch.setPid(pid).setTid(tid).setSeq(0);
    }
  }

  /** Per process: the kernels already introduced. */
  private static final class ProcOut {
    final Set<Long> kernels = new HashSet<>();
  }

  /** Writes every row of {@code joined} to {@code out}. */
  Emitted emit(JoinedRows joined, BatchPipe out) throws IOException {
    ThreadOut t = null;
    ProcOut p = null;
    long lastPid = Long.MIN_VALUE;
    JoinedRow row = new JoinedRow();
    try (RecordSorter.Cursor j = joined.sorted()) {
      while (j.next()) {
        row.read(j, 0);
        int pid = (int) row.pid();
        int tid = (int) row.tid();
        if (t == null || t.pid != pid || t.tid != tid) {
          if (t != null) {
            flush(t, out);
          }
          t = new ThreadOut(pid, tid);
          em.threads.add(SourceFacts.key(pid, tid));
          long start = row.startNs();
          if (pid != lastPid && !em.processes.contains((long) pid)) {
            start = joined.firstOf(pid, start); // the process's records precede all its calls
          }
          if (pid != lastPid) {
            lastPid = pid;
            p = procs.computeIfAbsent((long) pid, k -> new ProcOut());
            if (em.processes.add((long) pid)) {
              processStart(t, out, joined, start);
            }
          }
          add(t, out, Event.newBuilder().setEntryNs(start).setThreadStart(ThreadStart.newBuilder().setTid(tid)
              .setName(facts.threadName(pid, tid)).setMainThread(pid == tid)));
        }
        emitRow(row, t, p, out);
      }
      if (t != null) {
        flush(t, out);
      }
    }
    return em;
  }

  /** A process's first events: who it is, the notes, its GPUs, and every stream it uses. */
  private void processStart(ThreadOut t, BatchPipe out, JoinedRows joined, long start) throws IOException {
    int pid = t.pid;
    String name = facts.processName(pid);
    ProcessStart.Builder ps = ProcessStart.newBuilder().setPid(pid).setClock(ClockDomain.CLOCK_IMPORTED)
        .setExecutable(name).setHostname(facts.hostname()).setCollectorVersion("apptrace-import");
    if (!name.isEmpty()) {
      ps.addArgv(name);
    }
    add(t, out, Event.newBuilder().setEntryNs(start).setProcessStart(ps));
    for (Note n : facts.notes()) {
      add(t, out, Event.newBuilder().setEntryNs(start).setNote(n));
    }
    for (DeviceInfo d : devicesOf(joined, pid)) {
      add(t, out, Event.newBuilder().setEntryNs(start).setDeviceInfo(d));
    }
    // every stream the process uses, created before the first call of any of its threads
    for (Map.Entry<Long, Long> st : new TreeMap<>(joined.streamsOf(pid)).entrySet()) {
      StreamKind kind = facts.streamKind(st.getValue(), st.getKey());
      if (kind != StreamKind.LEGACY) {
        add(t, out, Event.newBuilder().setEntryNs(start).setStream(StreamOp.newBuilder()
            .setStream(SourceFacts.handle(st.getKey())).setFlags(kind == StreamKind.NON_BLOCKING ? 1 : 0)));
      }
    }
  }

  /** The GPUs described for process {@code pid}: those its work ran on, or all for a process without GPU work. */
  private List<DeviceInfo> devicesOf(JoinedRows joined, long pid) {
    Map<Integer, DeviceInfo> devices = facts.devices();
    Set<Long> used = joined.devicesOf(pid);
    if (used == null || used.isEmpty()) {
      return List.copyOf(devices.values());
    }
    List<DeviceInfo> out = new ArrayList<>();
    for (long d : new TreeSet<>(used)) {
      DeviceInfo info = devices.get((int) d);
      if (info != null) {
        out.add(info);
      } else if (!devices.isEmpty()) {
        warnings.warn("GPUs that GPU work ran on but the source does not describe (per process)");
      }
    }
    return out;
  }

  private void add(ThreadOut t, BatchPipe out, Event.Builder e) throws IOException {
    em.events++;
    t.batch.addEvents(e);
    if (t.batch.getEventsCount() >= BATCH_EVENTS) {
      flush(t, out);
    }
  }

  private static void flush(ThreadOut t, BatchPipe out) throws IOException {
    if (t.batch.getEventsCount() == 0) {
      return;
    }
    out.put(t.batch.build());
    t.batchSeq++;
    t.batch = Batch.newBuilder().setPid(t.pid).setTid(t.tid).setSeq(t.batchSeq);
  }

  /** A SetDevice where the thread's device changes. */
  private void device(ThreadOut t, BatchPipe out, long device, long start) throws IOException {
    if (device >= 0 && device != t.device) {
      t.device = device;
      add(t, out, Event.newBuilder().setEntryNs(start).setSetDevice(SetDevice.newBuilder().setDevice((int) device)));
    }
  }

  private void emitRow(JoinedRow row, ThreadOut t, ProcOut p, BatchPipe out) throws IOException {
    if (row.role() == JoinedRow.ANNOTATION) {
      annotation(row, t, out);
      return;
    }
    if (row.startNs() < t.lastEnd) {
      // a call inside the previous one (clock rounding, or a profiler that nests records): the
      // replay runs a thread's calls one after the other, so it starts when that one ended
      if (row.role() == JoinedRow.CALL) {
        em.overlapping++;
      }
      long end = row.startNs() + row.durationNs();
      row.startNs(t.lastEnd);
      row.durationNs(Math.max(0, end - t.lastEnd));
    }
    t.lastEnd = row.startNs() + row.durationNs();
    t.lastStart = row.startNs();
    long start = row.startNs();
    String fn = strings.get(row.nameId());
    Event.Builder e = Event.newBuilder().setEntryNs(start).setDurationNs(row.durationNs())
        .setResult((int) row.result());
    Api api = ApiNames.forName(fn);
    e.setApi(api);
    if (api == Api.API_OTHER) {
      e.setApiName(fn);
    }
    long corr = row.corr();
    if (corr != 0) {
      e.setCorrelationId(corr);
    }
    GpuActivity.Builder ga = null;
    if (row.hasGpu()) {
      ga = gpuBody(row, e, fn, t, p, out);
    } else {
      syncBody(row, e, fn, t, out);
    }
    if (row.role() == JoinedRow.CALL) {
      em.calls++;
    }
    add(t, out, e);
    if (ga != null) {
      add(t, out, Event.newBuilder().setEntryNs(start).setGpu(ga));
    }
  }

  /**
   * An NVTX annotation, at its time; but just after the call written before it when that call was
   * moved past it (above), so that the thread's events stay in time order and the call stays on
   * the side of the annotation where it began (inside a range it began in, outside one it began
   * before).
   */
  private void annotation(JoinedRow row, ThreadOut t, BatchPipe out) throws IOException {
    AnnotationRow a = row.annotation();
    AnnotationKind kind = AnnotationKind.forNumber(a.kind());
    Annotation.Builder b = Annotation.newBuilder().setKind(kind).setMessage(strings.get(row.nameId()))
        .setDomain(strings.get(a.domainId())).setRangeId(a.rangeId()).setCategory((int) a.category());
    if (kind == AnnotationKind.RANGE_START || kind == AnnotationKind.RANGE_PUSH) {
      em.ranges++;
    } else if (kind == AnnotationKind.MARK) {
      em.marks++;
    }
    long at = row.startNs() < t.lastStart ? t.lastStart + 1 : row.startNs();
    add(t, out, Event.newBuilder().setEntryNs(at).setAnnotation(b));
  }

  /** The body of a call that issued GPU work, and the work's GpuActivity. */
  private GpuActivity.Builder gpuBody(JoinedRow row, Event.Builder e, String fn, ThreadOut t, ProcOut p,
      BatchPipe out) throws IOException {
    GpuOpRow op = row.gpu();
    long start = row.startNs();
    device(t, out, op.device(), start);
    long stream = facts.streamHandle(row.proc(), op.stream());
    boolean async = row.role() == JoinedRow.ORPHAN || CallSemantics.async(fn);
    GpuActivityKind kind = GpuActivityKind.forNumber(op.kindNumber());
    switch (kind) {
      case GPU_MEMCPY, GPU_MEMCPY_PEER -> {
        em.memcpys++;
        e.setCopy(GpuOpBodies.copy(op, stream, async));
      }
      case GPU_MEMSET -> {
        em.memsets++;
        e.setMemset(GpuOpBodies.memset(op, stream, async));
      }
      case GPU_KERNEL -> {
        em.kernels++;
        if (p.kernels.add(GpuOpBodies.kernelId(op))) {
          add(t, out, Event.newBuilder().setEntryNs(start).setKernelInfo(GpuOpBodies.kernelInfo(op, strings)));
        }
        e.setLaunch(GpuOpBodies.launch(op, stream));
      }
      default -> warnings.warn("GPU records of an unknown kind (ignored)");
    }
    GpuActivity.Builder ga = GpuOpBodies.activity(op, row.corr(), strings);
    if (row.role() == JoinedRow.ORPHAN) {
      em.orphans++;
    } else if (row.role() == JoinedRow.EXTRA) {
      em.extras++;
    }
    return ga;
  }

  /** The body of a call that issued no GPU work: what it synchronized with, if anything. */
  private void syncBody(JoinedRow row, Event.Builder e, String fn, ThreadOut t, BatchPipe out) throws IOException {
    CallSemantics sem = CallSemantics.of(fn);
    if (sem == CallSemantics.NONE) {
      return;
    }
    long start = row.startNs();
    long proc = row.proc();
    SyncRow s = row.sync();
    boolean given = s.type() != 0;
    if (given) {
      device(t, out, s.device(), start);
    }
    switch (sem) {
      case DEVICE_SYNC -> {
        em.syncs++;
        e.setSync(Sync.newBuilder().setScope(SyncScope.DEVICE_SCOPE).setDevice((int) t.device));
      }
      case STREAM_SYNC -> {
        em.syncs++;
        if (given && s.stream() >= 0) {
          e.setSync(Sync.newBuilder().setScope(SyncScope.STREAM_SCOPE).setStream(facts.streamHandle(proc,
              s.stream())).setDevice((int) t.device));
        } else {
          warnings.warn("stream synchronizations whose stream the source does not give (the replay infers it"
              + " from the measured times)");
          e.setSync(Sync.newBuilder().setScope(SyncScope.UNKNOWN_STREAM_SCOPE).setDevice((int) t.device));
        }
      }
      case EVENT_SYNC -> {
        em.syncs++;
        if (given && s.event() != 0) {
          e.setSync(Sync.newBuilder().setScope(SyncScope.EVENT_SCOPE).setEvent(s.event()).setDevice((int) t.device));
        } else if (given && s.waitStream() >= 0) {
          e.setSync(Sync.newBuilder().setScope(SyncScope.STREAM_SCOPE).setStream(facts.streamHandle(proc,
              s.waitStream())).setDevice((int) t.device));
        } else if (!given) {
          warnings.warn("event synchronizations the source says nothing more of (the replay infers the stream"
              + " from the measured times)");
          e.setSync(Sync.newBuilder().setScope(SyncScope.UNKNOWN_STREAM_SCOPE).setDevice((int) t.device));
        }
        // else: the source says the event was never recorded; the call waits for nothing
      }
      case STREAM_WAIT -> {
        if (given && s.stream() >= 0 && s.event() != 0) {
          em.syncs++;
          e.setEvent(EventOp.newBuilder().setEvent(s.event()).setStream(facts.streamHandle(proc, s.stream())));
        } else {
          warnings.warn("stream waits on an event whose stream or record the source does not give (ignored)");
        }
      }
      case EVENT_RECORD -> {
        EventRecordRow r = row.record();
        if (r.stream() >= 0 && r.event() != 0) {
          device(t, out, r.device(), start);
          e.setEvent(EventOp.newBuilder().setEvent(r.event()).setStream(facts.streamHandle(proc, r.stream())));
        }
      }
      default -> { }
    }
  }
}
