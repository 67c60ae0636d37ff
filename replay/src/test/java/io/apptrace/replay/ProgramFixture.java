package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;

/**
 * Replay programs for tests: one process (pid 1), streams on device 0 unless told otherwise, host
 * threads whose calls take no time and follow each other with no host time between them unless
 * {@link #host} adds some.
 */
final class ProgramFixture {
  private final List<ReplayProgram.Op> ops = new ArrayList<>();
  private final List<CallLog.Stream> streams = new ArrayList<>();
  private final List<List<ReplayProgram.Call>> threads = new ArrayList<>();
  private final List<long[]> clocks = new ArrayList<>();
  private int events;

  /** A stream: legacy, or blocking (created without cudaStreamNonBlocking), or not. */
  int stream(boolean legacy, boolean blocking, int device) {
    streams.add(new CallLog.Stream(1, device, legacy, blocking || legacy, false, legacy ? 0 : 0x100 + streams.size()));
    return streams.size() - 1;
  }

  int legacy() {
    return stream(true, true, 0);
  }

  int blocking() {
    return stream(false, true, 0);
  }

  int nonBlocking() {
    return stream(false, false, 0);
  }

  /** A host thread's per-thread default stream (cudaStreamPerThread) on device 0. */
  int perThread() {
    streams.add(new CallLog.Stream(1, 0, false, true, true, 2));
    return streams.size() - 1;
  }

  int event() {
    return events++;
  }

  private List<ReplayProgram.Call> thread(int t) {
    while (threads.size() <= t) {
      threads.add(new ArrayList<>());
      clocks.add(new long[1]);
    }
    return threads.get(t);
  }

  private ProgramFixture call(int t, HostCall what, long durationNs, String name) {
    return call(t, what, durationNs, name, 0);
  }

  private ProgramFixture call(int t, HostCall what, long durationNs, String name, long bytes) {
    List<ReplayProgram.Call> calls = thread(t);
    long[] clock = clocks.get(t);
    calls.add(new ReplayProgram.Call(what, clock[0], durationNs, name, bytes, 0));
    clock[0] += durationNs;
    return this;
  }

  /** A named API call that does nothing on the GPU, measured at {@code ns}, allocating or pinning {@code bytes}. */
  ProgramFixture api(int t, String name, long ns, long bytes) {
    return call(t, HostCall.HOST_WORK, ns, name, bytes);
  }

  private boolean simulated;

  /** The program comes from a capture on the simulated device. */
  ProgramFixture simulated() {
    simulated = true;
    return this;
  }

  /** Host time before thread t's next call. */
  ProgramFixture host(int t, long ns) {
    thread(t);
    clocks.get(t)[0] += ns;
    return this;
  }

  private int op(ReplayProgram.Kind kind, String name, int stream, int device, int peer, TransferKind transfer,
      long bytes, long measuredNs, double readBytes, double writeBytes, boolean sync) {
    int id = ops.size();
    ops.add(new ReplayProgram.Op(id, kind, name, stream, device, peer, transfer, bytes, -1,
        measuredNs >= 0 ? 0 : -1, measuredNs >= 0 ? measuredNs : -1, bytes, readBytes, writeBytes, 0, sync));
    return id;
  }

  /** A kernel node of a CUDA graph that took {@code ns} where it was measured; {@link #graphLaunch} issues it. */
  int graphKernel(int stream, String name, long ns) {
    return op(ReplayProgram.Kind.KERNEL, name, stream, streams.get(stream).device(), -1, null, 0, ns, 0, 0, false);
  }

  /** A memcpy node of a CUDA graph; {@link #graphLaunch} issues it. */
  int graphCopy(int stream, TransferKind kind, long bytes) {
    return op(ReplayProgram.Kind.COPY, "graph memcpy node", stream, streams.get(stream).device(), -1, kind, bytes, -1,
        0, 0, false);
  }

  /** cudaGraphLaunch on {@code stream} of the graph nodes {@code ops}, each after those {@code waitsFor} lists. */
  ProgramFixture graphLaunch(int t, int stream, int[] ops, int[][] waitsFor) {
    return call(t, new HostCall.LaunchGraph(stream, ops, waitsFor), 0, "cudaGraphLaunch");
  }

