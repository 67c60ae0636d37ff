package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.NodeLoader;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/REPLAY.md, "Host threads": time a thread spent off the CPU in the trace is not host compute. */
class OffCpuTimeTest {
  private static final long MS = 1_000_000;

  @Test
  void wallTimeBeyondTheCpuTimeBetweenTwoReadingsIsChargedToTheLongGap() {
    OffCpuTime o = new OffCpuTime(1);
    // first call at 0, CPU read at entry: 5 ms of CPU so far; it returns at 1 us
    assertThat(o.next(0, 0, 1_000, 5 * MS, 0)).isZero();
    // a short call 10 us later: nothing read
    assertThat(o.next(0, 11_000, 1_000, 0, 0)).isZero();
    // 20 ms later, after a gap of 20 ms: the thread used 8 ms of CPU since the first reading,
    // so 12 ms (20.012 ms of wall less 8 ms of CPU) were off the CPU, all in this gap
    assertThat(o.next(0, 20 * MS + 12_000, 1_000, 13 * MS, 0)).isEqualTo(20 * MS + 12_000 - 8 * MS);
  }

  @Test
  void neverMoreThanTheGap() {
    OffCpuTime o = new OffCpuTime(1);
    o.next(0, 0, 1_000, MS, MS); // CPU read at entry and exit
    // a long call with a reading at its exit, that spent 30 ms off the CPU inside the call
    o.next(0, 2_000, 40 * MS, 0, 11 * MS);
    // the next call, 1 ms later, after 0.2 ms of CPU: the call's 30 ms off the CPU are before the last
    // reading, not in this gap, of which 0.8 ms were off the CPU
    assertThat(o.next(0, 41 * MS + 2_000, 1_000, 11 * MS + 200_000, 0)).isEqualTo(800_000);
  }

  @Test
  void theCollectorsOwnTimeIsNotTheProgramsEither() {
    OffCpuTime o = new OffCpuTime(1);
    o.next(0, 0, 1_000, MS, 0);
    // 300 us later, all of it on the CPU, 200 us of it the collector sending its buffer
    assertThat(o.next(0, 301_000, 1_000, MS + 301_000, 0, 200_000)).isEqualTo(200_000);
    // never more than the gap
    assertThat(o.next(0, 303_000, 1_000, 0, 0, 5 * MS)).isEqualTo(1_000);
  }

  @Test
  void aProjectionLeavesOutTheTimeOffTheCpu() throws Exception {
    // two kernel launches 50 ms apart of which the thread computed 10 ms: the projection has 10 ms
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    f.kernel(0, s, "k", 1_000);
    f.host(0, 50 * MS);
    f.kernel(0, s, "k", 1_000);
    ReplayProgram p = f.build();
    List<ReplayProgram.Call> calls = p.threads().get(0).calls();
    ReplayProgram.Call second = calls.get(1);
    ReplayProgram q = new ReplayProgram(p.ops(), p.streams(), List.of(new ReplayProgram.HostThread(1, 100, List.of(
        calls.get(0), new ReplayProgram.Call(second.what(), second.entryNs(), second.durationNs(),
            second.name(), 0, 40 * MS)))), p.events());
    ReplayResult wall = Replayer.replay(p, NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    ReplayResult cpu = Replayer.replay(q, NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(wall.makespanNs() - cpu.makespanNs()).isEqualTo(40 * MS);
    assertThat(cpu.notes()).anyMatch(n -> n.contains("40.000 ms of the host time between calls (1 gap(s)) the threads"
        + " spent off the CPU"));
  }
}
