package io.apptrace.calibrate;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.apptrace.node.TransferKind;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The gap benchmark (van Werkhoven et al. 2014, sec. V) and the page-fault latency benchmarks (Pearson 2018,
 * Algorithms 5.5,
 * 5.6).
 */
final class LatencyBenchmarks {
  /** A host function that holds its stream until it is opened, so that work queued behind it runs back to back. */
  private static final class Gate implements CudaRuntime.HostFn {
    private final CountDownLatch open = new CountDownLatch(1);

    @Override
    public void invoke(Pointer userData) {
      try {
        open.await(60, TimeUnit.SECONDS); // never hold a stream for ever, whatever went wrong
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void open() {
      open.countDown();
    }
  }

  private final Cuda cuda;
  private final Numa numa;
  private final Sizing sizing;

  LatencyBenchmarks(Cuda cuda, Numa numa, Sizing sizing) {
    this.cuda = cuda;
    this.numa = numa;
    this.sizing = sizing;
  }

  /**
   * The gap g of pinned copies in one direction: m chunks of c bytes issued back to back on one
   * stream behind a {@link Gate} (so that the host's issuing never leaves the copy engine idle)
   * take {@code L + o + m c G + (m - 1) g} (van Werkhoven et al. 2014, sec. V); g is the slope over m less {@code c G}
   * ({@link LogGpFit#gap}), with G from the pinned copies of the same pair.
   */
  CalibrationResult.Gap gap(TransferKind.Way way, Target t, double secondsPerByte) throws CudaException {
    numa.bind(t.numa());
    cuda.setDevice(t.gpu());
    long c = sizing.gapChunkBytes();
    int most = sizing.gapChunks().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int kind = way == TransferKind.Way.H2D ? CudaRuntime.MEMCPY_HOST_TO_DEVICE : CudaRuntime.MEMCPY_DEVICE_TO_HOST;
    try (Allocations a = new Allocations(cuda)) {
      Pointer host = a.pinned(c * most, false);
      Pointer dev = a.device(c * most);
      Pointer stream = a.stream();
      Pointer src = kind == CudaRuntime.MEMCPY_HOST_TO_DEVICE ? host : dev;
      Pointer dst = src == host ? dev : host;
      List<Stats> times = new ArrayList<>();
      try (EventTimer timer = new EventTimer(cuda, stream)) {
        for (int m : sizing.gapChunks()) {
          double[] reps = new double[sizing.reps() + 1];
          for (int r = 0; r < reps.length; r++) { // the first is a warm-up
            Gate gate = new Gate();
            cuda.check(cuda.rt.cudaLaunchHostFunc(stream, gate, Pointer.NULL), "cudaLaunchHostFunc");
            try {
              reps[r] = timer.seconds(() -> {
                try {
                  for (int k = 0; k < m; k++) {
                    cuda.memcpyAsync(dst.share(k * c), src.share(k * c), c, kind, stream);
                  }
                } finally {
                  gate.open(); // before the timer waits for the stop event, which is behind the gate
                }
              });
            } finally {
              gate.open(); // the start event's record failed: never leave the stream held
            }
          }
          times.add(Stats.of(java.util.Arrays.copyOfRange(reps, 1, reps.length)));
        }
      }
      int[] m = sizing.gapChunks().stream().mapToInt(Integer::intValue).toArray();
      double[] medians = times.stream().mapToDouble(Stats::median).toArray();
      return new CalibrationResult.Gap(way, t, c, sizing.gapChunks(), times, LogGpFit.gap(c, secondsPerByte, m,
          medians));
    }
  }

  /**
   * Pearson 2018, Algorithm 5.5 (GPU to CPU): a linked list in managed memory, one element every other page,
   * prefetched to the GPU, then walked by this thread; the host clock times the walk. The latency
   * is the slope of the time over the list's length.
   */
  CalibrationResult.PageFault faultsOnCpu(Target t) throws CudaException {
    numa.bind(t.numa());
    cuda.setDevice(t.gpu());
    List<Stats> times = new ArrayList<>();
    for (int steps : sizing.faultSteps()) {
      try (Allocations a = new Allocations(cuda)) {
        Pointer list = linkedList(a, steps);
        double[] reps = new double[sizing.reps()];
        for (int r = 0; r < reps.length; r++) {
          cuda.prefetch(list, bytes(steps), t.gpu(), -1, Pointer.NULL);
          cuda.synchronize();
          long t0 = System.nanoTime();
          long next = 0;
          for (int i = 0; i < steps; i++) {
            next = list.getLong(next * 8);
          }
          list.setLong(next * 8, 1);
          reps[r] = (System.nanoTime() - t0) * 1e-9;
        }
        times.add(Stats.of(reps));
      }
    }
    return fault("gpu_to_cpu", "gpu " + t.gpu() + " -> numa " + t.numa(), times);
  }

  /**
   * Pearson 2018, Algorithm 5.6 (to a GPU): the same list, prefetched to the CPU ({@code fromGpu} -1) or to
   * another GPU, walked by one GPU thread ({@code gpu_traverse}, Listing 5.3, loaded from PTX with
   * {@code cudaLibraryLoadData}); CUDA events time the kernel.
   */
  CalibrationResult.PageFault faultsOnGpu(String key, int fromGpu, Target t) throws CudaException {
    numa.bind(t.numa());
    cuda.setDevice(t.gpu());
    PointerByReference lib = new PointerByReference();
    Memory ptx = ptx();
    try {
      cuda.check(cuda.rt.cudaLibraryLoadData(lib, ptx, null, null, 0, null, null, 0), "cudaLibraryLoadData");
    } catch (CudaException e) {
      ptx.close();
      throw e;
    }
    List<Stats> times = new ArrayList<>();
    try (EventTimer timer = new EventTimer(cuda, Pointer.NULL)) {
      PointerByReference kernel = new PointerByReference();
      cuda.check(cuda.rt.cudaLibraryGetKernel(kernel, lib.getValue(), "gpu_traverse"), "cudaLibraryGetKernel");
      for (int steps : sizing.faultSteps()) {
        try (Allocations a = new Allocations(cuda); Memory args = new Memory(16); Memory argv = new Memory(16)) {
          Pointer list = linkedList(a, steps);
          args.setPointer(0, list);
          args.setLong(8, steps);
          argv.setPointer(0, args);
          argv.setPointer(8, args.share(8));
          double[] reps = new double[sizing.reps()];
          for (int r = 0; r < reps.length; r++) {
            cuda.prefetch(list, bytes(steps), fromGpu, -1, Pointer.NULL);
            if (fromGpu >= 0) {
              cuda.setDevice(fromGpu);
              cuda.synchronize();
              cuda.setDevice(t.gpu());
            }
            cuda.synchronize();
            reps[r] = timer.seconds(() -> cuda.check(cuda.rt.cudaLaunchKernel(kernel.getValue(),
                new CudaRuntime.Dim3(1, 1, 1), new CudaRuntime.Dim3(1, 1, 1), argv, 0, Pointer.NULL), "cudaLaunchKernel"));
          }
          times.add(Stats.of(reps));
        }
      }
    } finally {
      cuda.rt.cudaLibraryUnload(lib.getValue());
      ptx.close(); // only now: a lazily loading runtime may read the image after cudaLibraryLoadData returns
    }
    String from = fromGpu >= 0 ? "gpu " + fromGpu : "numa " + t.numa();
    return fault(key, from + " -> gpu " + t.gpu(), times);
  }

  /** The page size, from libc. */
  private interface LibC extends com.sun.jna.Library {
    int getpagesize();
  }

  /** Two pages between elements, so that a fault never brings the next element along (Pearson 2018, sec. 5.2). */
  private static long strideElements() {
    return 2L * Native.load("c", LibC.class).getpagesize() / 8;
  }

  private static long bytes(int steps) {
    return (steps + 1L) * strideElements() * 8;
  }

  /** Element i (at index i * stride) holds the index of element i + 1 (Pearson 2018, Algorithm 5.5, lines 8-10). */
  private Pointer linkedList(Allocations a, int steps) throws CudaException {
    Pointer list = a.managed(bytes(steps));
    long stride = strideElements();
    for (long i = 0; i < steps; i++) {
      list.setLong(i * stride * 8, (i + 1) * stride);
    }
    cuda.synchronize();
    return list;
  }

  private CalibrationResult.PageFault fault(String key, String where, List<Stats> times) {
    double[] steps = sizing.faultSteps().stream().mapToDouble(Integer::doubleValue).toArray();
    double[] medians = times.stream().mapToDouble(Stats::median).toArray();
    return new CalibrationResult.PageFault(key, where, sizing.faultSteps(), times, LogGpFit.slope(steps, medians));
  }

  private static Memory ptx() {
    try (InputStream in = LatencyBenchmarks.class.getResourceAsStream("gpu_traverse.ptx")) {
      byte[] text = in.readAllBytes();
      Memory m = new Memory(text.length + 1L);
      m.write(0, text, 0, text.length);
      m.setByte(text.length, (byte) 0);
      return m;
    } catch (IOException | NullPointerException e) {
      throw new IllegalStateException("gpu_traverse.ptx is missing from the class path", e);
    }
  }
}
