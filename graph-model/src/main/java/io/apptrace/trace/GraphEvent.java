package io.apptrace.trace;

import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.Memset;
import io.apptrace.proto.MemoryKind;

/**
 * An event as the graph build reads it: the fields of copies, memsets, kernel launches and GPU
 * activity copied out of their protobuf messages, and every other event as its record.
 *
 * <p>Why: the reader decodes on another core ({@link TimeOrderedReader}), and the build then
 * touched each event's message objects for the first time, a handful of cache misses per event.
 * Made on the decoding core right after the batch is parsed, these small records lie together in
 * memory in the order they are read. They are made in two places only: {@link GraphEventWire}
 * reads the common kinds straight from their encoding, and {@link #of(int, int, long, Event)}
 * copies them out of a parsed event (the rest, and whatever the first leaves to the parser).
 */
public sealed interface GraphEvent {
  /** What every event has: where it came from and the call it records. */
  Call call();

  /**
   * @param pid the process id
   * @param tid the kernel thread id (0 for records the collector wrote)
   * @param api the Api number
   * @param otherName the function's name when {@code api} is API_OTHER, else empty
   * @param result the cudaError_t returned
   * @param entryNs the call's entry, ns
   * @param durationNs the call's duration, ns
   * @param correlationId the CUPTI correlation id, 0 when unknown
   * @param callSite the return address into the caller
   * @param cpuEntryNs the thread's CPU time at entry, 0 when not read ({@code Event.thread_cpu_ns})
   * @param cpuExitNs the thread's CPU time at exit, 0 when not read
   * @param collectorNs the collector's own time on the thread since its previous call ({@code
   *     Event.collector_ns})
   */
  record Call(int pid, int tid, int api, String otherName, int result, long entryNs, long durationNs,
      long correlationId, long callSite, long cpuEntryNs, long cpuExitNs, long collectorNs) {
    /** A call whose thread CPU times and collector time were not recorded. */
    public Call(int pid, int tid, int api, String otherName, int result, long entryNs, long durationNs,
        long correlationId, long callSite) {
      this(pid, tid, api, otherName, result, entryNs, durationNs, correlationId, callSite, 0, 0, 0);
    }

    public boolean ok() {
      return result == 0;
    }

    public long exitNs() {
      return entryNs + durationNs;
    }

    /** The function the call was to ({@link ApiNames#of(Event)}). */
    public String function() {
      return ApiNames.of(api, otherName);
    }
  }

  /**
   * A copy (Copy message; fields as there, kinds as its getters return them); {@code symbolData}
   * is the bytes copied to a variable (null when none were recorded), not to be changed.
   */
  record CopyCall(Call call, long dst, long src, long bytes, CopyKind kindResolved, long stream,
      boolean async, int dstDevice, int srcDevice, int dims, long dpitch, long spitch, long width,
      long height, long depth, MemoryKind srcKind, MemoryKind dstKind, byte[] symbolData) implements GraphEvent {}

  /** A memset (Memset message). */
  record MemsetCall(Call call, long ptr, long bytes, long stream, boolean async, int dims, long pitch,
      long width, long height, long depth, MemoryKind kind) implements GraphEvent {}

  /**
   * A kernel launch (KernelLaunch message); {@code args} is a copy, not to be changed;
   * {@code sharedMemBytes} is the dynamic shared memory the launch asked for.
   */
  record LaunchCall(Call call, long kernelId, int gridX, int gridY, int gridZ, int blockX, int blockY,
      int blockZ, long stream, byte[] args, int device, long sharedMemBytes) implements GraphEvent {}

  /**
   * GPU activity: when the work of the call with {@code gpuCorrelationId} ran (GpuActivity), and
   * for a kernel what it ran with, when the record says ({@code resources}, else null).
   */
  record GpuSpan(Call call, long gpuCorrelationId, long startNs, long endNs, KernelResources resources)
      implements GraphEvent {}

  /** Any other event, whole. */
  record Other(Call call, TraceRecord record) implements GraphEvent {}

  /**
   * Reads events for the graph, the most common kinds straight from their encoding
   * ({@link GraphEventWire}), the rest parsed ({@link #of}).
   */
  TimeOrderedReader.WireDecoder<GraphEvent> DECODER = new TimeOrderedReader.WireDecoder<>() {
    @Override
    public GraphEvent decode(int pid, int tid, long batchSeq, byte[] data, int offset, int length) {
      return GraphEventWire.decode(pid, tid, data, offset, length);
    }

    @Override
    public GraphEvent decode(int pid, int tid, long batchSeq, Event e) {
      return of(pid, tid, batchSeq, e);
    }

    @Override
    public long entryNs(GraphEvent event) {
      return event.call().entryNs();
    }
  };

