package io.apptrace.calibrate;

/**
 * A CUDA runtime call that failed: the call, its {@code cudaError_t} and the runtime's name and
 * text for it, as in {@code cudaMemcpy: invalid argument (cudaErrorInvalidValue)}.
 */
public final class CudaException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String call;
  private final int code;
  private final String errorName;

  CudaException(String call, int code, String errorName, String errorText) {
    super(call + ": " + errorText + " (" + errorName + ")");
    this.call = call;
    this.code = code;
    this.errorName = errorName;
  }

  /** The function that failed. */
  public String call() {
    return call;
  }

  /** Its {@code cudaError_t}. */
  public int code() {
    return code;
  }

  /** The error's name, such as {@code cudaErrorNotSupported}. */
  public String errorName() {
    return errorName;
  }
}
