package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector reads a thread's CPU time at its first call and around long gaps and calls, and on
 * the simulated device around every call (docs/TRACE-FORMAT.md), so that a replay can leave out
 * the time the thread was off the CPU.
 */
class ThreadCpuTimeCaptureTest {
  @TempDir Path tmp;

  @Test
  void aCaptureOnTheSimulatedDeviceCarriesTheThreadsCpuTimeAroundEveryCall() {
    Path t = tmp.resolve("p.apptrace");
    Cli r = Cli.run("run", "--sim", "-q", "-o", t.toString(), Cli.cudaTest("pipeline"));
    assertThat(r.exit()).as(r.err()).isZero();
    Cli d = Cli.run("dump", t.toString());
    assertThat(d.exit()).as(d.err()).isZero();
    List<String> calls = Arrays.stream(d.out().split("\n")).filter(l -> l.contains(" api: ")).toList();
    assertThat(calls).isNotEmpty();
    // every gap between calls is the capturing machine's: each is bounded by two readings
    assertThat(calls).allSatisfy(l -> assertThat(l).contains("thread_cpu_ns: ").contains("thread_cpu_exit_ns: "));
  }
}
