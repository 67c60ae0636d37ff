package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The progress line of long jobs (run, import, calibrate): on a terminal, from the first second on. */
class StatusLineTest {
  @Test
  void aJobOfLessThanASecondShowsNothingALongerOneRewritesItsLine() {
    StringWriter err = new StringWriter();
    long[] now = {0};
    StatusLine line = new StatusLine(new PrintWriter(err, true), true, () -> now[0]);
    now[0] = 999_000_000L;
    line.show("apptrace: recording: 1 process, 10 events");
    line.clear();
    assertThat(err.toString()).isEmpty();
    now[0] = 1_000_000_000L;
    line.show("apptrace: recording: 1 process, 20 events");
    line.show("apptrace: recording: 1 process, 30 events");
    line.clear();
    assertThat(err.toString()).isEqualTo("\r\033[Kapptrace: recording: 1 process, 20 events"
        + "\r\033[Kapptrace: recording: 1 process, 30 events\r\033[K");
  }

  @Test
  void notOnATerminalNothingExtraIsPrinted() {
    StringWriter err = new StringWriter();
    long[] now = {5_000_000_000L};
    StatusLine line = new StatusLine(new PrintWriter(err, true), false, () -> now[0]);
    now[0] += 10_000_000_000L;
    line.show("apptrace: importing x.json: 1,000 source records read");
    line.clear();
    assertThat(err.toString()).isEmpty();
  }
}
