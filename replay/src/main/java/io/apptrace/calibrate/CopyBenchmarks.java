package io.apptrace.calibrate;

import com.sun.jna.Pointer;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import java.util.ArrayList;
import java.util.List;

/**
 * The copy benchmarks of Pearson 2018, ch. 4-5, and the memset benchmark, which is timed as they are: each binds
 * the thread to its NUMA node, sets its GPU, allocates its memory once at the largest size, and times copies (or
 * memsets) of every size with CUDA events (Listing 2.4): a warm-up copy, then {@link Sizing#reps()} repetitions of
 * {@link Sizing#iterations(long)} copies each, every copy timed on its own.
 */
final class CopyBenchmarks {
  /** Told after each size, for progress. */
  interface Tick {
    void sizeDone(int done, int of);
  }

  /** A copy of some bytes, with untimed work before it (moving pages back, spoiling a cache). */
  private interface Copy {
    void issue(long bytes) throws CudaException;

    default void prepare(long bytes) throws CudaException {}
  }

  private final Cuda cuda;
  private final Numa numa;
  private final Sizing sizing;

  CopyBenchmarks(Cuda cuda, Numa numa, Sizing sizing) {
    this.cuda = cuda;
    this.numa = numa;
    this.sizing = sizing;
  }

  /** Pearson 2018, Algorithm 4.3: host memory (pinned, pageable or write-combined) on a NUMA node and a GPU. */
  List<SizeStats> hostGpu(Benchmark b, Target t, Tick tick) throws CudaException {
    numa.bind(t.numa());
    cuda.setDevice(t.gpu());
    long n = sizing.largest();
    try (Allocations a = new Allocations(cuda); EventTimer timer = new EventTimer(cuda, Pointer.NULL)) {
      Pointer dev = a.device(n);
      String mem = b.direction().equals("h2d") ? b.srcMem() : b.dstMem();
      Pointer host = mem.equals("pageable") ? a.pageable(n) : a.pinned(n, mem.equals("pinned_writecombined"));
      return b.direction().equals("h2d")
          ? sweep(timer, bytes -> cuda.memcpy(dev, host, bytes, CudaRuntime.MEMCPY_HOST_TO_DEVICE), tick)
          : sweep(timer, bytes -> cuda.memcpy(host, dev, bytes, CudaRuntime.MEMCPY_DEVICE_TO_HOST), tick);
    }
  }

  /** A copy between two buffers in one GPU's memory. */
  List<SizeStats> deviceToDevice(Target t, Tick tick) throws CudaException {
    cuda.setDevice(t.gpu());
    long n = sizing.largest();
    try (Allocations a = new Allocations(cuda); EventTimer timer = new EventTimer(cuda, Pointer.NULL)) {
      Pointer src = a.device(n);
      Pointer dst = a.device(n);
      return sweep(timer, bytes -> cuda.memcpy(dst, src, bytes, CudaRuntime.MEMCPY_DEVICE_TO_DEVICE), tick);
    }
  }

  /**
   * {@code cudaMemset} of device memory, every size of the copies: its fixed cost on the GPU is the 1-byte time
   * (docs/COST-MODEL.md, "Each kind of transfer": {@code T = memset + n / (GPU memory bandwidth x e_dram)}).
   */
  List<SizeStats> memset(Target t, Tick tick) throws CudaException {
    cuda.setDevice(t.gpu());
    long n = sizing.largest();
    try (Allocations a = new Allocations(cuda); EventTimer timer = new EventTimer(cuda, Pointer.NULL)) {
      Pointer dev = a.device(n);
      return sweep(timer, bytes -> cuda.memset(dev, bytes), tick);
    }
  }

