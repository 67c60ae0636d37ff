package io.apptrace.kernel;

/** A coefficients file that cannot be used; the message names the file and the key. */
public final class CoefficientsException extends Exception {
  private static final long serialVersionUID = 1L;

  public CoefficientsException(String message) {
    super(message);
  }
}
