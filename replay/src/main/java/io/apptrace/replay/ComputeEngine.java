package io.apptrace.replay;

import io.apptrace.node.Node;

/**
 * Each GPU's compute engine (docs/REPLAY.md, "Engines"): kernels and memsets run one at a time,
 * in the order they became ready (the earliest issued first). Where the GPU runs kernels
 * concurrently, kernels too small to fill it (fewer thread blocks than it has SMs) share it with
 * each other; so does, under {@code --keep-measured}, a kernel kept at its measured time, which
 * already holds whatever it overlapped in the trace.
 */
final class ComputeEngine {
  /** Who holds a GPU's compute engine. */
  private enum Holder {
    NONE, ONE_KERNEL, SMALL_KERNELS
  }

  private final Node node;
  private final OpTable t;
  private final Engines engines;
  private final boolean keepMeasured;
  private final Holder[] holder;
  /** Kernels and memsets running on each GPU. */
  private final int[] running;
  private final IntHeap[] queue;

  ComputeEngine(Node node, OpTable t, Engines engines, boolean keepMeasured) {
    this.node = node;
    this.t = t;
    this.engines = engines;
    this.keepMeasured = keepMeasured;
    int gpus = node.gpus().size();
    holder = new Holder[gpus];
    java.util.Arrays.fill(holder, Holder.NONE);
    running = new int[gpus];
    queue = new IntHeap[gpus];
    for (int g = 0; g < gpus; g++) {
      queue[g] = new IntHeap();
    }
  }

  void ready(int i, int g) {
    queue[g].add(i);
  }

  /** Whether a kernel fills the GPU: as many thread blocks as it has SMs (or either unknown). */
  private boolean fillsGpu(int i, Node.Gpu g) {
    long blocks = t.ops[i].blocks();
    return blocks <= 0 || g.sms() <= 0 || blocks >= g.sms();
  }

  void dispatch(int g) {
    IntHeap q = queue[g];
    Node.Gpu gpu = node.gpus().get(g);
    while (!q.isEmpty()) {
      int i = q.peek();
      boolean small = gpu.concurrentKernels() && (!fillsGpu(i, gpu) || (keepMeasured && t.ops[i].measured()));
      boolean free = running[g] == 0 || (small && holder[g] == Holder.SMALL_KERNELS);
      if (!free) {
        return;
      }
      q.poll();
      running[g]++;
      holder[g] = small ? Holder.SMALL_KERNELS : Holder.ONE_KERNEL;
      engines.start(i, engines.computeEngine(g), OpState.RUNNING, t.phase[i]);
    }
  }

  void finished(int g) {
    running[g]--;
    if (running[g] == 0) {
      holder[g] = Holder.NONE;
    }
  }
}
