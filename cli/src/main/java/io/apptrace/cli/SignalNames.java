package io.apptrace.cli;

import java.util.Locale;

/** Linux's names of signals, for saying how a process ended. */
final class SignalNames {
  private static final String[] NAMES = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP",
      "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",
      "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG",
      "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};
  /** glibc's SIGRTMIN: the kernel's first two real-time signals are the thread library's. */
  private static final int RTMIN = 34;
  private static final int RTMAX = 64;

  private SignalNames() {}

  /** {@code signal 9 (SIGKILL)}; a number Linux has no signal for is given alone. */
  static String describe(int signal) {
    String name = signal > 0 && signal < NAMES.length ? NAMES[signal]
        : signal >= RTMIN && signal <= RTMAX ? "SIGRTMIN+" + (signal - RTMIN) : null;
    return String.format(Locale.ROOT, "signal %d%s", signal, name == null ? "" : " (" + name + ")");
  }
}
