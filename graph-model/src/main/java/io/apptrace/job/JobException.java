package io.apptrace.job;

/** The traces given cannot be taken as one job; the message names the file or the value. */
public final class JobException extends Exception {
  private static final long serialVersionUID = 1L;

  public JobException(String message) {
    super(message);
  }
}
