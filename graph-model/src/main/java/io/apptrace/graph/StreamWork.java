package io.apptrace.graph;

import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.Prefetch;
import io.apptrace.trace.Copies;
import io.apptrace.trace.Direction;
import io.apptrace.trace.GraphEvent;
import io.apptrace.trace.KernelNames;
import java.util.ArrayList;
import java.util.List;

/**
 * The work a program issues to streams (docs/GRAPH.md, "Operations"): each copy, memset, prefetch
 * and kernel launch becomes an operation of the {@link OperationTable} on its stream, with the
 * values it reads and writes ({@link ValueFlow}); a kernel's through its arguments
 * ({@link KernelAccesses}, {@link KernelFootprints}).
 */
final class StreamWork {
  private final OperationTable ops;
  private final Allocations allocations;
  private final ValueFlow flow;
  private final RaceFinder races;
  private final ApiNameIds apiNames;
  private final Warnings warnings;
  private final KernelCoverage kernels;
  private final KernelFootprints footprints;
  /** What the kernels' code says of their pointers (none for imported traces: no arguments). */
  private final KernelCode code;
  /** The trace came from another profiler: its copies carry no addresses. */
  private final boolean imported;
  /** A launch's accesses (reused from launch to launch). */
  private final List<KernelAccesses.Access> launchAccesses = new ArrayList<>();
  private final LaunchResolver launchResolver = new LaunchResolver();
  /** The stream of the last operation begun (for the call log). */
  private HappensBefore.Stream lastStream;

  /** The allocation a launch's argument points into: the launching thread's device first. */
  private static final class LaunchResolver implements KernelAccesses.Resolver {
    ThreadState thread;
    int device;

    @Override
    public Allocation resolve(long address) {
      AddressSpaces spaces = thread.proc.spaces;
      Allocation a = spaces.device(address, device, thread.allocations);
      return a != null ? a : spaces.host(address);
    }
  }

  StreamWork(OperationTable ops, ValueTable values, Processes processes, Allocations allocations, ValueFlow flow,
      RaceFinder races, ApiNameIds apiNames, Warnings warnings, KernelCoverage kernels, FootprintTiling tiling,
      boolean imported) {
    this.ops = ops;
    this.allocations = allocations;
    this.flow = flow;
    this.races = races;
    this.apiNames = apiNames;
    this.warnings = warnings;
    this.kernels = kernels;
    this.imported = imported;
    this.code = new KernelCode(kernels);
    this.footprints = new KernelFootprints(ops, values, tiling, (pid, id) -> layout(processes.proc(pid), id));
  }

  /** The stream of the last operation begun (null: none yet). */
  HappensBefore.Stream lastStream() {
    return lastStream;
  }

