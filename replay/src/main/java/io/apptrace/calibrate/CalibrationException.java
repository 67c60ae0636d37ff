package io.apptrace.calibrate;

/** A calibration that cannot run or cannot be written; the message says why and what to do. */
public final class CalibrationException extends Exception {
  private static final long serialVersionUID = 1L;

  public CalibrationException(String message) {
    super(message);
  }
}
