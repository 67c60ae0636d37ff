package io.apptrace.graph;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.proto.EventOp;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.GraphEvent;
import io.apptrace.trace.NvtxRanges;
import io.apptrace.trace.TraceRecord;

/**
 * Records every API call of a trace in a {@link CallLog} (for the replay), with what it did: the
 * operation it issued, the CUDA graph it launched, the stream, event or device it waited for, the
 * event it recorded or waited for, or host time; and the ranges and marks the program named
 * ({@link NvtxRanges}).
 */
final class CallRecorder {
  private final CallLog calls = new CallLog();
  private final NvtxRanges nvtx;
  private final OperationTable ops;
  private final StreamOrder order;
  private final ApiNameIds apiNames;
  private final Allocations allocations;
  private final StreamWork work;
  private final GraphLaunchExpansion graphs;

  /** {@code graphs} must keep its launches for the call log ({@link GraphLaunchExpansion#forCallLog}). */
  CallRecorder(OperationTable ops, StreamOrder order, ApiNameIds apiNames, Allocations allocations, StreamWork work,
      GraphLaunchExpansion graphs) {
    this.ops = ops;
    this.order = order;
    this.apiNames = apiNames;
    this.allocations = allocations;
    this.work = work;
    this.graphs = graphs;
    nvtx = new NvtxRanges(
        r -> calls.addRange(new CallLog.Range(ops.threadId(r.pid(), r.tid()), r.name(), r.domain(), r.startNs(),
            r.endNs())),
        m -> calls.addMark(new CallLog.Mark(ops.threadId(m.pid(), m.tid()), m.name(), m.domain(), m.ns())));
  }

  /**
   * Notes the call of event {@code ev}, just processed ({@code opsBefore}: the operations before
   * it), and hands it to the NVTX ranges.
   */
  void record(ProcessState p, GraphEvent ev, int opsBefore) {
    logCall(p, ev, opsBefore);
    annotate(ev);
  }

  /** Closes the ranges still open; before the operation table is finished (a range may name a thread of its own). */
  void finishRanges() {
    nvtx.finish();
  }

  /** The call log, trimmed; the recorder cannot be used afterwards. */
  CallLog finish() {
    calls.trim();
    return calls;
  }

  /** Hands the event to the NVTX ranges: an annotation, a profiler call, or the time a thread was last seen. */
  private void annotate(GraphEvent ev) {
    GraphEvent.Call c = ev.call();
    if (ev instanceof GraphEvent.Other o && o.record().event().hasAnnotation()) {
      nvtx.annotation(c.pid(), c.tid(), c.entryNs(), o.record().event().getAnnotation());
      return;
    }
    int profiler = NvtxRanges.profilerCall(c.api(), c.otherName());
    if (profiler != 0 && c.ok()) {
      nvtx.profiler(c.pid(), c.tid(), c.entryNs(), c.exitNs(), profiler > 0);
    } else {
      nvtx.seen(c.pid(), c.tid(), c.exitNs());
    }
  }

  /** Notes an API call in the call log: what it issued, waited for or recorded. */
  private void logCall(ProcessState p, GraphEvent ev, int opsBefore) {
    int before = calls.size();
    logCallBody(p, ev, opsBefore);
    GraphEvent.Call c = ev.call();
    if (calls.size() > before && (c.cpuEntryNs() != 0 || c.cpuExitNs() != 0 || c.collectorNs() != 0)) {
      calls.cpuTimes(c.cpuEntryNs(), c.cpuExitNs(), c.collectorNs());
    }
  }

