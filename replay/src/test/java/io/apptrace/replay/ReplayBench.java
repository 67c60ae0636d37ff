package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The replay benchmark of docs/BENCHMARKS.md: a synthetic program of OPS operations (THREADS host
 * threads, each driving STREAMS streams through the canonical pipeline: a pinned host-to-device
 * chunk, a kernel with a measured time, a device-to-host chunk; an event every 16 iterations, a
 * stream synchronization every 64), replayed on a bundled node; prints operations per second and
 * the heap the replay needed. Usage: ReplayBench OPS [NODE] [ROUNDS]
 */
public final class ReplayBench {
  static final int THREADS = 4;
  static final int STREAMS = 2;

  private ReplayBench() {}

  static ReplayProgram program(int ops) {
    List<ReplayProgram.Op> list = new ArrayList<>(ops);
    List<CallLog.Stream> streams = new ArrayList<>();
    List<List<ReplayProgram.Call>> calls = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      calls.add(new ArrayList<>());
      for (int s = 0; s < STREAMS; s++) {
        streams.add(new CallLog.Stream(1, t % 2, false, false, false, 0x100 + t * STREAMS + s));
      }
    }
    long[] clock = new long[THREADS];
    int events = 0;
    int iteration = 0;
    while (list.size() + 3 <= ops) {
      int t = iteration % THREADS;
      int s = t * STREAMS + (iteration / THREADS) % STREAMS;
      int device = t % 2;
      long bytes = 256L << 10;
      for (int k = 0; k < 3; k++) {
        int id = list.size();
        ReplayProgram.Op op = switch (k) {
          case 0 -> new ReplayProgram.Op(id, ReplayProgram.Kind.COPY, "cudaMemcpyAsync", s, device, -1,
              TransferKind.PINNED_H2D, bytes, -1, -1, -1, bytes, 0, 0, 0, false);
          case 1 -> new ReplayProgram.Op(id, ReplayProgram.Kind.KERNEL, "kernel", s, device, -1, null, 0, -1, 0, 20_000,
              2 * bytes, 0, 0, 1024, false);
          default -> new ReplayProgram.Op(id, ReplayProgram.Kind.COPY, "cudaMemcpyAsync", s, device, -1,
              TransferKind.PINNED_D2H, bytes, -1, -1, -1, bytes, 0, 0, 0, false);
        };
        list.add(op);
        calls.get(t).add(new ReplayProgram.Call(new HostCall.IssueOp(id, s), clock[t], 2_000, op.name()));
        clock[t] += 3_000;
      }
      if (iteration % 16 == 15) {
        calls.get(t).add(new ReplayProgram.Call(new HostCall.RecordEvent(s, events++), clock[t], 1_000,
            "cudaEventRecord"));
        clock[t] += 1_500;
      }
      if (iteration % 64 == 63) {
        calls.get(t).add(new ReplayProgram.Call(new HostCall.SyncStream(s), clock[t], 1_000,
            "cudaStreamSynchronize"));
        clock[t] += 1_500;
      }
      iteration++;
    }
    List<ReplayProgram.HostThread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      threads.add(new ReplayProgram.HostThread(1, 100 + t, calls.get(t)));
    }
    return new ReplayProgram(list, streams, threads, events);
  }

  public static void main(String[] args) throws Exception {
    int ops = Integer.parseInt(args[0]);
    Node node = NodeLoader.resolve(args.length > 1 ? args[1] : "dgx1");
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    ReplayProgram p = program(ops);
    System.gc();
    long programHeap = usedHeap();
    for (int r = 0; r < rounds; r++) {
      resetPeaks();
      long t0 = System.nanoTime();
      ReplayResult res = Replayer.replay(p, node, Replayer.Options.defaults().withSamples(false));
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "round %d: %,d operations replayed on %s in %.2f s: %,.0f operations/s;"
          + " makespan %.3f s; peak heap %,d MiB (the program alone %,d MiB)%n", r + 1, p.ops().size(),
          node.name(), s, p.ops().size() / s, res.makespanNs() * 1e-9, peakHeapMiB(), programHeap >> 20);
    }
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
  }

  private static long peakHeapMiB() {
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    return peak >> 20;
  }
}
