package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * A bug in apptrace is exit 70, "internal error" and a stack trace that says where (docs/CLI.md),
 * also when what was thrown is one of the JDK's internal exceptions, which carry no stack trace:
 * `apptrace run: internal error: sun.nio.fs.UnixException: Bad file descriptor` and nothing else
 * told nobody where it came from.
 */
class InternalErrorTest {
  /** Like sun.nio.fs.UnixException: a checked exception that overrides fillInStackTrace. */
  static final class Frameless extends Exception {
    Frameless(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  /** A command that fails with a given exception. */
  @Command(name = "fail")
  static final class Failing implements Callable<Integer> {
    private final Exception thrown;

    Failing(Exception thrown) {
      this.thrown = thrown;
    }

    @Override
    public Integer call() throws Exception {
      throw thrown;
    }
  }

  private static Cli fail(Exception e) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    PrintWriter o = new PrintWriter(out, true);
    PrintWriter w = new PrintWriter(err, true);
    CommandLine cl = Main.commandLine(o, w, "run");
    cl.addSubcommand("fail", new Failing(e));
    cl.setOut(o); // to the command just added too
    cl.setErr(w);
    int code = cl.execute("fail");
    return new Cli(code, out.toString(), err.toString());
  }

  @Test
  void anExceptionWithoutAStackTraceIsNamedAsSuch() {
    Cli r = fail(new Frameless("Bad file descriptor"));
    assertThat(r.exit()).isEqualTo(ExitCodes.INTERNAL);
    String name = Frameless.class.getName();
    assertThat(r.err()).startsWith("apptrace fail: internal error: " + name + ": Bad file descriptor\n")
        .contains("apptrace fail: " + name + " carries no stack trace of its own: it is one of the JDK's internal"
            + " exceptions, which escaped untranslated; nothing above says where it arose");
  }

  /** What apptrace run throws for one (io.apptrace.capture.Capture): where, with a stack, and the cause. */
  @Test
  void aWrappedOneGivesTheWrappersStackAndItsCause() {
    Frameless cause = new Frameless("Bad file descriptor");
    Cli r = fail(new IOException("apptrace run failed while removing the collector's folder /tmp/apptrace-1: "
        + cause, cause));
    assertThat(r.exit()).isEqualTo(ExitCodes.INTERNAL);
    assertThat(r.err()).startsWith("apptrace fail: internal error: java.io.IOException: apptrace run failed while"
            + " removing the collector's folder /tmp/apptrace-1: " + Frameless.class.getName() + ": Bad file descriptor\n")
        .contains("\tat io.apptrace.cli.InternalErrorTest.aWrappedOneGivesTheWrappersStackAndItsCause(")
        .contains("Caused by: " + Frameless.class.getName() + ": Bad file descriptor")
        .contains("carries no stack trace of its own: it is one of the JDK's internal exceptions, which escaped"
            + " untranslated; the exception it caused says where");
  }
}
