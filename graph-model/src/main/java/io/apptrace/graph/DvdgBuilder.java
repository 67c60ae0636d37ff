package io.apptrace.graph;

import io.apptrace.proto.Alloc;
import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.proto.EventOp;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.Module;
import io.apptrace.proto.Prefetch;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.Copies;
import io.apptrace.trace.Direction;
import io.apptrace.trace.GraphEvent;
import io.apptrace.trace.NvtxRanges;
import io.apptrace.trace.KernelNames;
import io.apptrace.trace.SourceGpu;
import io.apptrace.trace.TimeOrderedReader;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceRecord;
import io.apptrace.util.IntRows;
import io.apptrace.util.LongIntMap;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a {@link Dvdg} from a trace's events, which must come in time order (each thread's in
 * issue order, see {@link TimeOrderedReader}). Feed {@link #define} the trace's definitions
 * first, then every event to {@link #add}, then call {@link #build()} once.
 */
public final class DvdgBuilder {
  private final OperationTable ops = new OperationTable();
  private final ValueTable values = new ValueTable();
  private final List<Allocation> allocations = new ArrayList<>();
  private final Map<Integer, Proc> procs = new HashMap<>();
  private final List<Race> races = new ArrayList<>();
  private final Warnings warnings = new Warnings();
  private final KernelCoverage kernels = new KernelCoverage();
  /** Per operation: its stream's index in its process, and its number in that stream. */
  private final IntRows opOrder = new IntRows(2);
  /** The values one operation reads, as its reads find them (reused). */
  private final WriteMap.Reads reads = new WriteMap.Reads();

  /** A launch's accesses (reused from launch to launch). */
  private final List<KernelAccesses.Access> launchAccesses = new ArrayList<>();

  /** The allocation a launch's argument points into: the launching thread's device first. */
  private static final class LaunchResolver implements KernelAccesses.Resolver {
    HostThread thread;
    int device;

    @Override
    public Allocation resolve(long address) {
      AddressSpaces spaces = thread.proc.spaces;
      Allocation a = spaces.device(address, device, thread.allocations);
      return a != null ? a : spaces.host(address);
    }
  }

  private final LaunchResolver launchResolver = new LaunchResolver();
  /** Name ids of runtime functions, by Api number (-1: not looked up yet). */
  private final int[] apiNames = new int[1024];
  private final TraceHeader header;
  private boolean built;

  /** One process while its events are read. */
  private static final class Proc {
    final int pid;
    final AddressSpaces spaces = new AddressSpaces();
    final HappensBefore order = new HappensBefore();
    final Map<Long, KernelInfo> kernels = new HashMap<>();
    final Map<Long, Integer> kernelNames = new HashMap<>();
    final Map<Long, KernelAccesses.Layout> layouts = new HashMap<>();
    final LongIntMap byCorrelation = new LongIntMap();
    /** Call-log ids of event handles. */
    final LongIntMap eventIds = new LongIntMap();
    final List<Module> modules = new ArrayList<>();
    /** The GPUs its trace describes, by device index. */
    final Map<Integer, SourceGpu> gpus = new java.util.TreeMap<>();
    /** Pointers copied into device variables (cudaMemcpyToSymbol). */
    final SymbolPointers symbolPointers = new SymbolPointers();
    /** Its executable CUDA graphs. */
    final GraphExecutables graphs = new GraphExecutables();

    Proc(int pid) {
      this.pid = pid;
    }
  }

  /**
   * One host thread while its events are read: what its calls look up every time. Threads'
   * events interleave in time order, often one by one, so this is kept per thread, not as "the
   * last one".
   */
  private static final class HostThread {
    final int pid;
    final int tid;
    final Proc proc;
    /** The operation table's id for this thread (-1: no operation yet). */
    int tableId = -1;
    /** The current device (cudaSetDevice), 0 until set. */
    int device;
    /** The allocations it used last. */
    final AddressSpaces.Mine allocations = new AddressSpaces.Mine();
    /** What it knows to have finished ({@link HappensBefore}), looked up on its first operation. */
    HappensBefore.ThreadClock clock;
    /** The kernel it launched last, with its name id and parameter layout (info null: none). */
    long kernelId;
    KernelInfo kernel;
    int kernelName;
    KernelAccesses.Layout layout;

    /** The operation table's ids of its recent call sites, by a hash of the address (id -1: none). */
    final long[] siteAddresses = new long[8];
    final int[] siteIds = {-1, -1, -1, -1, -1, -1, -1, -1};

    HostThread(int pid, int tid, Proc proc) {
      this.pid = pid;
      this.tid = tid;
      this.proc = proc;
    }
  }

  /** The operation table's id of a call site of thread {@code t}. */
  private int callSite(HostThread t, long address) {
    int slot = (int) ((address * 0x9E3779B97F4A7C15L) >>> 61);
    if (t.siteIds[slot] < 0 || t.siteAddresses[slot] != address) {
      t.siteAddresses[slot] = address;
      t.siteIds[slot] = ops.callSiteId(t.pid, address);
    }
    return t.siteIds[slot];
  }

  private final Map<Long, HostThread> threads = new HashMap<>();
  /** The threads last looked up, by a hash of pid and tid. */
  private final HostThread[] recentThreads = new HostThread[16];

  private HostThread thread(int pid, int tid) {
    long key = ((long) pid << 32) | (tid & 0xffffffffL);
    int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 60); // Fibonacci hashing: all bits count
    HostThread t = recentThreads[slot];
    return t != null && t.tid == tid && t.pid == pid ? t : lookUpThread(pid, tid, key, slot);
  }

  private HostThread lookUpThread(int pid, int tid, long key, int slot) {
    HostThread t = threads.get(key);
    if (t == null) {
      t = new HostThread(pid, tid, proc(pid));
      threads.put(key, t);
    }
    recentThreads[slot] = t;
    return t;
  }

  public DvdgBuilder(TraceHeader header) {
    this.header = header;
    this.imported = isImported(header);
    java.util.Arrays.fill(apiNames, -1);
  }

  /** The trace came from another profiler (apptrace import): its copies carry no addresses. */
  private final boolean imported;

  /** Whether a trace was imported from another profiler's format (it then has no addresses). */
  public static boolean isImported(TraceHeader h) {
    String f = h.getSourceFormat();
    return !f.isEmpty() && !f.equals("capture");
  }

  private CallLog calls;
  /** The stream of the last operation begun (for the call log). */
  private HappensBefore.Stream lastOpStream;

  /** The program's NVTX ranges and marks, and its profiler range, for the call log. */
  private NvtxRanges nvtx;

  /** Keeps every API call in a {@link CallLog} too (for the replay), with the ranges the program named. */
  public void recordCalls() {
    if (calls == null) {
      calls = new CallLog();
      nvtx = new NvtxRanges(
          r -> calls.addRange(new CallLog.Range(ops.threadId(r.pid(), r.tid()), r.name(), r.domain(), r.startNs(),
              r.endNs())),
          m -> calls.addMark(new CallLog.Mark(ops.threadId(m.pid(), m.tid()), m.name(), m.domain(), m.ns())));
    }
  }

  /** Reads a trace file and builds its graph. */
  public static Dvdg build(Path trace) throws IOException, TraceException {
    return build(trace, false);
  }

  /** Reads a trace file and builds its graph, with its {@link CallLog} when {@code withCalls}. */
  public static Dvdg build(Path trace, boolean withCalls) throws IOException, TraceException {
    try (TimeOrderedReader<GraphEvent> r = TimeOrderedReader.open(trace, GraphEvent.DECODER)) {
      DvdgBuilder b = new DvdgBuilder(r.header());
      if (withCalls) {
        b.recordCalls();
      }
      r.definitions().forEach(b::define);
      b.tiling.from(new FootprintTiling.Events() {
        @Override
        public boolean hasNext() {
          return r.hasNext();
        }

        @Override
        public GraphEvent next() throws IOException {
          return r.next();
        }
      });
      try {
        while (b.tiling.hasNext()) {
          b.process(b.tiling.next());
        }
      } catch (java.io.UncheckedIOException e) {
        throw e.getCause(); // read ahead for the slices rule
      }
      Dvdg g = b.build();
      return r.truncation().map(g::truncated).orElse(g);
    }
  }

  /** A record that must be known before events are processed (kernel layouts, modules, GPUs). */
  public void define(TraceRecord r) {
    Proc p = proc(r.pid());
    Event e = r.event();
    if (e.hasKernelInfo()) {
      p.kernels.put(e.getKernelInfo().getKernelId(), e.getKernelInfo());
    } else if (e.hasModules()) {
      p.modules.addAll(e.getModules().getModulesList());
    } else if (e.hasDeviceInfo() && e.getDeviceInfo().getDevice() >= 0) {
      // a forked child's trace repeats its parent's: the first record of a device stands
      p.gpus.putIfAbsent(e.getDeviceInfo().getDevice(), SourceGpu.of(e.getDeviceInfo()));
    }
  }

  private int lastPid = -1;
  private Proc lastProc;

  private Proc proc(int pid) {
    if (pid != lastPid) {
      lastProc = procs.computeIfAbsent(pid, Proc::new);
      lastPid = pid;
    }
    return lastProc;
  }

  /** The events read ahead of the one processed, which the slices rule looks into. */
  private final FootprintTiling tiling = new FootprintTiling();
  private final KernelFootprints footprints = new KernelFootprints(ops, values, tiling,
      (pid, id) -> layout(proc(pid), id));

  /** What the kernels' code says of their pointers (none for imported traces: no arguments). */
  private final KernelCode code = new KernelCode(kernels);

  /**
   * The parameter layout of kernel {@code id} of process {@code p}, with what its code says of
   * each parameter; null when its parameters were not recorded.
   */
  private KernelAccesses.Layout layout(Proc p, long id) {
    KernelAccesses.Layout l = p.layouts.get(id);
    if (l == null) {
      KernelInfo info = p.kernels.get(id);
      if (info == null) {
        return null;
      }
      PtxParamUse.Uses uses = imported ? null : code.of(p.pid, p.modules, info, KernelNames.of(info));
      l = new KernelAccesses.Layout(info, uses);
      p.layouts.put(id, l);
    }
    return l;
  }

  /**
   * The next event, in time order. Events given one by one have no lookahead: the slices rule
   * ({@link FootprintTiling}) sees no later launch; {@link #build(Path)} gives it one.
   */
  public void add(GraphEvent ev) {
    process(ev);
  }

  private void process(GraphEvent ev) {
    GraphEvent.Call c = ev.call();
    if (c.tid() == 0) {
      return; // the collector's own records
    }
    HostThread t = thread(c.pid(), c.tid());
    Proc p = t.proc;
    int opsBefore = ops.size();
    // the kinds of nearly every event first, each read from its own small record
    if (ev instanceof GraphEvent.CopyCall k) {
      if (succeeded(c)) {
        copy(t, c, k);
      }
    } else if (ev instanceof GraphEvent.LaunchCall l) {
      if (succeeded(c)) {
        launch(t, c, l);
      }
    } else if (ev instanceof GraphEvent.MemsetCall m) {
      if (succeeded(c)) {
        memset(t, c, m);
      }
    } else if (ev instanceof GraphEvent.GpuSpan g) {
      int op = p.byCorrelation.get(g.gpuCorrelationId(), -1);
      if (op >= 0) {
        ops.gpuTimes(op, g.startNs(), g.endNs());
        if (g.resources() != null) {
          ops.resources(op, g.resources());
        }
      }
    } else if (((GraphEvent.Other) ev).record().event().hasGraphLaunch()) {
      if (succeeded(c)) {
        graphLaunch(t, c, ((GraphEvent.Other) ev).record().event().getGraphLaunch());
      }
    } else if (((GraphEvent.Other) ev).record().event().hasPrefetch()) {
      if (succeeded(c)) {
        prefetch(t, c, ((GraphEvent.Other) ev).record().event().getPrefetch());
      }
    } else {
      other(p, ((GraphEvent.Other) ev).record());
    }
    if (calls != null) {
      logCall(p, ev, opsBefore);
      annotate(ev);
    }
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

  /** An event other than an operation or its GPU times. */
  private void other(Proc p, TraceRecord r) {
    Event e = r.event();
    boolean ok = e.getResult() == 0;
    switch (e.getBodyCase()) {
      case SET_DEVICE -> {
        if (ok) {
          thread(r.pid(), r.tid()).device = e.getSetDevice().getDevice();
        }
      }
      case KERNEL_INFO -> p.kernels.putIfAbsent(e.getKernelInfo().getKernelId(), e.getKernelInfo());
      case ALLOC -> {
        if (ok && e.getAlloc().getCaptureId() == 0) { // a captured one is a graph's alloc node
          alloc(r.pid(), p, e);
        }
      }
      case FREE -> {
        if (ok && e.getFree().getCaptureId() == 0) {
          free(p, r, e);
        }
      }
      case SYMBOL -> symbol(r.pid(), p, e);
      case GRAPH_EXEC -> {
        if (ok) {
          p.graphs.accept(e.getGraphExec());
        }
      }
      case STREAM -> stream(p, e, ok);
      case EVENT -> event(p, r, e, ok && e.getEvent().getCaptureId() == 0);
      case SYNC -> {
        if (ok) {
          sync(p, r, e);
        }
      }
      default -> {
        // process and thread starts, modules and the like change nothing in the graph
      }
    }
  }

  /** Notes an API call in the call log: what it issued, waited for or recorded. */
  /** The bytes the last free released (for the call log: a host-overhead model prices unpinning per MiB). */
  private long lastFreedBytes;

  private void logCall(Proc p, GraphEvent ev, int opsBefore) {
    int before = calls.size();
    logCallBody(p, ev, opsBefore);
    GraphEvent.Call c = ev.call();
    if (calls.size() > before && (c.cpuEntryNs() != 0 || c.cpuExitNs() != 0 || c.collectorNs() != 0)) {
      calls.cpuTimes(c.cpuEntryNs(), c.cpuExitNs(), c.collectorNs());
    }
  }

  private void logCallBody(Proc p, GraphEvent ev, int opsBefore) {
    GraphEvent.Call c = ev.call();
    if (ev instanceof GraphEvent.Other o && o.record().event().hasMpi()) {
      // an MPI call is host time of its thread: a job's replay puts its communication there
      calls.add(ops.threadId(c.pid(), c.tid()), CallLog.Type.HOST, c.entryNs(), c.durationNs(), -1, -1,
          ops.nameId(ApiNames.mpi(o.record().event().getMpi().getOp())), 0);
      return;
    }
    if (c.api() == Api.API_UNSPECIFIED_VALUE && c.otherName().isEmpty()) {
      return; // not a runtime call (host allocations, process and thread records)
    }
    int thread = ops.threadId(c.pid(), c.tid());
    int name = apiName(c);
    long entry = c.entryNs();
    long dur = c.durationNs();
    if (pendingGraphLaunch >= 0) {
      calls.add(thread, CallLog.Type.GRAPH_LAUNCH, entry, dur, pendingGraphLaunch,
          callStream(c.pid(), pendingGraphStream), name);
      pendingGraphLaunch = -1;
      return;
    }
    if (ops.size() > opsBefore) {
      calls.add(thread, CallLog.Type.OP, entry, dur, ops.size() - 1, callStream(c.pid(), lastOpStream), name);
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
      if (isEventRecord(fn)) {
        calls.add(thread, CallLog.Type.EVENT_RECORD, entry, dur,
            callStream(c.pid(), streamOf(p, c.tid(), c.api(), eo.getStream())), eventId(p, eo.getEvent()), name);
        return;
      }
      if (isStreamWait(fn)) {
        calls.add(thread, CallLog.Type.STREAM_WAIT_EVENT, entry, dur,
            callStream(c.pid(), streamOf(p, c.tid(), c.api(), eo.getStream())), eventId(p, eo.getEvent()), name);
        return;
      }
    }
    if (ok && c.api() == Api.cudaFree_VALUE) { // cudaFree waits for the device to be idle
      calls.add(thread, CallLog.Type.SYNC_DEVICE, entry, dur, device(c.pid(), c.tid()), -1, name);
      return;
    }
    long size = 0;
    if (ok && ev instanceof GraphEvent.Other o && o.record().event().hasAlloc()) {
      size = o.record().event().getAlloc().getBytes();
    } else if (ok && ev instanceof GraphEvent.Other o && o.record().event().hasFree()) {
      size = lastFreedBytes;
    }
    calls.add(thread, CallLog.Type.HOST, entry, dur, -1, -1, name, size);
  }

  /** Notes a synchronization call in the call log. */
  private void logWait(Proc p, TraceRecord r, int thread, int name) {
    Event e = r.event();
    long entry = e.getEntryNs();
    long dur = e.getDurationNs();
    switch (e.getSync().getScope()) {
      case STREAM_SCOPE -> calls.add(thread, CallLog.Type.SYNC_STREAM, entry, dur,
          callStream(r.pid(), streamOf(p, r.tid(), e.getApiValue(), e.getSync().getStream())), -1, name);
      case EVENT_SCOPE -> calls.add(thread, CallLog.Type.SYNC_EVENT, entry, dur, eventId(p, e.getSync().getEvent()),
          -1, name);
      case DEVICE_SCOPE -> calls.add(thread, CallLog.Type.SYNC_DEVICE, entry, dur, device(r.pid(), r.tid()), -1, name);
      case UNKNOWN_STREAM_SCOPE -> calls.add(thread, CallLog.Type.SYNC_SOME_STREAMS, entry, dur, device(r.pid(), r.tid()),
          -1, name);
      default -> calls.add(thread, CallLog.Type.HOST, entry, dur, -1, -1, name);
    }
  }

  /** cudaEventRecord and its variants, or the driver's cuEventRecord (imported traces). */
  private static boolean isEventRecord(String fn) {
    return fn.startsWith("cudaEventRecord") || fn.startsWith("cuEventRecord");
  }

  private static boolean isStreamWait(String fn) {
    return fn.startsWith("cudaStreamWaitEvent") || fn.startsWith("cuStreamWaitEvent");
  }

  private int callStream(int pid, HappensBefore.Stream s) {
    if (s.callLogId < 0) {
      s.callLogId = calls.addStream(new CallLog.Stream(pid, s.device, s.legacy, s.blocking, s.perThread,
          s.handle));
    }
    return s.callLogId;
  }

  private int eventId(Proc p, long handle) {
    int id = p.eventIds.get(handle, -1);
    if (id < 0) {
      id = calls.newEvent();
      p.eventIds.put(handle, id);
    }
    return id;
  }

  /** Whether an operation's call succeeded; a failed one is counted, not drawn. */
  private boolean succeeded(GraphEvent.Call c) {
    if (!c.ok()) {
      warnings.add("failed call, not in the graph", c.function() + " in thread " + c.tid());
    }
    return c.ok();
  }

  private int device(int pid, int tid) {
    return thread(pid, tid).device;
  }

  // ---- memory ----

  private Allocation newAllocation(int pid, MemoryKind kind, int device, long start, long bytes,
      boolean implicit, String label) {
    Allocation a = new Allocation(allocations.size(), pid, kind, device, start, bytes, implicit, label);
    allocations.add(a);
    return a;
  }

  private static boolean hostKind(MemoryKind k) {
    return !Copies.onDevice(k);
  }

  private void alloc(int pid, Proc p, Event e) {
    Alloc a = e.getAlloc();
    if (a.getPtr() == 0 || a.getKind() == MemoryKind.ARRAY) {
      return;
    }
    if (a.getPreviousPtr() != 0) {
      p.spaces.remove(a.getKind(), a.getPreviousPtr());
    }
    int device = hostKind(a.getKind()) ? -1 : Math.max(a.getDevice(), 0);
    String label = !a.getHostFunction().isEmpty() ? a.getHostFunction() : ApiNames.of(e);
    Allocation added = newAllocation(pid, a.getKind(), device, a.getPtr(), a.getBytes(), false, label);
    if (a.hasNumaNode() && device < 0) {
      added.numaNode = a.getNumaNode();
    }
    p.spaces.add(added);
  }

  private void free(Proc p, TraceRecord r, Event e) {
    long ptr = e.getFree().getPtr();
    MemoryKind kind = e.getFree().getKind();
    java.util.Optional<Allocation> freed = ptr == 0 ? java.util.Optional.empty() : p.spaces.remove(kind, ptr);
    lastFreedBytes = freed.map(Allocation::bytes).orElse(0L);
    if (ptr != 0 && freed.isEmpty() && kind != MemoryKind.PAGEABLE
        && kind != MemoryKind.ARRAY) {
      warnings.add("free of an unknown pointer", ApiNames.of(e) + "(0x" + Long.toHexString(ptr) + ")");
    }
    if (e.getApiValue() == Api.cudaFree_VALUE) { // cudaFree waits for the device to be idle
      p.order.synchronizedWithDevice(r.tid(), device(r.pid(), r.tid()), r.event().getEntryNs() + r.event().getDurationNs());
    }
  }

  private void symbol(int pid, Proc p, Event e) {
    long dev = e.getSymbol().getDeviceAddress();
    if (dev != 0 && p.spaces.device(dev, 0) == null) {
      p.spaces.add(newAllocation(pid, MemoryKind.DEVICE, 0, dev, e.getSymbol().getBytes(), false,
          e.getSymbol().getName()));
    }
  }

  /**
   * The allocation holding {@code address}; where none does, an implicit region of the accessed
   * range (on the host: memory the program had without a recorded allocation, such as a stack
   * array; on a device: memory allocated out of apptrace's sight, which is warned about).
   * {@code known}, when not null, is what {@link AddressSpaces#any} gave for {@code address} just
   * before: a recorded allocation there is the answer, without a second lookup (an implicit one
   * may have been replaced since).
   */
  private Allocation at(int pid, Proc p, long address, long bytes, boolean onDevice, int device,
      String what, Allocation known) {
    Allocation found;
    if (known != null && !known.implicit() && (!onDevice || AddressSpaces.deviceSide(known))) {
      found = known;
    } else {
      found = onDevice ? p.spaces.device(address, device) : p.spaces.any(address, device);
    }
    if (found != null && (!found.implicit() || found.device() >= 0
        || address + Math.max(bytes, 1) <= found.start() + found.bytes())) {
      return found;
    }
    if (onDevice) {
      warnings.add(what + " an unknown device address", "0x" + Long.toHexString(address));
      Allocation a = newAllocation(pid, MemoryKind.DEVICE, device, address, bytes, true, "");
      p.spaces.add(a);
      return a;
    }
    // a wider access replaces the implicit host regions it covers, keeping what was written there
    long start = address;
    long end = address + Math.max(bytes, 1);
    List<Allocation> replaced = new ArrayList<>();
    for (var r : p.spaces.hostOverlapping(address, bytes)) {
      if (r.value().implicit()) {
        start = Math.min(start, r.start());
        end = Math.max(end, r.end());
        replaced.add(r.value());
      }
    }
    Allocation a = newAllocation(pid, MemoryKind.PAGEABLE, -1, start, end - start, true, "");
    for (Allocation old : replaced) {
      p.spaces.removeHost(old.start());
      long shift = old.start() - start;
      old.writes.forEach((from, to, v) -> a.writes.write(shift + from, to - from, v));
    }
    p.spaces.add(a);
    return a;
  }

  // ---- ordering ----

  /** Whether each Api value is a per-thread-default-stream variant (_ptsz, _ptds). */
  private static final boolean[] PER_THREAD_DEFAULT = perThreadDefaultTable();

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

  private static boolean perThreadDefault(int api) {
    return api >= 0 && api < PER_THREAD_DEFAULT.length && PER_THREAD_DEFAULT[api];
  }

  private int apiName(GraphEvent.Call c) {
    int api = c.api();
    boolean cacheable = api > Api.API_OTHER_VALUE && api < apiNames.length;
    if (cacheable && apiNames[api] >= 0) {
      return apiNames[api];
    }
    int id = ops.nameId(c.function());
    if (cacheable) {
      apiNames[api] = id;
    }
    return id;
  }

  private HappensBefore.Stream streamOf(Proc p, int tid, int api, long handle) {
    return streamOf(thread(p.pid, tid), api, handle);
  }

  private static HappensBefore.Stream streamOf(HostThread t, int api, long handle) {
    return t.proc.order.stream(handle, t.device, t.tid, perThreadDefault(api));
  }

  private void stream(Proc p, Event e, boolean ok) {
    if (!ok) {
      return;
    }
    if (e.getApiValue() == Api.cudaStreamDestroy_VALUE) {
      p.order.destroyed(e.getStream().getStream());
    } else {
      p.order.created(e.getStream().getStream(), e.getStream().getFlags());
    }
  }

  private void event(Proc p, TraceRecord r, Event e, boolean ok) {
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

  private void sync(Proc p, TraceRecord r, Event e) {
    long exit = e.getEntryNs() + e.getDurationNs();
    switch (e.getSync().getScope()) {
      case STREAM_SCOPE -> p.order.synchronizedWith(r.tid(), streamOf(p, r.tid(), e.getApiValue(),
          e.getSync().getStream()), exit);
      case EVENT_SCOPE -> p.order.synchronizedWithEvent(r.tid(), e.getSync().getEvent(), exit);
      case DEVICE_SCOPE -> p.order.synchronizedWithDevice(r.tid(), device(r.pid(), r.tid()), exit);
      default -> { }
    }
  }

  // ---- operations ----

  /** Starts an operation on a stream; returns its id. */
  private int begin(HostThread t, GraphEvent.Call c, OpKind kind, int name, long handle, int device,
      long bytes, HappensBefore.Stream s) {
    Proc p = t.proc;
    if (t.tableId < 0) {
      t.tableId = ops.threadId(c.pid(), c.tid());
    }
    int thread = t.tableId;
    if (s.tableId < 0 || s.tableDevice != device) {
      s.tableId = ops.streamId(c.pid(), handle, device);
      s.tableDevice = device;
    }
    int op = ops.begin(kind, c.api(), name, thread, s.tableId,
        c.entryNs(), c.durationNs(), bytes, callSite(t, c.callSite()));
    int row = opOrder.addRow();
    int[] order = opOrder.chunk(row);
    int at = opOrder.base(row);
    order[at] = s.index;
    lastOpStream = s;
    if (t.clock == null) {
      t.clock = p.order.threadClock(c.tid());
    }
    order[at + 1] = p.order.issue(t.clock, s, c.entryNs());
    if (c.correlationId() != 0) {
      p.byCorrelation.put(c.correlationId(), op);
    }
    return op;
  }

  /**
   * Adds the values that last wrote {@code [offset, offset + bytes)} of {@code a} as inputs, each
   * with the bytes of the range it supplied; bytes never written come from the allocation's
   * initial value when its contents matter (host memory, managed memory, device symbols).
   */
  private void read(Proc p, int op, HappensBefore.Stream s, Allocation a, long offset, long bytes, Confidence c) {
    WriteMap.Reads in = reads;
    int before = in.size;
    boolean gap = a.writes.read(offset, bytes, in);
    if (gap && a.initialContentsMatter()) {
      if (a.initialValue < 0) {
        a.initialValue = values.add(a.id(), true, 0, a.bytes(), -1);
      }
      long wanted = Math.min(a.bytes(), offset + Math.max(bytes, 1)) - Math.max(offset, 0);
      long written = 0;
      for (int i = before; i < in.size; i++) {
        written += in.bytes[i];
      }
      in.add(a.initialValue, Math.max(wanted - written, 0));
    }
    int[] found = in.values;
    for (int i = before; i < in.size; i++) {
      int v = found[i];
      if (seenInput(before, i, v)) {
        continue;
      }
      long read = in.bytes[i];
      for (int j = i + 1; j < in.size; j++) { // a value split into several ranges
        if (found[j] == v) {
          read += in.bytes[j];
        }
      }
      ops.input(v, c, read);
      int producer = values.producer(v);
      if (producer >= 0) {
        int[] order = opOrder.chunk(producer);
        int at = opOrder.base(producer);
        if (order[at] != s.index && !p.order.seen(s, order[at], order[at + 1])) {
          races.add(Race.between(ops, producer, op, v, c));
        }
      }
    }
  }

  private boolean seenInput(int from, int at, int v) {
    int[] found = reads.values;
    for (int i = from; i < at; i++) {
      if (found[i] == v) {
        return true;
      }
    }
    return false;
  }

  /** A new version of {@code a} covering {@code [offset, offset + bytes)}, produced by {@code op}. */
  private void write(int op, Allocation a, long offset, long bytes, Confidence c) {
    long len = Math.max(1, Math.min(bytes, a.bytes() - offset));
    a.versions++;
    int v = values.add(a.id(), false, offset, len, op);
    a.writes.write(offset, len, v);
    ops.output(v, c);
  }

  private static int deviceOf(int given, int current) {
    return given >= 0 ? given : current;
  }

  /**
   * The source of a copy in an imported trace, which has no addresses: a value of its own (what
   * the program had there is unknown), read whole.
   */
  private void endpointRead(int pid, int op, MemoryKind kind, int device, long bytes) {
    Allocation a = newAllocation(pid, kind, device, 0, bytes, true, "");
    a.initialValue = values.add(a.id(), true, 0, a.bytes(), -1);
    ops.input(a.initialValue, Confidence.EXACT, bytes);
  }

  /** The destination of a copy or memset in an imported trace: a new value of its own. */
  private void endpointWrite(int pid, int op, MemoryKind kind, int device, long bytes) {
    Allocation a = newAllocation(pid, kind, device, 0, bytes, true, "");
    write(op, a, 0, bytes, Confidence.EXACT);
  }

  /** Bytes a copy or memset spans in memory: rows at their pitch for 2D and 3D. */
  private static long span(long bytes, int dims, long pitch, long width, long height, long depth) {
    if (dims == 2 && pitch > 0) {
      return pitch * Math.max(height - 1, 0) + width;
    }
    if (dims == 3 && pitch > 0) {
      return pitch * Math.max(height, 1) * Math.max(depth, 1);
    }
    return bytes;
  }

  private void copy(HostThread t, GraphEvent.Call call, GraphEvent.CopyCall c) {
    Proc p = t.proc;
    int pid = call.pid();
    int dev = t.device;
    Allocation srcAt = p.spaces.any(c.src(), c.srcDevice() >= 0 ? c.srcDevice() : dev, t.allocations);
    Allocation dstAt = p.spaces.any(c.dst(), c.dstDevice() >= 0 ? c.dstDevice() : dev, t.allocations);
    MemoryKind srcFound = srcAt != null ? srcAt.kind() : MemoryKind.MEMORY_KIND_UNSPECIFIED;
    MemoryKind dstFound = dstAt != null ? dstAt.kind() : MemoryKind.MEMORY_KIND_UNSPECIFIED;
    Copies.Classified k = Copies.classify(call.api(), c.kindResolved(), c.srcKind(), c.dstKind(), c.srcDevice(),
        c.dstDevice(), srcFound, dstFound);
    boolean srcOnDevice = Copies.onDevice(k.src());
    boolean dstOnDevice = Copies.onDevice(k.dst());
    long srcSpan = span(c.bytes(), c.dims(), c.spitch(), c.width(), c.height(), c.depth());
    long dstSpan = span(c.bytes(), c.dims(), c.dpitch(), c.width(), c.height(), c.depth());
    HappensBefore.Stream s = nodeStream != null ? nodeStream : streamOf(t, call.api(), c.stream());
    int op = begin(t, call, OpKind.COPY, apiName(call), c.stream(), dev, c.bytes(), s);
    ops.copy(op, k.direction(), k.src(), k.dst(), !c.async());
    if (c.src() != 0) {
      Allocation src = at(pid, p, c.src(), srcSpan, srcOnDevice,
          c.srcDevice() >= 0 ? c.srcDevice() : dev, "copy from", srcAt);
      read(p, op, s, src, c.src() - src.start(), srcSpan, Confidence.EXACT);
    } else if (imported) {
      endpointRead(pid, op, k.src(), srcOnDevice ? deviceOf(c.srcDevice(), dev) : -1, c.bytes());
    }
    if (c.dst() != 0) {
      Allocation dst = at(pid, p, c.dst(), dstSpan, dstOnDevice,
          c.dstDevice() >= 0 ? c.dstDevice() : dev, "copy to", dstAt);
      write(op, dst, c.dst() - dst.start(), dstSpan, Confidence.EXACT);
      if (c.symbolData() != null && !dst.implicit()) {
        p.symbolPointers.copied(dst, c.dst() - dst.start(), c.symbolData());
      }
    } else if (imported) {
      endpointWrite(pid, op, k.dst(), dstOnDevice ? deviceOf(c.dstDevice(), dev) : -1, c.bytes());
    }
    reads.clear();
    if (!c.async()) {
      p.order.synchronizedWith(call.tid(), s, call.exitNs());
    }
  }

  private void memset(HostThread t, GraphEvent.Call call, GraphEvent.MemsetCall m) {
    Proc p = t.proc;
    int pid = call.pid();
    int dev = t.device;
    HappensBefore.Stream s = nodeStream != null ? nodeStream : streamOf(t, call.api(), m.stream());
    int op = begin(t, call, OpKind.MEMSET, apiName(call), m.stream(), dev, m.bytes(), s);
    long span = span(m.bytes(), m.dims(), m.pitch(), m.width(), m.height(), m.depth());
    if (m.ptr() != 0) {
      Allocation a = at(pid, p, m.ptr(), span, true, dev, "memset of", null);
      write(op, a, m.ptr() - a.start(), span, Confidence.EXACT);
    } else if (imported) {
      MemoryKind kind = m.kind() == MemoryKind.MEMORY_KIND_UNSPECIFIED ? MemoryKind.DEVICE : m.kind();
      endpointWrite(pid, op, kind, Copies.onDevice(kind) ? dev : -1, m.bytes());
    }
    if (!m.async()) {
      ops.markSynchronous(op);
      p.order.synchronizedWith(call.tid(), s, call.exitNs());
    }
  }

  /**
   * A prefetch of managed memory (cudaMemPrefetchAsync): a copy of the region from where it is to
   * the destination, host-to-device to a GPU or device-to-host to the host, on the stream it names.
   * It reads the region's current contents, so it follows their writer; it writes no new version,
   * since the contents stay what they were (only where they are changes). Managed memory at both
   * ends marks it as a prefetch.
   */
  private void prefetch(HostThread t, GraphEvent.Call call, Prefetch f) {
    Proc p = t.proc;
    // cudaMemLocationTypeHost, HostNuma, HostNumaCurrent; without a location, cudaCpuDeviceId (-1)
    boolean toHost = f.getLocationType() >= 2 || f.getLocationType() == 0 && f.getDevice() < 0;
    int dev = toHost ? t.device : f.getDevice();
    HappensBefore.Stream s = streamOf(t, call.api(), f.getStream());
    int op = begin(t, call, OpKind.COPY, apiName(call), f.getStream(), dev, f.getBytes(), s);
    ops.copy(op, toHost ? Direction.D2H : Direction.H2D, MemoryKind.MANAGED, MemoryKind.MANAGED, false);
    if (f.getPtr() != 0) {
      Allocation a = at(call.pid(), p, f.getPtr(), f.getBytes(), true, dev, "prefetch of", null);
      read(p, op, s, a, f.getPtr() - a.start(), f.getBytes(), Confidence.EXACT);
      reads.clear();
    }
  }

  private void launch(HostThread t, GraphEvent.Call call, GraphEvent.LaunchCall l) {
    Proc p = t.proc;
    boolean same = t.kernelId == l.kernelId() && t.kernel != null;
    KernelInfo info = same ? t.kernel : p.kernels.get(l.kernelId());
    int name = same ? t.kernelName : p.kernelNames.computeIfAbsent(l.kernelId(),
        id -> ops.nameId(info != null ? KernelNames.of(info) : "kernel@0x" + Long.toHexString(id)));
    KernelAccesses.Layout layout = same ? t.layout : info == null ? null : layout(p, l.kernelId());
    t.kernelId = l.kernelId();
    t.kernel = info;
    t.kernelName = name;
    t.layout = layout;
    int dev = l.device() >= 0 ? l.device() : t.device;
    HappensBefore.Stream s = nodeStream != null ? nodeStream : streamOf(t, call.api(), l.stream());
    int op = begin(t, call, OpKind.KERNEL, name, l.stream(), dev, 0, s);
    ops.dims(op, l.gridX(), l.gridY(), l.gridZ(), l.blockX(), l.blockY(), l.blockZ());
    ops.launchSharedMemBytes(op, l.sharedMemBytes());
    if (info == null) {
      warnings.add("launch of a kernel with no recorded parameter layout", ops.name(op));
      return;
    }
    List<KernelAccesses.Access> accesses = launchAccesses;
    accesses.clear();
    launchResolver.thread = t;
    launchResolver.device = dev;
    KernelAccesses.of(l.args(), layout, launchResolver, accesses);
    if (!p.symbolPointers.isEmpty()) {
      p.symbolPointers.reach(layout.uses, launchResolver, accesses);
    }
    if (accesses.isEmpty()) {
      kernels.launchWithoutAccess(ops.name(op));
    }
    long[] spans = footprints.of(l, accesses);
    int n = accesses.size();
    for (int i = 0; i < n; i++) { // every read before any write: in-place kernels
      KernelAccesses.Access a = accesses.get(i);
      if (a.read != null) {
        read(p, op, s, a.allocation, a.offset, spans[i], a.read);
      }
    }
    reads.clear();
    for (int i = 0; i < n; i++) {
      KernelAccesses.Access a = accesses.get(i);
      if (a.write != null) {
        write(op, a.allocation, a.offset, spans[i], a.write);
      }
    }
  }

  // ---- CUDA graphs ----

  private final GraphLaunchTable graphLaunches = new GraphLaunchTable();
  /** The launch the event being processed made, for the call log (-1: none), and its stream. */
  private int pendingGraphLaunch = -1;
  private HappensBefore.Stream pendingGraphStream;
  /** The stream of the graph node being issued ({@link GraphLaunchOrder}; null: none). */
  private HappensBefore.Stream nodeStream;

  /**
   * A CUDA graph launch: each of its kernel, memcpy and memset nodes is an operation on the launch
   * stream, issued by the launch call, with the values it reads and writes as for stream work.
   * The graph's edges order them: in the replay ({@link GraphLaunchTable}) and for races
   * ({@link GraphLaunchOrder}: each on its branch, after its dependencies, the launch ordered
   * against its stream as a kernel is). A launch into a stream being captured is a node of that
   * capture, not work.
   */
  private void graphLaunch(HostThread t, GraphEvent.Call call, io.apptrace.proto.GraphLaunch gl) {
    pendingGraphLaunch = -1;
    if (gl.getCaptureId() != 0) {
      return;
    }
    GraphExecutables.Plan plan = t.proc.graphs.plan(gl.getExec());
    if (plan == null) {
      graphLaunches.undescribed();
      warnings.add("launch of a CUDA graph whose nodes were not recorded", "cudaGraphLaunch(0x"
          + Long.toHexString(gl.getExec()) + ")");
      return;
    }
    int device = t.device;
    if (gl.getDevice() >= 0) {
      t.device = gl.getDevice();
    }
    // graph memory: allocated as the launch begins (each launch anew), freed as it ends
    for (io.apptrace.proto.GraphNode n : plan.allocs()) {
      t.proc.spaces.remove(MemoryKind.STREAM_ORDERED, n.getPtr());
      t.proc.spaces.add(newAllocation(call.pid(), MemoryKind.STREAM_ORDERED, t.device, n.getPtr(), n.getBytes(), false,
          "graph mem alloc node"));
    }
    if (t.clock == null) {
      t.clock = t.proc.order.threadClock(call.tid());
    }
    GraphLaunchOrder order = new GraphLaunchOrder(t.proc.order, t.clock, streamOf(t, call.api(), gl.getStream()),
        call.entryNs(), t.proc.graphs.serial(gl.getExec()), plan.waitsFor(), t.device, call.tid());
    int[] opIds = new int[plan.nodes().size()];
    for (int i = 0; i < opIds.length; i++) {
      nodeStream = order.before(i);
      io.apptrace.proto.GraphNode n = plan.nodes().get(i);
      GraphEvent.Call nc = new GraphEvent.Call(call.pid(), call.tid(), Api.API_OTHER_VALUE,
          n.getKind() == io.apptrace.proto.GraphNodeKind.GRAPH_MEMCPY ? "graph memcpy node" : "graph memset node",
          0, call.entryNs(), call.durationNs(), 0, call.callSite());
      GraphEvent ev = GraphEvent.ofGraphNode(nc, n, gl.getStream());
      int before = ops.size();
      if (ev instanceof GraphEvent.CopyCall k) {
        copy(t, nc, k);
      } else if (ev instanceof GraphEvent.MemsetCall m) {
        memset(t, nc, m);
      } else if (ev instanceof GraphEvent.LaunchCall l) {
        launch(t, nc, l);
      }
      opIds[i] = ops.size() > before ? ops.size() - 1 : -1;
      order.after(i);
    }
    nodeStream = null;
    order.finish();
    for (io.apptrace.proto.GraphNode n : plan.frees()) {
      t.proc.spaces.remove(MemoryKind.STREAM_ORDERED, n.getPtr());
    }
    t.device = device;
    int[][] waits = new int[opIds.length][];
    for (int i = 0; i < opIds.length; i++) {
      waits[i] = java.util.Arrays.stream(plan.waitsFor()[i]).map(k -> opIds[k]).filter(op -> op >= 0).toArray();
    }
    int index = graphLaunches.add(new GraphLaunchTable.Launch(gl.getExec(), opIds, waits));
    if (calls != null) {
      pendingGraphLaunch = index;
      pendingGraphStream = streamOf(t, call.api(), gl.getStream());
    }
  }

  /** The graph; the builder cannot be used afterwards. */
  public Dvdg build() {
    if (built) {
      throw new IllegalStateException("build() was already called");
    }
    built = true;
    if (nvtx != null) {
      nvtx.finish(); // before the operation table is finished: a range may name a thread of its own
    }
    ops.finish();
    values.trim();
    Map<Integer, List<Module>> modules = new HashMap<>();
    procs.forEach((pid, p) -> modules.put(pid, List.copyOf(p.modules)));
    Map<Integer, Map<Integer, SourceGpu>> gpus = new HashMap<>();
    procs.forEach((pid, p) -> {
      if (!p.gpus.isEmpty()) {
        gpus.put(pid, p.gpus);
      }
    });
    if (calls != null) {
      calls.trim();
    }
    int executables = 0;
    for (Proc p : procs.values()) {
      executables += p.graphs.described();
    }
    graphLaunches.executables(executables);
    return new Dvdg(header, allocations, values, ops, races, warnings, modules, gpus, null, calls, kernels,
        graphLaunches);
  }
}