  private void logCallBody(ProcessState p, GraphEvent ev, int opsBefore) {
    GraphEvent.Call c = ev.call();
    if (ev instanceof GraphEvent.Other o && o.record().event().hasMpi()) {
      // an MPI call is host time of its thread: a job's replay puts its communication there
      calls.add(ops.threadId(c.pid(), c.tid()), CallLog.Type.HOST, c.entryNs(), c.durationNs(), -1, -1,
          ops.nameId(ApiNames.mpi(o.record().event().getMpi().getOp())), 0);
      return;
    }
    if (ev instanceof GraphEvent.Other o && o.record().event().hasNccl()) {
      // so is an NCCL call: what it runs on its stream is the communication a job's replay prices
      calls.add(ops.threadId(c.pid(), c.tid()), CallLog.Type.HOST, c.entryNs(), c.durationNs(), -1, -1,
          ops.nameId(ApiNames.nccl(o.record().event().getNccl().getOp())), 0);
      return;
    }
    if (c.api() == Api.API_UNSPECIFIED_VALUE && c.otherName().isEmpty()) {
      return; // not a runtime call (host allocations, process and thread records)
    }
    int thread = ops.threadId(c.pid(), c.tid());
    int name = apiNames.of(c);
    long entry = c.entryNs();
    long dur = c.durationNs();
    int graphLaunch = graphs.takeLaunch();
    if (graphLaunch >= 0) {
      calls.add(thread, CallLog.Type.GRAPH_LAUNCH, entry, dur, graphLaunch,
          callStream(c.pid(), graphs.launchStream()), name);
      return;
    }
    if (ops.size() > opsBefore) {
      calls.add(thread, CallLog.Type.OP, entry, dur, ops.size() - 1, callStream(c.pid(), work.lastStream()), name);
      return;
    }
    boolean ok = c.ok();
    if (ok && ev instanceof GraphEvent.Other o && o.record().event().hasSync()) {
      logWait(p, o.record(), thread, name);
      return;
    }
    if (ok && ev instanceof GraphEvent.Other o && o.record().event().hasEvent()
        && o.record().event().getEvent().getCaptureId() == 0) { // a captured one is a graph's node
      EventOp eo = o.record().event().getEvent();
      String fn = c.function();
      if (StreamOrder.isEventRecord(fn)) {
        calls.add(thread, CallLog.Type.EVENT_RECORD, entry, dur,
            callStream(c.pid(), order.streamOf(p, c.tid(), c.api(), eo.getStream())), eventId(p, eo.getEvent()), name);
        return;
      }
      if (StreamOrder.isStreamWait(fn)) {
        calls.add(thread, CallLog.Type.STREAM_WAIT_EVENT, entry, dur,
            callStream(c.pid(), order.streamOf(p, c.tid(), c.api(), eo.getStream())), eventId(p, eo.getEvent()), name);
        return;
      }
    }
    if (ok && c.api() == Api.cudaFree_VALUE) { // cudaFree waits for the device to be idle
      calls.add(thread, CallLog.Type.SYNC_DEVICE, entry, dur, order.device(c.pid(), c.tid()), -1, name);
      return;
    }
    long size = 0;
    if (ok && ev instanceof GraphEvent.Other o && o.record().event().hasAlloc()) {
      size = o.record().event().getAlloc().getBytes();
    } else if (ok && ev instanceof GraphEvent.Other o && o.record().event().hasFree()) {
      size = allocations.lastFreedBytes();
    }
    calls.add(thread, CallLog.Type.HOST, entry, dur, -1, -1, name, size);
  }

  /** Notes a synchronization call in the call log. */
  private void logWait(ProcessState p, TraceRecord r, int thread, int name) {
    Event e = r.event();
    long entry = e.getEntryNs();
    long dur = e.getDurationNs();
    switch (e.getSync().getScope()) {
      case STREAM_SCOPE -> calls.add(thread, CallLog.Type.SYNC_STREAM, entry, dur,
          callStream(r.pid(), order.streamOf(p, r.tid(), e.getApiValue(), e.getSync().getStream())), -1, name);
      case EVENT_SCOPE -> calls.add(thread, CallLog.Type.SYNC_EVENT, entry, dur, eventId(p, e.getSync().getEvent()),
          -1, name);
      case DEVICE_SCOPE -> calls.add(thread, CallLog.Type.SYNC_DEVICE, entry, dur, order.device(r.pid(), r.tid()), -1,
          name);
      case UNKNOWN_STREAM_SCOPE -> calls.add(thread, CallLog.Type.SYNC_SOME_STREAMS, entry, dur,
          order.device(r.pid(), r.tid()), -1, name);
      default -> calls.add(thread, CallLog.Type.HOST, entry, dur, -1, -1, name);
    }
  }

  /** The call log's index of stream {@code s}, added on its first call. */
  private int callStream(int pid, HappensBefore.Stream s) {
    if (s.callLogId < 0) {
      s.callLogId = calls.addStream(new CallLog.Stream(pid, s.device, s.legacy, s.blocking, s.perThread,
          s.handle));
    }
    return s.callLogId;
  }

  /** The call log's id of event {@code handle} of {@code p}, numbered on its first call. */
  private int eventId(ProcessState p, long handle) {
    int id = p.eventIds.get(handle, -1);
    if (id < 0) {
      id = calls.newEvent();
      p.eventIds.put(handle, id);
    }
    return id;
  }
}
