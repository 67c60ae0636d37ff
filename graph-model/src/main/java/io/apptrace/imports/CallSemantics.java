package io.apptrace.imports;

/**
 * What a runtime or driver function does that an importer cannot read from its record's fields:
 * whether it waits, and for what, or records an event. The source's synchronization and event
 * records then say which stream, event or device.
 */
enum CallSemantics {
  NONE,
  /** Waits for every stream of the device. */
  DEVICE_SYNC,
  STREAM_SYNC,
  EVENT_SYNC,
  /** Makes a stream wait for an event. */
  STREAM_WAIT,
  EVENT_RECORD;

  /** The semantics of function {@code fn} (a name without nsys' version suffix). */
  static CallSemantics of(String fn) {
    return switch (fn) {
      case "cudaDeviceSynchronize", "cudaThreadSynchronize", "cuCtxSynchronize" -> DEVICE_SYNC;
      case "cudaStreamSynchronize", "cudaStreamSynchronize_ptsz", "cuStreamSynchronize",
          "cuStreamSynchronize_ptsz" -> STREAM_SYNC;
      case "cudaEventSynchronize", "cuEventSynchronize" -> EVENT_SYNC;
      case "cudaStreamWaitEvent", "cudaStreamWaitEvent_ptsz", "cuStreamWaitEvent", "cuStreamWaitEvent_ptsz"
          -> STREAM_WAIT;
      case "cudaEventRecord", "cudaEventRecord_ptsz", "cudaEventRecordWithFlags",
          "cudaEventRecordWithFlags_ptsz", "cuEventRecord", "cuEventRecord_ptsz", "cuEventRecordWithFlags",
          "cuEventRecordWithFlags_ptsz" -> EVENT_RECORD;
      default -> NONE;
    };
  }

  /** Whether function {@code fn} returns before the GPU work it issues is done. */
  static boolean async(String fn) {
    return fn.contains("Async");
  }
}
