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
}