  /**
   * The parameter layout of kernel {@code id} of process {@code p}, with what its code says of
   * each parameter; null when its parameters were not recorded.
   */
  private KernelAccesses.Layout layout(ProcessState p, long id) {
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

  /** Starts an operation on a stream; returns its id. */
  private int begin(ThreadState t, GraphEvent.Call c, OpKind kind, int name, long handle, int device,
      long bytes, HappensBefore.Stream s) {
    ProcessState p = t.proc;
    if (t.tableId < 0) {
      t.tableId = ops.threadId(c.pid(), c.tid());
    }
    int thread = t.tableId;
    if (s.tableId < 0 || s.tableDevice != device) {
      s.tableId = ops.streamId(c.pid(), handle, device);
      s.tableDevice = device;
    }
    int op = ops.begin(kind, c.api(), name, thread, s.tableId,
        c.entryNs(), c.durationNs(), bytes, t.callSite(ops, c.callSite()));
    lastStream = s;
    races.issued(t, s, c.entryNs());
    if (c.correlationId() != 0) {
      p.byCorrelation.put(c.correlationId(), op);
    }
    return op;
  }

  private static int deviceOf(int given, int current) {
    return given >= 0 ? given : current;
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

  /** A copy; on {@code node} when it is a CUDA graph's node (null: on the stream the call names). */
  void copy(ThreadState t, GraphEvent.Call call, GraphEvent.CopyCall c, HappensBefore.Stream node) {
    ProcessState p = t.proc;
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
    HappensBefore.Stream s = node != null ? node : t.stream(call.api(), c.stream());
    int op = begin(t, call, OpKind.COPY, apiNames.of(call), c.stream(), dev, c.bytes(), s);
    ops.copy(op, k.direction(), k.src(), k.dst(), !c.async());
    if (c.src() != 0) {
      Allocation src = allocations.at(pid, p, c.src(), srcSpan, srcOnDevice,
          c.srcDevice() >= 0 ? c.srcDevice() : dev, "copy from", srcAt);
      flow.read(p, op, s, src, c.src() - src.start(), srcSpan, Confidence.EXACT);
    } else if (imported) {
      flow.endpointRead(pid, k.src(), srcOnDevice ? deviceOf(c.srcDevice(), dev) : -1, c.bytes());
    }
    if (c.dst() != 0) {
      Allocation dst = allocations.at(pid, p, c.dst(), dstSpan, dstOnDevice,
          c.dstDevice() >= 0 ? c.dstDevice() : dev, "copy to", dstAt);
      flow.write(op, dst, c.dst() - dst.start(), dstSpan, Confidence.EXACT);
      if (c.symbolData() != null && !dst.implicit()) {
        p.symbolPointers.copied(dst, c.dst() - dst.start(), c.symbolData());
      }
    } else if (imported) {
      flow.endpointWrite(pid, op, k.dst(), dstOnDevice ? deviceOf(c.dstDevice(), dev) : -1, c.bytes());
    }
    flow.endOperation();
    if (!c.async()) {
      p.order.synchronizedWith(call.tid(), s, call.exitNs());
    }
  }

  /** A memset; on {@code node} when it is a CUDA graph's node (null: on the stream the call names). */
  void memset(ThreadState t, GraphEvent.Call call, GraphEvent.MemsetCall m, HappensBefore.Stream node) {
    ProcessState p = t.proc;
    int pid = call.pid();
    int dev = t.device;
    HappensBefore.Stream s = node != null ? node : t.stream(call.api(), m.stream());
    int op = begin(t, call, OpKind.MEMSET, apiNames.of(call), m.stream(), dev, m.bytes(), s);
    long span = span(m.bytes(), m.dims(), m.pitch(), m.width(), m.height(), m.depth());
    if (m.ptr() != 0) {
      Allocation a = allocations.at(pid, p, m.ptr(), span, true, dev, "memset of", null);
      flow.write(op, a, m.ptr() - a.start(), span, Confidence.EXACT);
    } else if (imported) {
      MemoryKind kind = m.kind() == MemoryKind.MEMORY_KIND_UNSPECIFIED ? MemoryKind.DEVICE : m.kind();
      flow.endpointWrite(pid, op, kind, Copies.onDevice(kind) ? dev : -1, m.bytes());
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
  void prefetch(ThreadState t, GraphEvent.Call call, Prefetch f) {
    ProcessState p = t.proc;
    // cudaMemLocationTypeHost, HostNuma, HostNumaCurrent; without a location, cudaCpuDeviceId (-1)
    boolean toHost = f.getLocationType() >= 2 || f.getLocationType() == 0 && f.getDevice() < 0;
    int dev = toHost ? t.device : f.getDevice();
    HappensBefore.Stream s = t.stream(call.api(), f.getStream());
    int op = begin(t, call, OpKind.COPY, apiNames.of(call), f.getStream(), dev, f.getBytes(), s);
    ops.copy(op, toHost ? Direction.D2H : Direction.H2D, MemoryKind.MANAGED, MemoryKind.MANAGED, false);
    if (f.getPtr() != 0) {
      Allocation a = allocations.at(call.pid(), p, f.getPtr(), f.getBytes(), true, dev, "prefetch of", null);
      flow.read(p, op, s, a, f.getPtr() - a.start(), f.getBytes(), Confidence.EXACT);
      flow.endOperation();
    }
  }

  /**
   * A kernel launch, reading and writing what its arguments reach; on {@code node} when it is a
   * CUDA graph's node (null: on the stream the call names).
   */
  void launch(ThreadState t, GraphEvent.Call call, GraphEvent.LaunchCall l, HappensBefore.Stream node) {
    ProcessState p = t.proc;
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
    HappensBefore.Stream s = node != null ? node : t.stream(call.api(), l.stream());
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
        flow.read(p, op, s, a.allocation, a.offset, spans[i], a.read);
      }
    }
    flow.endOperation();
    for (int i = 0; i < n; i++) {
      KernelAccesses.Access a = accesses.get(i);
      if (a.write != null) {
        flow.write(op, a.allocation, a.offset, spans[i], a.write);
      }
    }
  }
}