  /** The graph's view of one event. */
  static GraphEvent of(int pid, int tid, long batchSeq, Event e) {
    Call c = new Call(pid, tid, e.getApiValue(), e.getApiName(), e.getResult(), e.getEntryNs(),
        e.getDurationNs(), e.getCorrelationId(), e.getCallSite(), e.getThreadCpuNs(), e.getThreadCpuExitNs(),
        e.getCollectorNs());
    if (captured(e)) {
      // issued to a stream being captured: a node of the capture's graph in the making, not work
      return new Other(c, new TraceRecord(pid, tid, batchSeq, e));
    }
    return body(c, e.getCopy(), e.getMemset(), e.getLaunch(), e.getBodyCase() == Event.BodyCase.GPU ? e : null,
        e.getBodyCase(), () -> new Other(c, new TraceRecord(pid, tid, batchSeq, e)));
  }

  /** Whether the event is work issued to a stream while it was being captured (a graph node, not work). */
  static boolean captured(Event e) {
    return switch (e.getBodyCase()) {
      case COPY -> e.getCopy().getCaptureId() != 0;
      case MEMSET -> e.getMemset().getCaptureId() != 0;
      case LAUNCH -> e.getLaunch().getCaptureId() != 0;
      default -> false;
    };
  }

  /**
   * The operation a CUDA graph node runs, as the call {@code c} that launched its graph issued it
   * on {@code stream}: a copy, memset or kernel launch with the node's parameters; null for nodes
   * of other kinds (host, empty, event, memory nodes), which issue no copy, memset or kernel.
   */
  static GraphEvent ofGraphNode(Call c, io.apptrace.proto.GraphNode n, long stream) {
    return switch (n.getKind()) {
      case GRAPH_MEMCPY -> n.hasCopy() ? withStream(body(c, n.getCopy(), null, null, null, Event.BodyCase.COPY,
          () -> null), stream) : null;
      case GRAPH_MEMSET -> n.hasMemset() ? withStream(body(c, null, n.getMemset(), null, null, Event.BodyCase.MEMSET,
          () -> null), stream) : null;
      case GRAPH_KERNEL -> n.hasLaunch() ? withStream(body(c, null, null, n.getLaunch(), null, Event.BodyCase.LAUNCH,
          () -> null), stream) : null;
      default -> null;
    };
  }

  private static GraphEvent withStream(GraphEvent ev, long s) {
    if (ev instanceof CopyCall k) {
      return new CopyCall(k.call(), k.dst(), k.src(), k.bytes(), k.kindResolved(), s, true, k.dstDevice(),
          k.srcDevice(), k.dims(), k.dpitch(), k.spitch(), k.width(), k.height(), k.depth(), k.srcKind(), k.dstKind(),
          k.symbolData());
    }
    if (ev instanceof MemsetCall m) {
      return new MemsetCall(m.call(), m.ptr(), m.bytes(), s, true, m.dims(), m.pitch(), m.width(), m.height(),
          m.depth(), m.kind());
    }
    LaunchCall l = (LaunchCall) ev;
    return new LaunchCall(l.call(), l.kernelId(), l.gridX(), l.gridY(), l.gridZ(), l.blockX(), l.blockY(),
        l.blockZ(), s, l.args(), l.device(), l.sharedMemBytes());
  }

  private static GraphEvent body(Call c, Copy copy, Memset memset, KernelLaunch launch, Event gpu,
      Event.BodyCase kind, java.util.function.Supplier<GraphEvent> other) {
    Event e = gpu;
    switch (kind) {
      case COPY -> {
        Copy k = copy;
        return new CopyCall(c, k.getDst(), k.getSrc(), k.getBytes(), k.getKindResolved(), k.getStream(),
            k.getAsync(), k.getDstDevice(), k.getSrcDevice(), k.getDims(), k.getDpitch(), k.getSpitch(),
            k.getWidth(), k.getHeight(), k.getDepth(), k.getSrcKind(), k.getDstKind(),
            k.getSymbolData().isEmpty() ? null : k.getSymbolData().toByteArray());
      }
      case MEMSET -> {
        Memset m = memset;
        return new MemsetCall(c, m.getPtr(), m.getBytes(), m.getStream(), m.getAsync(), m.getDims(),
            m.getPitch(), m.getWidth(), m.getHeight(), m.getDepth(), m.getKind());
      }
      case LAUNCH -> {
        KernelLaunch l = launch;
        return new LaunchCall(c, l.getKernelId(), l.getGridX(), l.getGridY(), l.getGridZ(), l.getBlockX(),
            l.getBlockY(), l.getBlockZ(), l.getStream(), l.getArgs().toByteArray(), l.getDevice(),
            l.getSharedMemBytes());
      }
      case GPU -> {
        return new GpuSpan(c, e.getGpu().getCorrelationId(), e.getGpu().getStartNs(), e.getGpu().getEndNs(),
            KernelResources.of(e.getGpu()));
      }
      default -> {
        return other.get();
      }
    }
  }
}
