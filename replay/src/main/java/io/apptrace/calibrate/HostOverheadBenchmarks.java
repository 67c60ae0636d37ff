package io.apptrace.calibrate;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.apptrace.calibrate.CalibrationResult.CallSeries;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import io.apptrace.node.ApiClass;
import java.util.ArrayList;
import java.util.List;

/**
 * The host-overhead benchmarks (docs/CALIBRATE.md, "CUDA calls"): the own cost of a CUDA call of each class of the
 * replay's host-overhead model ({@link ApiClass}), on GPU 0 with the thread bound to its NUMA node. Each call is
 * timed on its own by the host clock ({@link System#nanoTime}) around its JNA call, after one untimed warm-up call;
 * the class's cost is the median over {@link Sizing#callSamples()} calls (the calls that pin or unpin memory: over
 * {@link Sizing#pinSamples()} calls of each of {@link Sizing#pinSizes()}). Every time includes what JNA itself adds
 * to a call, which {@link #jnaCall} measures the same way on a trivial native call, and which the fit takes off.
 *
 * <p>Not measured: {@link ApiClass#CONTEXT_CREATE} (the context exists before the first benchmark, and a process
 * creates it once) and {@link ApiClass#MODULE} (the runtime registers its modules when the process loads it).
 */
final class HostOverheadBenchmarks {
  /** The trivial native call of {@link #jnaCall}: libc's {@code getpagesize}, no arguments and no system call. */
  static final String JNA_CALL = "getpagesize";
  /** The size of the device and managed allocations timed. */
  static final long ALLOC_BYTES = 1L << 20;

  /** libc, bound through JNA as the CUDA runtime is. */
  private interface LibC extends Library {
    int getpagesize();
  }

  /** One CUDA call, returning its error code. */
  private interface Call {
    int invoke();
  }

  private final Cuda cuda;
  private final Numa numa;
  private final Sizing sizing;

  HostOverheadBenchmarks(Cuda cuda, Numa numa, Sizing sizing) {
    this.cuda = cuda;
    this.numa = numa;
    this.sizing = sizing;
  }

  /** The JNA call overhead: {@code getpagesize} from libc through JNA, timed as the CUDA calls are. */
  SizeStats jnaCall() {
    LibC libc = Native.load("c", LibC.class);
    int n = sizing.callSamples();
    double[] t = new double[n];
    for (int i = -1; i < n; i++) { // -1: the warm-up
      long t0 = System.nanoTime();
      libc.getpagesize();
      long t1 = System.nanoTime();
      if (i >= 0) {
        t[i] = (t1 - t0) * 1e-9;
      }
    }
    return stats(0, t);
  }

  /** {@code cudaMalloc} and {@code cudaFree} of {@link #ALLOC_BYTES}, in turn. */
  List<CallSeries> deviceAllocFree(Target t) throws CudaException {
    at(t);
    int n = sizing.callSamples();
    double[] alloc = new double[n];
    double[] free = new double[n];
    PointerByReference p = new PointerByReference();
    for (int i = -1; i < n; i++) {
      double a = time(() -> cuda.rt.cudaMalloc(p, ALLOC_BYTES), "cudaMalloc");
      Pointer ptr = p.getValue();
      double f = time(() -> cuda.rt.cudaFree(ptr), "cudaFree");
      keep(i, alloc, a, free, f);
    }
    return List.of(series(ApiClass.DEVICE_ALLOC, "cudaMalloc", ALLOC_BYTES, alloc),
        series(ApiClass.DEVICE_FREE, "cudaFree", ALLOC_BYTES, free));
  }

  /** {@code cudaMallocManaged} of {@link #ALLOC_BYTES} (each freed, untimed). */
  CallSeries managedAlloc(Target t) throws CudaException {
    at(t);
    int n = sizing.callSamples();
    double[] alloc = new double[n];
    PointerByReference p = new PointerByReference();
    for (int i = -1; i < n; i++) {
      double a = time(() -> cuda.rt.cudaMallocManaged(p, ALLOC_BYTES, CudaRuntime.MEM_ATTACH_GLOBAL),
          "cudaMallocManaged");
      cuda.check(cuda.rt.cudaFree(p.getValue()), "cudaFree");
      if (i >= 0) {
        alloc[i] = a;
      }
    }
    return series(ApiClass.MANAGED_ALLOC, "cudaMallocManaged", ALLOC_BYTES, alloc);
  }

