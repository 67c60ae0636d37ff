package io.apptrace.validate;

/** Measurement data that cannot be used; the message names the file and line. */
public final class DataException extends Exception {
  private static final long serialVersionUID = 1L;

  public DataException(String message) {
    super(message);
  }
}
