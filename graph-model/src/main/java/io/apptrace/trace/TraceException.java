package io.apptrace.trace;

/**
 * A trace file that cannot be read: not a trace, written by a newer apptrace, or damaged before
 * its first event. The message names the file and what to do; it is meant for the user.
 */
public final class TraceException extends Exception {
  private static final long serialVersionUID = 1L;

  public TraceException(String message) {
    super(message);
  }

  public TraceException(String message, Throwable cause) {
    super(message, cause);
  }
}
