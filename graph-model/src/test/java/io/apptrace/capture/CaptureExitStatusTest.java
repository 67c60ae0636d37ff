package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Event;
import io.apptrace.proto.ProcessExit;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How the program ended, as the kernel says it: an exit status over 128 is an exit status, not a
 * signal, and a signal is a signal, whatever number the shell would make of either. The trace's
 * {@code ProcessExit} keeps the two apart; the capture's exit code folds them as a shell does.
 */
class CaptureExitStatusTest {
  @TempDir Path tmp;

  /** tests/cuda/exit_status.cu ends as told after 10 calls. */
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
      "return, -1, 255",
      "return, 0, 0",
      "exit, 200, 200",
      "exit, 129, 129",
      "_exit, 137, 137",
      "_exit, 255, 255"})
  void anExitStatusIsRecordedAsOneWhateverItsValue(String how, int n, int status) throws Exception {
    Captured c = Captured.run(tmp, "exit_status", how, Integer.toString(n));
    assertThat(c.result().exitCode()).isEqualTo(status);
    ProcessExit x = mainExit(c);
    assertThat(x.getExitCode()).isEqualTo(status);
    assertThat(x.getSignal()).isZero();
    assertThat(x.getClean()).isTrue();
  }

  /** SIGKILL (no handler sees it) and SIGTERM (the interposer's handler does): no exit status. */
  @ParameterizedTest(name = "signal {0}")
  @CsvSource({"9", "15"})
  void aSignalIsRecordedAsASignalWithNoExitStatus(int signal) throws Exception {
    Captured c = Captured.run(tmp, "exit_status", "kill", Integer.toString(signal));
    assertThat(c.result().exitCode()).isEqualTo(128 + signal);
    ProcessExit x = mainExit(c);
    assertThat(x.getSignal()).isEqualTo(signal);
    assertThat(x.getExitCode()).isEqualTo(-1);
  }

  private static ProcessExit mainExit(Captured c) {
    List<Event> exits = c.events(Event::hasProcessExit);
    assertThat(exits).hasSize(1);
    return exits.get(0).getProcessExit();
  }
}