  /** An asynchronous copy on a stream; returns its operation id. */
  int copy(int t, int stream, TransferKind kind, long bytes) {
    int id = op(ReplayProgram.Kind.COPY, "cudaMemcpyAsync", stream, streams.get(stream).device(), -1, kind, bytes, -1,
        0, 0, false);
    call(t, new HostCall.IssueOp(id, stream), 0, "cudaMemcpyAsync");
    return id;
  }

  /** A synchronous copy (cudaMemcpy) on the legacy stream {@code legacy}. */
  int syncCopy(int t, int legacy, TransferKind kind, long bytes, long callNs) {
    int id = op(ReplayProgram.Kind.COPY, "cudaMemcpy", legacy, 0, -1, kind, bytes, -1, 0, 0, true);
    call(t, new HostCall.IssueOp(id, legacy), callNs, "cudaMemcpy");
    return id;
  }

  /** A GPU-to-GPU copy from the stream's device to {@code peer}. */
  int peerCopy(int t, int stream, int peer, long bytes) {
    int id = op(ReplayProgram.Kind.COPY, "cudaMemcpyPeerAsync", stream, streams.get(stream).device(), peer,
        TransferKind.PEER, bytes, -1, 0, 0, false);
    call(t, new HostCall.IssueOp(id, stream), 0, "cudaMemcpyPeerAsync");
    return id;
  }

  /** A memset of {@code bytes} on a stream, with no measured time. */
  int memset(int t, int stream, long bytes) {
    int id = op(ReplayProgram.Kind.MEMSET, "cudaMemsetAsync", stream, streams.get(stream).device(), -1, null, bytes,
        -1, 0, 0, false);
    call(t, new HostCall.IssueOp(id, stream), 0, "cudaMemsetAsync");
    return id;
  }

  /** A kernel of {@code blocks} thread blocks that took {@code ns} where it was measured. */
  int kernel(int t, int stream, String name, long ns, long blocks) {
    int id = ops.size();
    ops.add(new ReplayProgram.Op(id, ReplayProgram.Kind.KERNEL, name, stream, streams.get(stream).device(), -1, null,
        0, -1, 0, ns, 0, 0, 0, blocks, false));
    call(t, new HostCall.IssueOp(id, stream), 0, "cudaLaunchKernel");
    return id;
  }

  /** A kernel with no measured time that reaches {@code bytes} through its pointer arguments. */
  int unmeasuredKernel(int t, int stream, String name, double bytes) {
    int id = ops.size();
    ops.add(new ReplayProgram.Op(id, ReplayProgram.Kind.KERNEL, name, stream, streams.get(stream).device(), -1, null,
        0, -1, -1, -1, bytes, 0, 0, 0, false));
    call(t, new HostCall.IssueOp(id, stream), 0, "cudaLaunchKernel");
    return id;
  }

  /**
   * An operation measured on the GPU from {@code startNs} to {@code endNs} (the trace's clock, the
   * first call at 0), issued by a call of {@code callNs}: a kernel when {@code kind} is null, else an
   * asynchronous copy of {@code bytes}.
   */
  int measured(int t, int stream, String name, TransferKind kind, long bytes, long startNs, long endNs, long callNs) {
    int id = ops.size();
    ops.add(new ReplayProgram.Op(id, kind == null ? ReplayProgram.Kind.KERNEL : ReplayProgram.Kind.COPY, name, stream,
        streams.get(stream).device(), -1, kind, bytes, -1, startNs, endNs, bytes, 0, 0, 0, false));
    call(t, new HostCall.IssueOp(id, stream), callNs, kind == null ? "cudaLaunchKernel" : "cudaMemcpyAsync");
    return id;
  }

  /**
   * A synchronous copy (cudaMemcpy) on the legacy stream {@code legacy}, measured on the GPU from
   * {@code startNs} to {@code endNs}, its call measured at {@code callNs}.
   */
  int measuredSyncCopy(int t, int legacy, TransferKind kind, long bytes, long startNs, long endNs, long callNs) {
    int id = ops.size();
    ops.add(new ReplayProgram.Op(id, ReplayProgram.Kind.COPY, "cudaMemcpy", legacy, 0, -1, kind, bytes, -1, startNs,
        endNs, bytes, 0, 0, 0, true));
    call(t, new HostCall.IssueOp(id, legacy), callNs, "cudaMemcpy");
    return id;
  }

