package io.apptrace.capture;

/**
 * A capture that could not start or finish for a reason the user can act on (a command that does
 * not exist, an output path that cannot be written). The message says what and which; {@link
 * #exitCode()} is the exit code the command should end with (127 for a command not found, as a
 * shell does; 126 for one that cannot be executed; 1 otherwise).
 */
public final class CaptureException extends Exception {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  public CaptureException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  public CaptureException(String message, int exitCode, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
