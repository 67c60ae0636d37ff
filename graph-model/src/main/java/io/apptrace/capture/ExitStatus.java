package io.apptrace.capture;

/**
 * How a process ended, as {@code waitpid} reports it: it exited with a status (0-255), or a
 * signal ended it. The two are never inferred from one number.
 *
 * @param exitCode the exit status when it exited; -1 when a signal ended it
 * @param signal the signal that ended it; 0 when it exited
 */
public record ExitStatus(int exitCode, int signal) {
  public ExitStatus {
    if ((exitCode < 0) == (signal == 0) || exitCode > 255 || signal < 0) {
      throw new IllegalArgumentException("exit code " + exitCode + ", signal " + signal);
    }
  }

  /** Exited with {@code code} (0-255). */
  public static ExitStatus exited(int code) {
    return new ExitStatus(code, 0);
  }

  /** Ended by signal {@code signal}. */
  public static ExitStatus killed(int signal) {
    return new ExitStatus(-1, signal);
  }

  /**
   * Decodes a wait status as the WIFEXITED, WEXITSTATUS, WIFSIGNALED and WTERMSIG macros do.
   *
   * @throws IllegalArgumentException for a stopped or continued process, which is not an end
   */
  public static ExitStatus ofWaitStatus(int status) {
    int low = status & 0x7f;
    if (low == 0) {
      return exited((status >> 8) & 0xff);
    }
    if (low != 0x7f && (status & 0xffff) == (status & 0xff)) {
      return killed(low);
    }
    throw new IllegalArgumentException("not the status of an ended process: 0x" + Integer.toHexString(status));
  }

  /** The code a shell gives for it: the exit status, or 128+N for signal N. */
  public int shellCode() {
    return signal == 0 ? exitCode : 128 + signal;
  }
}
