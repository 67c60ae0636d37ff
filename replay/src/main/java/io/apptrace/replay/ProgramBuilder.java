package io.apptrace.replay;

import io.apptrace.cost.CopyTransfer;
import io.apptrace.graph.Allocation;
import io.apptrace.graph.CallLog;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.graph.ValueTable;
import io.apptrace.trace.KernelResources;
import io.apptrace.trace.SourceGpu;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Turns a trace's graph and call log into a {@link ReplayProgram}. */
public final class ProgramBuilder {
  private ProgramBuilder() {}

  /**
   * The program of a graph built with its calls ({@code DvdgBuilder.build(trace, true)}).
   *
   * @throws IllegalArgumentException if the graph has no call log
   */
  public static ReplayProgram of(Dvdg g) {
    CallLog log = g.calls().orElseThrow(() -> new IllegalArgumentException("the graph was built without its calls"));
    OperationTable ops = g.operations();
    ValueTable values = g.values();
    int[] opStream = new int[ops.size()];
    java.util.Arrays.fill(opStream, -1);
    List<List<ReplayProgram.Call>> perThread = new ArrayList<>();
    for (int t = 0; t < ops.threadCount(); t++) {
      perThread.add(new ArrayList<>());
    }
    OffCpuTime offCpu = new OffCpuTime(ops.threadCount());
    for (int c = 0; c < log.size(); c++) {
      CallLog.Type type = log.type(c);
      HostCall what;
      if (type == CallLog.Type.GRAPH_LAUNCH) {
        io.apptrace.graph.GraphLaunchTable.Launch l = g.graphLaunches().launch(log.a(c));
        for (int op : l.ops()) {
          opStream[op] = log.b(c);
        }
        what = new HostCall.LaunchGraph(log.b(c), l.ops(), l.waitsFor());
      } else {
        if (type == CallLog.Type.OP) {
          opStream[log.a(c)] = log.b(c);
        }
        what = HostCall.of(type, log.a(c), log.b(c));
      }
      int t = log.thread(c);
      long off = offCpu.next(t, log.entryNs(c), log.durationNs(c), log.cpuEntryNs(c), log.cpuExitNs(c),
          log.collectorNs(c));
      perThread.get(t).add(new ReplayProgram.Call(what, log.entryNs(c),
          log.durationNs(c), ops.nameOf(log.apiName(c)), log.bytes(c), off));
    }
    List<ReplayProgram.Op> out = new ArrayList<>(ops.size());
    for (int op = 0; op < ops.size(); op++) {
      out.add(op(g, ops, values, op, opStream[op]));
    }
    List<ReplayProgram.Managed> managed = managed(g, log, out);
    List<ReplayProgram.HostThread> threads = new ArrayList<>();
    for (int t = 0; t < perThread.size(); t++) {
      threads.add(new ReplayProgram.HostThread(ops.threadPid(t), ops.threadTid(t), perThread.get(t)));
    }
    long pinnedBytes = 0;
    for (Allocation a : g.allocations()) {
      switch (a.kind()) {
        case PINNED, REGISTERED, WRITE_COMBINED, MAPPED -> pinnedBytes += a.implicit() ? 0 : a.bytes();
        default -> { }
      }
    }
    long pinNs = 0;
    for (List<ReplayProgram.Call> calls : perThread) {
      for (ReplayProgram.Call c : calls) {
        if (c.name().equals("cudaHostAlloc") || c.name().equals("cudaMallocHost") || c.name().equals("cudaHostRegister")) {
          pinNs += c.durationNs();
        }
      }
    }
    return new ReplayProgram(out, log.streams(), threads, log.eventCount(), new ReplayProgram.Provenance(
        g.header().getSimulatedDevice(), pinnedBytes, pinNs), sourceDevices(g)).withAnnotations(log.ranges(),
            log.marks()).withManaged(managed);
  }

  /** The trace's GPUs by device index; the lowest pid's where processes differ. */
  static Map<Integer, SourceGpu> sourceDevices(Dvdg g) {
    Map<Integer, SourceGpu> out = new TreeMap<>();
    for (Map<Integer, SourceGpu> byDevice : g.sourceGpus().values()) { // ascending pid
      byDevice.forEach(out::putIfAbsent);
    }
    return out;
  }

  /** What the trace knows of kernel {@code op}'s launch. */
  static ReplayProgram.LaunchFacts launchFacts(OperationTable ops, int op) {
    int[] grid = ops.grid(op);
    int[] block = ops.block(op);
    long blocks = (long) grid[0] * grid[1] * grid[2];
    int threads = block[0] * block[1] * block[2];
    long dynamic = ops.launchSharedMemBytes(op);
    KernelResources r = ops.resources(op);
    if (r == null) {
      // a launch alone says how much dynamic shared memory it asked for, not what the kernel declares
      return new ReplayProgram.LaunchFacts(blocks, threads, 0, -1, dynamic, Double.NaN);
    }
    if (r.dynamicSharedMemBytes() >= 0) {
      dynamic = r.dynamicSharedMemBytes();
    } else if (r.sharedMemPerBlockBytes() >= 0) {
      dynamic = -1; // a sum (Kineto): the launch's share of it is not known
    }
    return new ReplayProgram.LaunchFacts(blocks, threads, r.registersPerThread(),
        Math.max(-1, r.sharedMemPerBlockBytes()), dynamic, r.estimatedOccupancyPct());
  }

