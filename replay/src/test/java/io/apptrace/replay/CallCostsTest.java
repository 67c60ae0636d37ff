package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.ApiClass;
import io.apptrace.node.HostOverheads;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "CUDA calls": a trace from the simulated device is priced by the node's
 * host-overhead model, a trace from a real GPU keeps its measured call durations.
 */
class CallCostsTest {
  private static final long MIB = 1024 * 1024;

  /** A program as the simulated device records it: start-up, pinning, a stream, one kernel, a wait, unpinning. */
  private static ReplayProgram program(boolean simulated) {
    ProgramFixture f = new ProgramFixture();
    if (simulated) {
      f.simulated();
    }
    int s = f.blocking();
    f.api(0, "__cudaRegisterFatBinary", 5_000_000, 0) // the simulator's start-up: 5 ms here
        .api(0, "cudaMallocHost", 50_000_000, 64 * MIB) // the simulator's pinning on this machine
        .api(0, "cudaStreamCreate", 14_000_000, 0);
    f.kernel(0, s, "scale", 100_000);
    f.syncStream(0, s);
    f.api(0, "cudaFreeHost", 30_000_000, 64 * MIB);
    return f.build();
  }

  private static List<ReplayResult.CallTimes> calls(ReplayResult r) {
    return r.calls().get(0);
  }

  private static double duration(ReplayResult.CallTimes c) {
    return c.endNs() - c.startNs();
  }

  @Test
  void callsOnTheSimulatedDeviceCostWhatTheNodesModelSays() throws Exception {
    Node node = NodeLoader.resolve("dgx1");
    HostOverheads m = node.hostOverheads();
    ReplayResult r = Replayer.replay(program(true), node, Replayer.Options.defaults());
    List<ReplayResult.CallTimes> c = calls(r);
    // module registration: 1 us, and it creates no context
    assertThat(duration(c.get(0))).isEqualTo(m.costNs(ApiClass.MODULE, 0));
    // the first call that needs a context pays its creation: 234 ms + 880 us + 64 MiB x 696 us/MiB
    assertThat(duration(c.get(1))).isEqualTo(234_000_000 + 880_000 + 64 * 696_000);
    assertThat(duration(c.get(2))).isEqualTo(2_000); // stream_create
    long launch = Math.round(node.gpus().get(0).launchOverheadSeconds() * 1e9);
    assertThat(duration(c.get(3))).isEqualTo(launch); // the launch: the GPU's launch overhead
    // the wait ends with the kernel (100 us, measured), not before its own 2.6 us
    ReplayResult.OpTimes kernel = r.ops().get(0);
    assertThat(c.get(4).endNs()).isEqualTo(Math.max(kernel.endNs(), c.get(4).startNs() + 2_600));
    assertThat(duration(c.get(5))).isEqualTo(532_000 + 64 * 361_000); // host_free + 64 MiB x 361 us/MiB
    // no host time between the calls: the makespan is the calls' own time and the wait
    assertThat(r.makespanNs()).isEqualTo(c.get(5).endNs());
    assertThat(r.breakdown().get("calls") + r.breakdown().get("kernels")).isEqualTo(r.makespanNs());
    assertThat(r.notes()).anyMatch(n -> n.contains("priced by dgx1's host-overhead model")
        && n.contains("1 context creation(s)"));
  }

  @Test
  void callsOfATraceFromARealGpuKeepTheirMeasuredDurations() throws Exception {
    Node node = NodeLoader.resolve("dgx1");
    ReplayResult r = Replayer.replay(program(false), node, Replayer.Options.defaults());
    List<ReplayResult.CallTimes> c = calls(r);
    assertThat(duration(c.get(0))).isEqualTo(5_000_000);
    assertThat(duration(c.get(1))).isEqualTo(50_000_000);
    assertThat(duration(c.get(2))).isEqualTo(14_000_000);
    assertThat(r.notes()).noneMatch(n -> n.contains("host-overhead model"));
    // --call-costs model prices them by the model all the same
    ReplayResult m = Replayer.replay(program(false), node,
        Replayer.Options.defaults().withCallCosts(CallCosts.Policy.MODEL));
    assertThat(duration(calls(m).get(2))).isEqualTo(2_000);
  }

