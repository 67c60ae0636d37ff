package io.apptrace.cli;

/**
 * Bad input a user can fix: printed as {@code apptrace <command>: <message>}, exit 1 (or the
 * given code). Never shown with a stack trace.
 */
final class UserException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  UserException(String message) {
    this(message, ExitCodes.BAD_INPUT);
  }

  UserException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
