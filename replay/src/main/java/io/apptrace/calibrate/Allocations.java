package io.apptrace.calibrate;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The memory one benchmark uses, freed together when it ends. Host memory is allocated by the
 * calling thread, so it lands on the NUMA node that thread is bound to (Pearson 2018, Algorithm 4.2).
 */
final class Allocations implements AutoCloseable {
  private final Cuda cuda;
  private final Deque<Runnable> frees = new ArrayDeque<>();

  Allocations(Cuda cuda) {
    this.cuda = cuda;
  }

  /** {@code cudaMalloc} on the current device, zeroed so that it is backed (Pearson 2018, Algorithm 4.4). */
  Pointer device(long bytes) throws CudaException {
    PointerByReference p = new PointerByReference();
    cuda.check(cuda.rt.cudaMalloc(p, bytes), "cudaMalloc");
    Pointer ptr = p.getValue();
    frees.push(() -> cuda.rt.cudaFree(ptr));
    cuda.memset(ptr, bytes);
    return ptr;
  }

  /**
   * Page-locked host memory from {@code cudaHostAlloc}: the default kind, or write-combined
   * (Pearson 2018, Algorithm 4.2, AllocWriteCombined).
   */
  Pointer pinned(long bytes, boolean writeCombined) throws CudaException {
    PointerByReference p = new PointerByReference();
    cuda.check(cuda.rt.cudaHostAlloc(p, bytes, writeCombined ? CudaRuntime.HOST_ALLOC_WRITE_COMBINED
        : CudaRuntime.HOST_ALLOC_DEFAULT), "cudaHostAlloc");
    Pointer ptr = p.getValue();
    frees.push(() -> cuda.rt.cudaFreeHost(ptr));
    return ptr;
  }

  /** Pageable host memory from malloc, written once so that its pages exist (Pearson 2018, Algorithm 4.1). */
  Pointer pageable(long bytes) {
    Memory m = new Memory(bytes);
    m.clear();
    frees.push(m::close);
    return m;
  }

  /** Managed memory, zeroed so that its pages exist (Pearson 2018, Algorithm 5.2). */
  Pointer managed(long bytes) throws CudaException {
    PointerByReference p = new PointerByReference();
    cuda.check(cuda.rt.cudaMallocManaged(p, bytes, CudaRuntime.MEM_ATTACH_GLOBAL), "cudaMallocManaged");
    Pointer ptr = p.getValue();
    frees.push(() -> cuda.rt.cudaFree(ptr));
    cuda.memset(ptr, bytes);
    cuda.synchronize();
    return ptr;
  }

  /** A stream of the current device. */
  Pointer stream() throws CudaException {
    Pointer s = cuda.stream();
    frees.push(() -> cuda.rt.cudaStreamDestroy(s));
    return s;
  }

  /** Frees everything, newest first; a free that fails (after a device error) is not reported again. */
  @Override
  public void close() {
    while (!frees.isEmpty()) {
      frees.pop().run();
    }
    cuda.rt.cudaGetLastError();
  }
}
