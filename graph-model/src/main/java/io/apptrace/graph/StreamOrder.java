package io.apptrace.graph;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.TraceRecord;

/**
 * What a process's stream, event and synchronization calls say of the order of its work
 * ({@link HappensBefore}, for races): streams created and destroyed, events recorded and waited
 * for, a host thread waiting for a stream, an event or a device.
 */
final class StreamOrder {
  /** Whether each Api value is a per-thread-default-stream variant (_ptsz, _ptds). */
  private static final boolean[] PER_THREAD_DEFAULT = perThreadDefaultTable();

  private final Processes processes;

  StreamOrder(Processes processes) {
    this.processes = processes;
  }

  private static boolean[] perThreadDefaultTable() {
    int max = 0;
    for (Api a : Api.values()) {
      if (a != Api.UNRECOGNIZED) {
        max = Math.max(max, a.getNumber());
      }
    }
    boolean[] t = new boolean[max + 1];
    for (Api a : Api.values()) {
      if (a != Api.UNRECOGNIZED && (a.name().endsWith("_ptsz") || a.name().endsWith("_ptds"))) {
        t[a.getNumber()] = true;
      }
    }
    return t;
  }

  /** Whether runtime function {@code api} is a variant whose default stream is the thread's own. */
  static boolean perThreadDefault(int api) {
    return api >= 0 && api < PER_THREAD_DEFAULT.length && PER_THREAD_DEFAULT[api];
  }

  /** cudaEventRecord and its variants, or the driver's cuEventRecord (imported traces). */
  static boolean isEventRecord(String fn) {
    return fn.startsWith("cudaEventRecord") || fn.startsWith("cuEventRecord");
  }

  static boolean isStreamWait(String fn) {
    return fn.startsWith("cudaStreamWaitEvent") || fn.startsWith("cuStreamWaitEvent");
  }

  /** The stream {@code handle} names in call {@code api} of thread {@code tid} of {@code p}. */
  HappensBefore.Stream streamOf(ProcessState p, int tid, int api, long handle) {
    return processes.thread(p.pid, tid).stream(api, handle);
  }

  /** The current device of a thread. */
  int device(int pid, int tid) {
    return processes.thread(pid, tid).device;
  }

  void stream(ProcessState p, Event e, boolean ok) {
    if (!ok) {
      return;
    }
    if (e.getApiValue() == Api.cudaStreamDestroy_VALUE) {
      p.order.destroyed(e.getStream().getStream());
    } else {
      p.order.created(e.getStream().getStream(), e.getStream().getFlags());
    }
  }

  void event(ProcessState p, TraceRecord r, Event e, boolean ok) {
    if (!ok) {
      return;
    }
    String fn = ApiNames.of(e);
    if (isEventRecord(fn)) {
      p.order.record(e.getEvent().getEvent(), streamOf(p, r.tid(), e.getApiValue(), e.getEvent().getStream()));
    } else if (isStreamWait(fn)) {
      p.order.waitEvent(streamOf(p, r.tid(), e.getApiValue(), e.getEvent().getStream()), e.getEvent().getEvent());
    }
  }

  void sync(ProcessState p, TraceRecord r, Event e) {
    long exit = e.getEntryNs() + e.getDurationNs();
    switch (e.getSync().getScope()) {
      case STREAM_SCOPE -> p.order.synchronizedWith(r.tid(), streamOf(p, r.tid(), e.getApiValue(),
          e.getSync().getStream()), exit);
      case EVENT_SCOPE -> p.order.synchronizedWithEvent(r.tid(), e.getSync().getEvent(), exit);
      case DEVICE_SCOPE -> p.order.synchronizedWithDevice(r.tid(), device(r.pid(), r.tid()), exit);
      default -> { }
    }
  }

  /** A free: cudaFree waits for the device to be idle. */
  void free(ProcessState p, TraceRecord r, Event e) {
    if (e.getApiValue() == Api.cudaFree_VALUE) {
      p.order.synchronizedWithDevice(r.tid(), device(r.pid(), r.tid()), r.event().getEntryNs() + r.event().getDurationNs());
    }
  }
}