  /**
   * Pearson 2018, Algorithm 4.4 (peer access on) or 4.5 (off, the thread bound to the staging NUMA node):
   * {@code cudaMemcpy(dst, src, n, cudaMemcpyDefault)}, timed on the destination GPU.
   */
  List<SizeStats> gpuGpu(boolean peer, Target t, Tick tick) throws CudaException {
    if (!peer) {
      numa.bind(t.numa());
    }
    long n = sizing.largest();
    try (Allocations a = new Allocations(cuda)) {
      cuda.setDevice(t.gpu());
      Pointer src = a.device(n);
      cuda.peerAccess(t.otherGpu(), peer);
      cuda.setDevice(t.otherGpu());
      Pointer dst = a.device(n);
      cuda.peerAccess(t.gpu(), peer);
      try (EventTimer timer = new EventTimer(cuda, Pointer.NULL)) {
        return sweep(timer, bytes -> cuda.memcpy(dst, src, bytes, CudaRuntime.MEMCPY_DEFAULT), tick);
      }
    }
  }

  /**
   * Pearson 2018, Algorithms 5.2 (to the GPU) and 5.4 (to the host), prefetch variants: managed memory is
   * prefetched to the other side and the device synchronized (untimed), then prefetched across.
   */
  List<SizeStats> prefetch(boolean toGpu, Target t, Tick tick) throws CudaException {
    numa.bind(t.numa());
    cuda.setDevice(t.gpu());
    long n = sizing.largest();
    try (Allocations a = new Allocations(cuda); EventTimer timer = new EventTimer(cuda, Pointer.NULL)) {
      Pointer p = a.managed(n);
      int gpu = t.gpu();
      int node = numa.binds() ? t.numa() : -1;
      return sweep(timer, new Copy() {
        @Override
        public void prepare(long bytes) throws CudaException {
          cuda.prefetch(p, bytes, toGpu ? -1 : gpu, node, Pointer.NULL);
          cuda.synchronize();
        }

        @Override
        public void issue(long bytes) throws CudaException {
          cuda.prefetch(p, bytes, toGpu ? gpu : -1, node, Pointer.NULL);
        }
      }, tick);
    }
  }

  /**
   * Pearson 2018, Algorithm 4.1: pageable memory on one NUMA node to pinned memory on another (or the same),
   * {@code cudaMemcpyHostToHost}; between NUMA nodes the source is rewritten from its own node
   * first (untimed), so that the copy does not find it in the destination's caches.
   */
  List<SizeStats> hostHost(Target t, Tick tick) throws CudaException {
    cuda.setDevice(0);
    long n = sizing.largest();
    try (Allocations a = new Allocations(cuda); EventTimer timer = new EventTimer(cuda, Pointer.NULL)) {
      numa.bind(t.numa());
      Pointer src = a.pageable(n);
      numa.bind(t.otherNuma());
      Pointer dst = a.pinned(n, false);
      boolean remote = t.numa() != t.otherNuma();
      return sweep(timer, new Copy() {
        @Override
        public void prepare(long bytes) {
          if (remote) {
            numa.bind(t.numa());
            src.setMemory(0, bytes, (byte) 0);
            numa.bind(t.otherNuma());
          }
        }

        @Override
        public void issue(long bytes) throws CudaException {
          cuda.memcpy(dst, src, bytes, CudaRuntime.MEMCPY_HOST_TO_HOST);
        }
      }, tick);
    }
  }

  private List<SizeStats> sweep(EventTimer timer, Copy copy, Tick tick) throws CudaException {
    List<SizeStats> out = new ArrayList<>();
    List<Long> sizes = sizing.sizes();
    for (int i = 0; i < sizes.size(); i++) {
      long bytes = sizes.get(i);
      copy.prepare(bytes);
      timer.seconds(() -> copy.issue(bytes)); // warm-up
      int iterations = sizing.iterations(bytes);
      double[] reps = new double[sizing.reps()];
      for (int r = 0; r < reps.length; r++) {
        double sum = 0;
        for (int k = 0; k < iterations; k++) {
          copy.prepare(bytes);
          sum += timer.seconds(() -> copy.issue(bytes));
        }
        reps[r] = sum / iterations;
      }
      out.add(new SizeStats(bytes, reps.length, iterations, Stats.of(reps)));
      tick.sizeDone(i + 1, sizes.size());
    }
    return out;
  }
}