  /** {@code cudaHostAlloc} (default flags) and {@code cudaFreeHost}, in turn, at every pinning size. */
  List<CallSeries> hostAllocFree(Target t, CopyBenchmarks.Tick tick) throws CudaException {
    at(t);
    List<SizeStats> alloc = new ArrayList<>();
    List<SizeStats> free = new ArrayList<>();
    PointerByReference p = new PointerByReference();
    List<Long> sizes = sizing.pinSizes();
    for (int s = 0; s < sizes.size(); s++) {
      long bytes = sizes.get(s);
      int n = sizing.pinSamples();
      double[] a = new double[n];
      double[] f = new double[n];
      for (int i = -1; i < n; i++) {
        double ta = time(() -> cuda.rt.cudaHostAlloc(p, bytes, CudaRuntime.HOST_ALLOC_DEFAULT), "cudaHostAlloc");
        Pointer ptr = p.getValue();
        double tf = time(() -> cuda.rt.cudaFreeHost(ptr), "cudaFreeHost");
        keep(i, a, ta, f, tf);
      }
      alloc.add(stats(bytes, a));
      free.add(stats(bytes, f));
      tick.sizeDone(s + 1, sizes.size());
    }
    return List.of(new CallSeries(ApiClass.HOST_ALLOC, "cudaHostAlloc", alloc),
        new CallSeries(ApiClass.HOST_FREE, "cudaFreeHost", free));
  }

  /**
   * {@code cudaHostRegister} (default flags) and {@code cudaHostUnregister}, in turn, of malloc'd memory written
   * once (so that its pages exist) at every pinning size.
   */
  List<CallSeries> hostRegisterUnregister(Target t, CopyBenchmarks.Tick tick) throws CudaException {
    at(t);
    List<SizeStats> reg = new ArrayList<>();
    List<SizeStats> unreg = new ArrayList<>();
    List<Long> sizes = sizing.pinSizes();
    for (int s = 0; s < sizes.size(); s++) {
      long bytes = sizes.get(s);
      int n = sizing.pinSamples();
      double[] r = new double[n];
      double[] u = new double[n];
      try (Memory m = new Memory(bytes)) {
        m.clear();
        for (int i = -1; i < n; i++) {
          double tr = time(() -> cuda.rt.cudaHostRegister(m, bytes, CudaRuntime.HOST_REGISTER_DEFAULT),
              "cudaHostRegister");
          double tu = time(() -> cuda.rt.cudaHostUnregister(m), "cudaHostUnregister");
          keep(i, r, tr, u, tu);
        }
      }
      reg.add(stats(bytes, r));
      unreg.add(stats(bytes, u));
      tick.sizeDone(s + 1, sizes.size());
    }
    return List.of(new CallSeries(ApiClass.HOST_REGISTER, "cudaHostRegister", reg),
        new CallSeries(ApiClass.HOST_UNREGISTER, "cudaHostUnregister", unreg));
  }

  /** {@code cudaStreamCreate} and {@code cudaStreamDestroy}, in turn. */
  List<CallSeries> streamCreateDestroy(Target t) throws CudaException {
    return createDestroy(t, ApiClass.STREAM_CREATE, "cudaStreamCreate", cuda.rt::cudaStreamCreate,
        ApiClass.STREAM_DESTROY, "cudaStreamDestroy", cuda.rt::cudaStreamDestroy);
  }

  /** {@code cudaEventCreate} and {@code cudaEventDestroy}, in turn. */
  List<CallSeries> eventCreateDestroy(Target t) throws CudaException {
    return createDestroy(t, ApiClass.EVENT_CREATE, "cudaEventCreate", cuda.rt::cudaEventCreate,
        ApiClass.EVENT_DESTROY, "cudaEventDestroy", cuda.rt::cudaEventDestroy);
  }

  /** A call that creates a handle into its argument, and one that destroys a handle. */
  private interface Create {
    int invoke(PointerByReference handle);
  }

  private interface Destroy {
    int invoke(Pointer handle);
  }

  /** A handle created and destroyed in turn, each call timed on its own. */
  private List<CallSeries> createDestroy(Target t, ApiClass createClass, String createName, Create create,
      ApiClass destroyClass, String destroyName, Destroy destroy) throws CudaException {
    at(t);
    int n = sizing.callSamples();
    double[] created = new double[n];
    double[] destroyed = new double[n];
    PointerByReference p = new PointerByReference();
    for (int i = -1; i < n; i++) {
      double c = time(() -> create.invoke(p), createName);
      Pointer h = p.getValue();
      double d = time(() -> destroy.invoke(h), destroyName);
      keep(i, created, c, destroyed, d);
    }
    return List.of(series(createClass, createName, 0, created), series(destroyClass, destroyName, 0, destroyed));
  }