  @Test
  void measuredCallsOfASimulatedTraceStayTheCapturingMachines() throws Exception {
    Node node = NodeLoader.resolve("dgx1");
    ReplayResult r = Replayer.replay(program(true), node,
        Replayer.Options.defaults().withCallCosts(CallCosts.Policy.MEASURED));
    assertThat(duration(calls(r).get(1))).isEqualTo(50_000_000);
    assertThat(r.notes()).anyMatch(n -> n.contains("capturing machine's, not dgx1's"));
  }

  @Test
  void twoCapturesThatDifferOnlyInTheCapturingMachinesCallTimesProjectTheSame() throws Exception {
    // the same program captured twice on a busy machine: every call took longer the second time
    ProgramFixture slow = new ProgramFixture().simulated();
    int s = slow.blocking();
    slow.api(0, "cudaMallocHost", 90_000_000, 64 * MIB).api(0, "cudaStreamCreate", 40_000_000, 0);
    slow.kernel(0, s, "scale", 100_000);
    slow.syncStream(0, s);
    Node node = NodeLoader.resolve("dgx-h100");
    ReplayResult a = Replayer.replay(slow.build(), node, Replayer.Options.defaults());
    ProgramFixture fast = new ProgramFixture().simulated();
    int s2 = fast.blocking();
    fast.api(0, "cudaMallocHost", 20_000_000, 64 * MIB).api(0, "cudaStreamCreate", 1_000, 0);
    fast.kernel(0, s2, "scale", 100_000);
    fast.syncStream(0, s2);
    ReplayResult b = Replayer.replay(fast.build(), node, Replayer.Options.defaults());
    assertThat(a.makespanNs()).isEqualTo(b.makespanNs());
  }
  /**
   * Each class of call costs what the node's host-overhead model says (docs/REPLAY.md, "CUDA
   * calls", the table of defaults): a trace from the simulated device on dgx1, whose model is the
   * bundled defaults. The first call that needs a context pays its creation, 234 ms.
   *
   * <pre>
   *   [cudaMalloc 234 ms + 7.6][cudaEventCreate 4.4][cudaStreamCreate 2][cudaEventRecord 1.1]
   *   [cudaStreamWaitEvent 1.1][cudaStreamSynchronize 2.6][cudaEventDestroy 2.7][cudaStreamDestroy 2]
   *   [cudaHostRegister 2 MiB: 880 + 2 x 696][cudaHostUnregister 2 MiB: 532 + 2 x 361]
   *   [cudaStreamGetPriority 0.42][cudaFree 5.6]   (us)
   * </pre>
   */
  @Test
  void eachClassOfCallCostsWhatTheHostOverheadModelSays() throws Exception {
    ProgramFixture f = new ProgramFixture().simulated();
    int s = f.blocking();
    int e = f.event();
    f.api(0, "cudaMalloc", 90_000, MIB).api(0, "cudaEventCreate", 90_000, 0).api(0, "cudaStreamCreate", 90_000, 0);
    f.record(0, s, e).waitEvent(0, s, e).syncStream(0, s, 90_000);
    f.api(0, "cudaEventDestroy", 90_000, 0).api(0, "cudaStreamDestroy", 90_000, 0)
        .api(0, "cudaHostRegister", 90_000, 2 * MIB).api(0, "cudaHostUnregister", 90_000, 2 * MIB)
        .api(0, "cudaStreamGetPriority", 90_000, 0);
    f.free(0, 0);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(calls(r)).extracting(CallCostsTest::duration).containsExactly(234_000_000.0 + 7_600, 4_400.0,
        2_000.0, 1_100.0, 1_100.0, 2_600.0, 2_700.0, 2_000.0, 880_000.0 + 2 * 696_000, 532_000.0 + 2 * 361_000,
        420.0, 5_600.0);
  }