  /** A kernel that took {@code ns} where it was measured. */
  /** A kernel of {@code ns} launched by a call measured at {@code callNs}. */
  int kernel(int t, int stream, String name, long ns, long blocks, long callNs) {
    int id = op(ReplayProgram.Kind.KERNEL, name, stream, streams.get(stream).device(), -1, null, 0, ns, 0, 0, false);
    call(t, new HostCall.IssueOp(id, stream), callNs, "cudaLaunchKernel");
    return id;
  }

  int kernel(int t, int stream, String name, long ns) {
    int id = op(ReplayProgram.Kind.KERNEL, name, stream, streams.get(stream).device(), -1, null, 0, ns, 0, 0, false);
    call(t, new HostCall.IssueOp(id, stream), 0, "cudaLaunchKernel");
    return id;
  }

  /** A kernel reading and writing host memory directly (mapped memory, zero-copy). */
  int mappedKernel(int t, int stream, String name, long ns, double readBytes, double writeBytes) {
    int id = op(ReplayProgram.Kind.KERNEL, name, stream, streams.get(stream).device(), -1, null, 0, ns, readBytes,
        writeBytes, false);
    call(t, new HostCall.IssueOp(id, stream), 0, "cudaLaunchKernel");
    return id;
  }

  ProgramFixture record(int t, int stream, int event) {
    return call(t, new HostCall.RecordEvent(stream, event), 0, "cudaEventRecord");
  }

  ProgramFixture waitEvent(int t, int stream, int event) {
    return call(t, new HostCall.WaitEvent(stream, event), 0, "cudaStreamWaitEvent");
  }

  ProgramFixture syncStream(int t, int stream) {
    return call(t, new HostCall.SyncStream(stream), 0, "cudaStreamSynchronize");
  }

  ProgramFixture syncDevice(int t) {
    return call(t, new HostCall.SyncDevice(0), 0, "cudaDeviceSynchronize");
  }

  /** cudaStreamSynchronize measured at {@code ns}. */
  ProgramFixture syncStream(int t, int stream, long ns) {
    return call(t, new HostCall.SyncStream(stream), ns, "cudaStreamSynchronize");
  }

  ProgramFixture syncEvent(int t, int event) {
    return call(t, new HostCall.SyncEvent(event), 0, "cudaEventSynchronize");
  }

  /** cudaDeviceSynchronize of device {@code device}. */
  ProgramFixture syncDevice(int t, int device, long ns) {
    return call(t, new HostCall.SyncDevice(device), ns, "cudaDeviceSynchronize");
  }

  /** cudaFree, which waits for device {@code device} to be idle. */
  ProgramFixture free(int t, int device) {
    return call(t, new HostCall.SyncDevice(device), 0, "cudaFree");
  }

  /** A synchronization whose stream the profiler did not record (UNKNOWN_STREAM_SCOPE), measured at {@code ns}. */
  ProgramFixture syncSomeStreams(int t, int device, long ns) {
    return call(t, new HostCall.SyncSomeStreams(device), ns, "cudaStreamSynchronize");
  }

  /** A call that does nothing on the GPU, taking {@code ns} on the host. */
  ProgramFixture hostCall(int t, long ns) {
    return call(t, HostCall.HOST_WORK, ns, "cudaGetLastError");
  }

  private final java.util.Map<Integer, io.apptrace.trace.SourceGpu> gpus = new java.util.HashMap<>();

  /** The trace names device {@code device} as the GPU {@code name} (as a capture's or an import's record would). */
  ProgramFixture gpu(int device, String name) {
    gpus.put(device, new io.apptrace.trace.SourceGpu(device, name, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, "", io.apptrace.trace.SourceGpu.Source.CUDA_RUNTIME, 0));
    return this;
  }

  ReplayProgram build() {
    List<ReplayProgram.HostThread> ts = new ArrayList<>();
    for (int t = 0; t < threads.size(); t++) {
      ts.add(new ReplayProgram.HostThread(1, 100 + t, threads.get(t)));
    }
    return new ReplayProgram(ops, streams, ts, events, simulated ? new ReplayProgram.Provenance(true, 0, 0)
        : ReplayProgram.Provenance.NONE, gpus);
  }
}
