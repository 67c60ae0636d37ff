package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector reads a thread's CPU time at its first call and around long gaps and calls (on the
 * simulated device, over 10 us; docs/TRACE-FORMAT.md), so that a replay can leave out the time the
 * thread was off the CPU.
 */
class ThreadCpuTimeCaptureTest {
  @TempDir Path tmp;

  @Test
  void aCaptureCarriesTheThreadsCpuTimeAtItsFirstCallAndAfterGaps() {
    Path t = tmp.resolve("p.apptrace");
    Cli r = Cli.run("run", "--sim", "-q", "-o", t.toString(), Cli.cudaTest("pipeline"));
    assertThat(r.exit()).as(r.err()).isZero();
    Cli d = Cli.run("dump", t.toString());
    assertThat(d.exit()).as(d.err()).isZero();
    List<String> calls = Arrays.stream(d.out().split("\n")).filter(l -> l.contains(" api: ")).toList();
    assertThat(calls).isNotEmpty();
    // the first API call has a reading; calls that follow closely have none (a read costs a system call)
    assertThat(calls.get(0)).contains("thread_cpu_ns: ");
    assertThat(calls.stream().filter(l -> l.contains("thread_cpu_ns: ")).count()).isLessThan(calls.size());
  }
}