  /**
   * In a trace from a real GPU a blocking call's own cost is the smaller of its measured duration
   * and 5 us (the choice of docs/REPLAY.md: the rest was waiting): on an empty stream, a
   * synchronization measured at 8 us returns after 5 us, one measured at 3 us after 3 us.
   *
   * <pre>
   *   [sync, measured 8: 0-5][sync, measured 3: 5-8]
   * </pre>
   */
  @Test
  void aBlockingCallOfARealGpuTraceOwnsAtMostFiveMicrosecondsOfItsMeasuredTime() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    f.syncStream(0, s, 8_000).syncStream(0, s, 3_000);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(calls(r).get(0).endNs()).isEqualTo(5_000.0);
    assertThat(calls(r).get(1).endNs()).isEqualTo(8_000.0);
  }

  /**
   * A blocking call that, as measured, was entered after what it waits for had ended did not wait:
   * its whole measured duration is its own cost. The kernel was measured from 0 to 50 us; a
   * synchronization entered at 100 us and measured at 20 us takes 20 us (100-120), not 5; the same
   * synchronization entered at 30 us waited, owns 5 us, and ends with the kernel.
   *
   * <pre>
   *   s       [K 0-50]
   *   thread  (host 100)  [sync 100-120]         entered at 30:  [sync 30 .. 50]
   * </pre>
   */
  @Test
  void aBlockingCallThatAsMeasuredWaitedForNothingOwnsAllOfItsMeasuredTime() throws Exception {
    for (long host : new long[] {100_000, 30_000}) {
      ProgramFixture f = new ProgramFixture();
      int s = f.blocking();
      f.kernel(0, s, "K", 50_000);
      f.host(0, host);
      f.syncStream(0, s, 20_000);
      ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
      ReplayResult.CallTimes sync = calls(r).get(1);
      assertThat(sync.startNs()).isEqualTo((double) host);
      assertThat(sync.endNs()).isEqualTo(host == 100_000 ? 120_000.0 : 50_000.0);
    }
  }

  /**
   * With --call-costs measured on a trace from the simulated device, a call that issues work takes
   * its measured duration, but at most the GPU's launch overhead (the simulator does a copy's work
   * inside the call): a launch measured at 1 ms takes dgx1's launch overhead, one measured at 1 us
   * takes 1 us.
   *
   * <pre>
   *   [launch, measured 1 ms: launch overhead][launch, measured 1 us: 1 us]
   * </pre>
   */
  @Test
  void measuredCallsThatIssueWorkOnASimulatedTraceTakeAtMostTheLaunchOverhead() throws Exception {
    Node node = NodeLoader.resolve("dgx1");
    ProgramFixture f = new ProgramFixture().simulated();
    int s = f.blocking();
    f.measured(0, s, "k", null, 0, 0, 10_000, 1_000_000);
    f.measured(0, s, "k", null, 0, 1_000_000, 1_010_000, 1_000);
    ReplayResult r = Replayer.replay(f.build(), node,
        Replayer.Options.defaults().withCallCosts(CallCosts.Policy.MEASURED));
    long launch = Math.round(node.gpus().get(0).launchOverheadSeconds() * 1e9);
    assertThat(launch).isLessThan(1_000_000).isGreaterThan(1_000);
    assertThat(duration(calls(r).get(0))).isEqualTo((double) launch);
    assertThat(duration(calls(r).get(1))).isEqualTo(1_000.0);
  }

  @Test
  void anMpiCallKeepsItsTracedTimeOnANodeAloneWhateverTheModelPricesCudaCallsAt() throws Exception {
    ProgramFixture f = new ProgramFixture().simulated();
    f.api(0, "cudaGetDeviceCount", 3_000_000, 0).api(0, "MPI_Recv", 5_000_000, 0).api(0, "MPI_Allreduce", 700_000, 0);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(duration(calls(r).get(0))).as("a CUDA call: the model").isLessThan(1_000_000);
    assertThat(duration(calls(r).get(1))).as("communication: as traced").isEqualTo(5_000_000);
    assertThat(duration(calls(r).get(2))).isEqualTo(700_000);
  }
}
