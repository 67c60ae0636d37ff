package io.apptrace.calibrate;

import com.sun.jna.Pointer;

/**
 * Times work with two CUDA events on a stream of the current device, as Pearson 2018, Listing 2.4 does:
 * record the start, issue the work, record the stop, wait for it, and take the elapsed time. On the
 * simulated runtime the two events measure exactly the work's modeled duration
 * (docs/SIMULATED-DEVICE.md, "Simulated time").
 */
final class EventTimer implements AutoCloseable {
  /** Work to time. */
  interface Work {
    void issue() throws CudaException;
  }

  private final Cuda cuda;
  private final Pointer stream;
  private final Pointer start;
  private final Pointer stop;

  /** Events on the current device, recorded on {@code stream} (null: the legacy default stream). */
  EventTimer(Cuda cuda, Pointer stream) throws CudaException {
    this.cuda = cuda;
    this.stream = stream;
    this.start = cuda.event();
    Pointer s;
    try {
      s = cuda.event();
    } catch (CudaException e) {
      cuda.rt.cudaEventDestroy(start);
      throw e;
    }
    this.stop = s;
  }

  /** The time the work takes on the stream, in seconds. */
  double seconds(Work work) throws CudaException {
    cuda.check(cuda.rt.cudaEventRecord(start, stream), "cudaEventRecord");
    work.issue();
    cuda.check(cuda.rt.cudaEventRecord(stop, stream), "cudaEventRecord");
    return cuda.elapsedSeconds(start, stop);
  }

  @Override
  public void close() {
    cuda.rt.cudaEventDestroy(start);
    cuda.rt.cudaEventDestroy(stop);
  }
}
