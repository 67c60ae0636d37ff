package io.apptrace.cli;

/** The exit codes of apptrace commands (besides {@code run}, which exits with the program's). */
final class ExitCodes {
  static final int OK = 0;
  /** Bad input: a file that cannot be read, a value that makes no sense. */
  static final int BAD_INPUT = 1;
  /** Bad usage: an unknown option, a missing argument. */
  static final int BAD_USAGE = 2;
  /** A bug in apptrace: the message says "internal error" and the stack trace follows. */
  static final int INTERNAL = 70;

  private ExitCodes() {}
}
