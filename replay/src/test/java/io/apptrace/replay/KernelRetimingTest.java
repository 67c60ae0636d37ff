package io.apptrace.replay;

import io.apptrace.node.Precision;
import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.cost.KernelModel;
import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Kernels with measured times on a node whose GPU is not the trace's (docs/REPLAY.md, "Kernels on
 * another GPU"): re-timed by the kernel model by default, kept with {@code --kernel-policy keep}
 * or where either GPU is unknown, and every such choice said in the node's notes.
 *
 * <pre>
 *   trace (A100-SXM4-80GB)   [ vector_add 100 us ]  [ ncclKernel_AllReduce 50 us ]
 *   on dgx1-v100 (V100)      [ vector_add: the model's time ]  [ NCCL: kept, 50 us ]
 * </pre>
 */
class KernelRetimingTest {
  static final String A100 = "NVIDIA A100-SXM4-80GB";

  static ReplayProgram program(boolean named) {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    f.kernel(0, s, "vector_add", 100_000);
    f.kernel(0, s, "ncclKernel_AllReduce_RING_LL_Sum_float", 50_000);
    f.syncDevice(0);
    if (named) {
      f.gpu(0, A100);
    }
    return f.build();
  }

  static ReplayResult replay(ReplayProgram p, String node, Replayer.Options o) throws Exception {
    return Replayer.replay(p, NodeLoader.resolve(node), o);
  }

  static double ns(ReplayResult r, int op) {
    return r.ops().get(op).durationNs();
  }

  @Test
  void onAnotherGpuKernelsAreRetimedByTheModelAndCommunicationIsKept() throws Exception {
    ReplayResult r = replay(program(true), "dgx1-v100", Replayer.Options.defaults());
    assertThat(ns(r, 0)).as("vector_add re-timed for the V100").isNotEqualTo(100_000.0).isGreaterThan(100_000.0);
    assertThat(ns(r, 1)).as("NCCL kept").isEqualTo(50_000.0);
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("1 kernel(s) re-timed from " + A100
        + " to Tesla V100-SXM2-32GB by the kernel model"));
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).isEqualTo("1 kernel(s) kept at their measured times:"
        + " communication (NCCL): their time belongs to the links"));
  }

  @Test
  void onTheSameGpuModelTheMeasurementStandsAndNothingIsSaid() throws Exception {
    ReplayResult r = replay(program(true), "perlmutter-a100-80gb", Replayer.Options.defaults());
    assertThat(ns(r, 0)).isEqualTo(100_000.0);
    assertThat(r.notes()).noneSatisfy(n -> assertThat(n).contains("kernel(s)"));
  }

  @Test
  void keepKeepsTheMeasuredTimesAndSaysSo() throws Exception {
    Replayer.Options keep = Replayer.Options.defaults().withKernelPolicy(KernelModel.Policy.MEASURED, Optional.empty());
    ReplayResult r = replay(program(true), "dgx1-v100", keep);
    assertThat(ns(r, 0)).isEqualTo(100_000.0);
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).isEqualTo("2 kernel(s) kept at their measured times: measured"
        + " on " + A100 + ", kept on Tesla V100-SXM2-32GB (--kernel-policy keep)"));
  }

  @Test
  void aTraceThatDoesNotNameItsGpuKeepsItsTimesAndSaysHowToNameIt() throws Exception {
    ReplayResult r = replay(program(false), "dgx1-v100", Replayer.Options.defaults());
    assertThat(ns(r, 0)).isEqualTo(100_000.0);
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).isEqualTo("2 kernel(s) kept at their measured times: the"
        + " trace does not name the GPU they were measured on (give --source-gpu NAME)"));
    Replayer.Options named = Replayer.Options.defaults().withSourceGpu(GpuCatalogue.bundled().find(A100));
    ReplayResult n = replay(program(false), "dgx1-v100", named);
    assertThat(ns(n, 0)).isEqualTo(ns(replay(program(true), "dgx1-v100", Replayer.Options.defaults()), 0));
  }

  @Test
  void aNodeWhoseGpuIsNotCataloguedKeepsTheTimesAndSaysWhy() throws Exception {
    Node fixture = TimelineFixturesTest.node(1, 1); // its GPU model is "test"
    ReplayResult r = Replayer.replay(program(true), fixture, Replayer.Options.defaults());
    assertThat(ns(r, 0)).isEqualTo(100_000.0);
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("(test) is not in the GPU catalogue"));
  }
  /**
   * --kernel-policy scale-bandwidth and scale-flops (with --source-node) scale a measured kernel by
   * one datasheet ratio, as baselines: the source node's GPU memory bandwidth over the node's, or
   * its peak fp32 FLOP/s over the node's. A 100 us kernel measured on dgx1 (P100), replayed on
   * dgx-a100.
   *
   * <pre>
   *   dgx1:      [vector_add 100 us]
   *   dgx-a100:  [vector_add 100 x BW_P100 / BW_A100]   or   [100 x FLOPS_P100 / FLOPS_A100]
   * </pre>
   */
  @Test
  void scalePoliciesScaleByOneDatasheetRatio() throws Exception {
    Node from = NodeLoader.resolve("dgx1");
    Node to = NodeLoader.resolve("dgx-a100");
    double bw = 100_000 * from.gpus().get(0).memoryBandwidth() / to.gpus().get(0).memoryBandwidth();
    double flops = 100_000 * from.gpus().get(0).peakFlops().get(Precision.FP32) / to.gpus().get(0).peakFlops().get(Precision.FP32);
    assertThat(bw).isLessThan(100_000);
    assertThat(flops).isNotEqualTo(bw);
    ReplayResult b = Replayer.replay(program(false), to, Replayer.Options.defaults()
        .withKernelPolicy(KernelModel.Policy.SCALE_BANDWIDTH, Optional.of(from)));
    assertThat(ns(b, 0)).isCloseTo(bw, org.assertj.core.data.Offset.offset(1.0));
    ReplayResult f = Replayer.replay(program(false), to, Replayer.Options.defaults()
        .withKernelPolicy(KernelModel.Policy.SCALE_FLOPS, Optional.of(from)));
    assertThat(ns(f, 0)).isCloseTo(flops, org.assertj.core.data.Offset.offset(1.0));
  }
}
