package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.graph.CallLog;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/REPLAY.md, "Regions of interest": a replay of part of a program. */
class RegionOfInterestTest {
  private static final long MS = 1_000_000;

  /**
   * 100 ms of set-up (host work), then two iterations "step" of a copy and a kernel 10 ms apart
   * with 30 ms of host work between them, then 50 ms of tear-down.
   */
  private static ReplayProgram program() {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    f.hostCall(0, 1_000).host(0, 100 * MS); // set-up: ends at 100.001 ms
    f.copy(0, s, TransferKind.PINNED_H2D, 1 << 20); // step 1 at 100.001 ms
    f.kernel(0, s, "k", 2 * MS);
    f.syncStream(0, s);
    f.host(0, 30 * MS);
    f.copy(0, s, TransferKind.PINNED_H2D, 1 << 20); // step 2 at 130.001 ms
    f.kernel(0, s, "k", 2 * MS);
    f.syncStream(0, s);
    f.host(0, 50 * MS).hostCall(0, 1_000); // tear-down at 180.001 ms
    ReplayProgram p = f.build();
    return p.withAnnotations(List.of(new CallLog.Range(0, "step", "", 100 * MS, 110 * MS),
        new CallLog.Range(0, "step", "", 130 * MS, 140 * MS)), List.of(new CallLog.Mark(0, "go", "", 130 * MS)));
  }

  @Test
  void skipSetupStartsAtTheFirstCopyOrKernel() throws Exception {
    ReplayProgram p = program();
    RegionOfInterest r = RegionOfInterest.skipSetup(p);
    ReplayProgram cut = r.cut(p);
    assertThat(cut.ops()).hasSize(4);
    assertThat(cut.threads().get(0).calls()).hasSize(7); // the set-up call is left out
    Node n = NodeLoader.resolve("dgx1");
    ReplayResult whole = Replayer.replay(p, n, Replayer.Options.defaults());
    ReplayResult part = Replayer.replay(cut, n, Replayer.Options.defaults());
    // the 100 ms of set-up and the first call's 1 us are gone, nothing else changes
    assertThat(part.makespanNs()).isEqualTo(whole.makespanNs() - 100 * MS - 1_000);
  }

  @Test
  void everyInstanceOfARangeFollowsTheOther() throws Exception {
    ReplayProgram p = program();
    ReplayProgram cut = RegionOfInterest.range(p, "step").cut(p);
    assertThat(cut.ops()).hasSize(4);
    Node n = NodeLoader.resolve("dgx1");
    ReplayResult part = Replayer.replay(cut, n, Replayer.Options.defaults());
    ReplayResult one = Replayer.replay(RegionOfInterest.range(p, "step#2").cut(p), n, Replayer.Options.defaults());
    // the instances' calls keep their host time, the 20 ms between the instances are left out: step 2's
    // calls start 10 ms after step 1's (its copy at 10 ms, not 30 ms)
    assertThat(cut.threads().get(0).calls().get(3).entryNs() - cut.threads().get(0).calls().get(0).entryNs())
        .isEqualTo(10 * MS);
    assertThat(one.program().ops()).hasSize(2);
    // each instance takes what instance 2 alone takes, with the 10 ms of host time left between them
    assertThat(part.makespanNs()).isEqualTo(2 * one.makespanNs() + 10 * MS);
  }

  @Test
  void fromAMarkToACall() throws Exception {
    ReplayProgram p = program();
    ReplayProgram cut = RegionOfInterest.between(p, "go", "cudaStreamSynchronize#2").cut(p);
    assertThat(cut.ops()).hasSize(2); // step 2
    assertThat(cut.threads().get(0).calls()).extracting(ReplayProgram.Call::name)
        .containsExactly("cudaMemcpyAsync", "cudaLaunchKernel", "cudaStreamSynchronize");
  }

  @Test
  void aRegionTheTraceLacksSaysWhatItHas() {
    ReplayProgram p = program();
    assertThatThrownBy(() -> RegionOfInterest.range(p, "stpe")).hasMessage(
        "--roi: the trace has no range named 'stpe' (it has: step)");
    assertThatThrownBy(() -> RegionOfInterest.range(p, "step#3")).hasMessage(
        "--roi: the trace has 2 instance(s) of range 'step', not 3");
    assertThatThrownBy(() -> RegionOfInterest.between(p, "cudaStreamSynchronize#2", "go")).hasMessage(
        "--roi-to: 'go' is not after 'cudaStreamSynchronize#2' in the trace");
    assertThatThrownBy(() -> RegionOfInterest.range(p, "step#0")).hasMessageContaining("instances count from 1");
  }