  /**
   * {@code cudaEventRecord} on an idle stream, and {@code cudaStreamSynchronize} of that idle stream (a blocking
   * call with nothing to wait for: its own cost); the stream is synchronized, untimed, after each record.
   */
  List<CallSeries> recordAndSync(Target t) throws CudaException {
    at(t);
    int n = sizing.callSamples();
    double[] record = new double[n];
    double[] sync = new double[n];
    try (Allocations a = new Allocations(cuda)) {
      Pointer stream = a.stream();
      Pointer event = cuda.event();
      try {
        for (int i = -1; i < n; i++) {
          double r = time(() -> cuda.rt.cudaEventRecord(event, stream), "cudaEventRecord");
          cuda.check(cuda.rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          double s = time(() -> cuda.rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          keep(i, record, r, sync, s);
        }
      } finally {
        cuda.rt.cudaEventDestroy(event);
      }
    }
    return List.of(series(ApiClass.EVENT_RECORD, "cudaEventRecord", 0, record),
        series(ApiClass.SYNC, "cudaStreamSynchronize", 0, sync));
  }

  /**
   * {@code cudaGraphLaunch} of a graph of one empty node on an idle stream (the stream synchronized, untimed, after
   * each): the host's cost of one graph launch, whatever runs in it.
   */
  CallSeries graphLaunch(Target t) throws CudaException {
    at(t);
    int n = sizing.callSamples();
    double[] launch = new double[n];
    PointerByReference g = new PointerByReference();
    PointerByReference node = new PointerByReference();
    PointerByReference exec = new PointerByReference();
    try (Allocations a = new Allocations(cuda)) {
      Pointer stream = a.stream();
      cuda.check(cuda.rt.cudaGraphCreate(g, 0), "cudaGraphCreate");
      try {
        cuda.check(cuda.rt.cudaGraphAddEmptyNode(node, g.getValue(), null, 0), "cudaGraphAddEmptyNode");
        cuda.check(cuda.rt.cudaGraphInstantiate(exec, g.getValue(), 0), "cudaGraphInstantiate");
        try {
          for (int i = -1; i < n; i++) {
            double l = time(() -> cuda.rt.cudaGraphLaunch(exec.getValue(), stream), "cudaGraphLaunch");
            cuda.check(cuda.rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            if (i >= 0) {
              launch[i] = l;
            }
          }
        } finally {
          cuda.rt.cudaGraphExecDestroy(exec.getValue());
        }
      } finally {
        cuda.rt.cudaGraphDestroy(g.getValue());
      }
    }
    return series(ApiClass.GRAPH_LAUNCH, "cudaGraphLaunch", 0, launch);
  }

  /** {@code cudaGetLastError}, a query: the class of every other call. */
  CallSeries other(Target t) throws CudaException {
    at(t);
    int n = sizing.callSamples();
    double[] q = new double[n];
    for (int i = -1; i < n; i++) {
      double x = time(cuda.rt::cudaGetLastError, "cudaGetLastError");
      if (i >= 0) {
        q[i] = x;
      }
    }
    return series(ApiClass.OTHER, "cudaGetLastError", 0, q);
  }

  private void at(Target t) throws CudaException {
    numa.bind(t.numa());
    cuda.setDevice(t.gpu());
  }

  /** The host clock around one call, in seconds. */
  private double time(Call c, String name) throws CudaException {
    long t0 = System.nanoTime();
    int e = c.invoke();
    long t1 = System.nanoTime();
    cuda.check(e, name);
    return (t1 - t0) * 1e-9;
  }

  /** Keeps a pair of times unless {@code i} is the warm-up (-1). */
  private static void keep(int i, double[] a, double ta, double[] b, double tb) {
    if (i >= 0) {
      a[i] = ta;
      b[i] = tb;
    }
  }

  private static SizeStats stats(long bytes, double[] times) {
    return new SizeStats(bytes, times.length, 1, Stats.of(times));
  }

  private static CallSeries series(ApiClass c, String call, long bytes, double[] times) {
    return new CallSeries(c, call, List.of(stats(bytes, times)));
  }
}
