package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Wait statuses, decoded as glibc's macros do (the values are Linux's encoding). */
class ExitStatusTest {
  @Test
  void exitStatusesAreExitStatusesWhateverTheirValue() {
    assertThat(ExitStatus.ofWaitStatus(0x0000)).isEqualTo(ExitStatus.exited(0));
    assertThat(ExitStatus.ofWaitStatus(0xff00)).isEqualTo(ExitStatus.exited(255));
    assertThat(ExitStatus.ofWaitStatus(0x8900)).isEqualTo(ExitStatus.exited(137));
    assertThat(ExitStatus.exited(255).shellCode()).isEqualTo(255);
  }

  @Test
  void signalsAreSignalsWithACoreOrWithout() {
    assertThat(ExitStatus.ofWaitStatus(0x09)).isEqualTo(ExitStatus.killed(9));
    assertThat(ExitStatus.ofWaitStatus(0x8b)).isEqualTo(ExitStatus.killed(11)); // SIGSEGV, core dumped
    assertThat(ExitStatus.killed(9).shellCode()).isEqualTo(137);
    assertThat(ExitStatus.killed(9).exitCode()).isEqualTo(-1);
  }

  @Test
  void stoppedAndContinuedAreNotEnds() {
    assertThatThrownBy(() -> ExitStatus.ofWaitStatus(0x137f)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ExitStatus.ofWaitStatus(0xffff)).isInstanceOf(IllegalArgumentException.class);
  }
}