  @Test
  void numberedRangesAreInstancesOfTheirNameAndTheNameAsWrittenComesFirst() throws Exception {
    // Kineto names its steps ProfilerStep#N, N counting from where the profiler started
    ReplayProgram p = program().withAnnotations(List.of(
        new CallLog.Range(0, "ProfilerStep#550", "", 100 * MS, 110 * MS),
        new CallLog.Range(0, "ProfilerStep#551", "", 130 * MS, 140 * MS)), List.of());
    RegionOfInterest all = RegionOfInterest.range(p, "ProfilerStep");
    assertThat(all.description()).isEqualTo("range 'ProfilerStep', 2 instance(s)");
    assertThat(all.cut(p).ops()).hasSize(4);

    RegionOfInterest own = RegionOfInterest.range(p, "ProfilerStep#551");
    assertThat(own.description()).isEqualTo("range 'ProfilerStep#551', 1 instance(s)");
    assertThat(own.windows()).containsExactly(new long[] {130 * MS, 140 * MS});

    RegionOfInterest first = RegionOfInterest.range(p, "ProfilerStep#1");
    assertThat(first.description()).isEqualTo("range 'ProfilerStep', instance 1 of 2 (ProfilerStep#550)");
    assertThat(first.windows()).containsExactly(new long[] {100 * MS, 110 * MS});
    assertThat(first.cut(p).ops()).hasSize(2);

    assertThatThrownBy(() -> RegionOfInterest.range(p, "ProfilerStep#3")).hasMessage("--roi: the trace has no range"
        + " named 'ProfilerStep#3', and 2 instance(s) of range 'ProfilerStep' (ProfilerStep#550 to"
        + " ProfilerStep#551), not 3");
    // a name that merely starts the same is no instance
    assertThatThrownBy(() -> RegionOfInterest.range(p, "Profiler")).hasMessageStartingWith(
        "--roi: the trace has no range named 'Profiler'");
  }

  @Test
  void aRegionAfterTheContextWasCreatedDoesNotCreateItAgain() throws Exception {
    ProgramFixture f = new ProgramFixture().simulated();
    int s = f.blocking();
    f.api(0, "cudaMalloc", 1_000, 1 << 20).host(0, 10 * MS); // creates the context
    f.kernel(0, s, "k", 100_000);
    f.syncStream(0, s);
    ReplayProgram p = f.build();
    Node n = NodeLoader.resolve("dgx1");
    ReplayResult whole = Replayer.replay(p, n, Replayer.Options.defaults());
    assertThat(whole.notes()).anyMatch(x -> x.contains("1 context creation(s)"));
    ReplayResult part = Replayer.replay(RegionOfInterest.skipSetup(p).cut(p), n, Replayer.Options.defaults());
    assertThat(part.notes()).noneMatch(x -> x.contains("context creation"));
    assertThat(part.makespanNs()).isLessThan(1e6); // the kernel and its launch, not 234 ms of context creation
  }
  /**
   * A call inside the region that waits for work issued before it does not wait for it: the
   * region starts after a 10 ms kernel was launched, and its cudaStreamSynchronize returns at once.
   *
   * <pre>
   *   whole:   s [K 10 ms ............]   thread [launch](1 ms)[sync ....... 10 ms]
   *   region:                             thread [sync]  (nothing to wait for)
   * </pre>
   */
  @Test
  void aCallInsideTheRegionDoesNotWaitForWorkIssuedBeforeIt() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    f.kernel(0, s, "k", 10 * MS);
    f.host(0, MS);
    f.syncStream(0, s);
    f.hostCall(0, 1_000);
    ReplayProgram p = f.build().withAnnotations(List.of(new CallLog.Range(0, "tail", "", MS, MS + 1_000)), List.of());
    Node n = NodeLoader.resolve("dgx1");
    assertThat(Replayer.replay(p, n, Replayer.Options.defaults()).makespanNs()).isGreaterThanOrEqualTo(10.0 * MS);
    ReplayProgram cut = RegionOfInterest.range(p, "tail").cut(p);
    assertThat(cut.ops()).isEmpty();
    ReplayResult part = Replayer.replay(cut, n, Replayer.Options.defaults());
    assertThat(part.makespanNs()).isEqualTo(1_000.0);
  }
}