  private static ReplayProgram.Op op(Dvdg g, OperationTable ops, ValueTable values, int op, int stream) {
    OpKind k = ops.kind(op);
    long[] gpu = ops.gpuTimes(op);
    long ms = gpu != null ? gpu[0] : -1;
    long me = gpu != null ? gpu[1] : -1;
    double touched = 0;
    double mappedRead = 0;
    double mappedWrite = 0;
    for (int i = 0; i < ops.inputCount(op); i++) {
      long b = ops.inputBytes(op, i);
      touched += b;
      if (host(g, values, ops.input(op, i))) {
        mappedRead += b;
      }
    }
    for (int i = 0; i < ops.outputCount(op); i++) {
      long b = values.bytes(ops.output(op, i));
      touched += b;
      if (host(g, values, ops.output(op, i))) {
        mappedWrite += b;
      }
    }
    if (k == OpKind.KERNEL) {
      int[] grid = ops.grid(op);
      long blocks = (long) grid[0] * grid[1] * grid[2];
      return new ReplayProgram.Op(op, ReplayProgram.Kind.KERNEL, ops.name(op), stream, ops.device(op), -1, null, 0, -1,
          ms, me, touched, mappedRead, mappedWrite, blocks, false, launchFacts(ops, op));
    }
    if (k == OpKind.MEMSET) {
      return new ReplayProgram.Op(op, ReplayProgram.Kind.MEMSET, ops.name(op), stream, ops.device(op), -1, null,
          ops.bytes(op), -1, ms, me, ops.bytes(op), 0, 0, 0, ops.synchronous(op));
    }
    CopyTransfer c = CopyTransfer.of(g, op);
    return new ReplayProgram.Op(op, ReplayProgram.Kind.COPY, ops.name(op), stream, c.device(), c.peerDevice(), c.kind(),
        ops.bytes(op), c.numa(), ms, me, ops.bytes(op), 0, 0, 0, ops.synchronous(op));
  }

  /**
   * What moves managed memory, in the order of the call log: each operation's accesses as it is
   * issued, and the host's synchronizations (not cudaFree, which the log also counts as one).
   * Empty when the program has no managed memory.
   */
  static List<ReplayProgram.Managed> managed(Dvdg g, CallLog log, List<ReplayProgram.Op> ops) {
    boolean any = false;
    for (Allocation a : g.allocations()) {
      any |= a.kind() == io.apptrace.proto.MemoryKind.MANAGED;
    }
    List<ReplayProgram.Managed> out = new ArrayList<>();
    if (!any) {
      return out;
    }
    int[] index = new int[g.operations().threadCount()];
    for (int c = 0; c < log.size(); c++) {
      int t = log.thread(c);
      int k = index[t]++;
      switch (log.type(c)) {
        case OP -> accesses(g, ops.get(log.a(c)), out);
        case GRAPH_LAUNCH -> {
          for (int op : g.graphLaunches().launch(log.a(c)).ops()) {
            accesses(g, ops.get(op), out);
          }
        }
        case SYNC_STREAM, SYNC_EVENT, SYNC_DEVICE, SYNC_SOME_STREAMS -> {
          if (!g.operations().nameOf(log.apiName(c)).startsWith("cudaFree")) {
            out.add(new ReplayProgram.Managed.HostSync(t, k));
          }
        }
        default -> { }
      }
    }
    return out;
  }

  /**
   * Adds operation {@code o}'s accesses to managed memory: a prefetch's region, a kernel's or
   * memset's managed allocations with the bytes it reaches in each (the larger of what it reads
   * and what it writes there). Explicit copies from or to managed memory are priced as pinned
   * copies and move nothing (docs/REPLAY.md, "Managed memory").
   */
  private static void accesses(Dvdg g, ReplayProgram.Op o, List<ReplayProgram.Managed> out) {
    OperationTable ops = g.operations();
    ValueTable values = g.values();
    int op = o.id();
    if (o.kind() == ReplayProgram.Kind.COPY) {
      boolean prefetch = o.transfer() == io.apptrace.node.TransferKind.PREFETCH_H2D
          || o.transfer() == io.apptrace.node.TransferKind.PREFETCH_D2H;
      if (prefetch && ops.inputCount(op) > 0) {
        Allocation a = g.allocation(values.allocation(ops.input(op, 0)));
        out.add(new ReplayProgram.Managed.Access(op, a.id(), o.bytes(), a.bytes(),
            o.transfer() == io.apptrace.node.TransferKind.PREFETCH_H2D ? Math.max(0, o.device()) : -1, true, false));
      }
      return;
    }
    Map<Integer, long[]> reach = new TreeMap<>(); // allocation -> {read, written}
    for (int i = 0; i < ops.inputCount(op); i++) {
      Allocation a = g.allocation(values.allocation(ops.input(op, i)));
      if (a.kind() == io.apptrace.proto.MemoryKind.MANAGED) {
        reach.computeIfAbsent(a.id(), k -> new long[2])[0] += ops.inputBytes(op, i);
      }
    }
    for (int i = 0; i < ops.outputCount(op); i++) {
      int v = ops.output(op, i);
      Allocation a = g.allocation(values.allocation(v));
      if (a.kind() == io.apptrace.proto.MemoryKind.MANAGED) {
        reach.computeIfAbsent(a.id(), k -> new long[2])[1] += values.bytes(v);
      }
    }
    reach.forEach((id, rw) -> out.add(new ReplayProgram.Managed.Access(op, id, Math.min(Math.max(rw[0], rw[1]),
        g.allocation(id).bytes()), g.allocation(id).bytes(), Math.max(0, o.device()), false, rw[1] > 0)));
  }

  private static boolean host(Dvdg g, ValueTable values, int value) {
    return g.allocation(values.allocation(value)).device() < 0;
  }
}
