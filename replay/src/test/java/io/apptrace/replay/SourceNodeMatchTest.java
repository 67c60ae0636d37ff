package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.NodeLoader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Whether the replay's node is the one the trace was taken on (docs/REPLAY.md, "What it reports";
 * rule class {@link SourceNodeMatch}), and what the report gives on another node: per class the
 * measured and projected time and the speedup ({@link ReplayReport#speedups}). The program of
 * {@link KernelRetimingTest}: a 100 us kernel and a 50 us NCCL kernel measured on an
 * A100-SXM4-80GB.
 */
class SourceNodeMatchTest {
  static SourceNodeMatch.Verdict verdict(boolean named, String node, Replayer.Options o) throws Exception {
    return SourceNodeMatch.of(Replayer.replay(KernelRetimingTest.program(named), NodeLoader.resolve(node), o))
        .verdict();
  }

  /**
   * The node is the trace's own when every GPU the trace uses is, by the GPU catalogue, the model
   * of the node's GPU it runs on, or when --source-node names it; the trace's verdict is unknown
   * when it names no GPU and no --source-node is given.
   *
   * <pre>
   *   trace on A100-SXM4-80GB:  perlmutter-a100-80gb -> source;  dgx1-v100 -> other
   *   trace naming no GPU:      dgx1-v100 -> unknown;  --source-node dgx1-v100 -> source
   * </pre>
   */
  @Test
  void theNodeIsTheTracesOwnWhenItsGpusAreTheTracesOrSourceNodeNamesIt() throws Exception {
    Replayer.Options d = Replayer.Options.defaults();
    assertThat(verdict(true, "perlmutter-a100-80gb", d)).isEqualTo(SourceNodeMatch.Verdict.SOURCE);
    assertThat(verdict(true, "dgx1-v100", d)).isEqualTo(SourceNodeMatch.Verdict.OTHER);
    assertThat(verdict(false, "dgx1-v100", d)).isEqualTo(SourceNodeMatch.Verdict.UNKNOWN);
    Replayer.Options source = d.withKernelPolicy(d.kernelPolicy(), Optional.of(NodeLoader.resolve("dgx1-v100")));
    assertThat(verdict(false, "dgx1-v100", source)).isEqualTo(SourceNodeMatch.Verdict.SOURCE);
  }

  /**
   * On another node the measured times are a baseline: the report gives per class the measured and
   * projected time and their ratio. With kernels kept at their times and scaled by 0.5: 150 us
   * measured, 75 us projected, a speedup of 2.
   *
   * <pre>
   *   measured:   [vector_add 100][nccl 50]
   *   projected:  [vector_add 50][nccl 25]
   * </pre>
   */
  @Test
  void onAnotherNodeTheReportGivesPerClassTheMeasuredAndProjectedTimes() throws Exception {
    Replayer.Options o = Replayer.Options.defaults()
        .withKernelPolicy(io.apptrace.cost.KernelModel.Policy.MEASURED, Optional.empty()).withScaleKernels(0.5);
    ReplayResult r = Replayer.replay(KernelRetimingTest.program(true), NodeLoader.resolve("dgx1-v100"), o);
    ReplayReport.ClassSpeedup k = ReplayReport.speedups(r).get("kernels");
    assertThat(k.operations()).isEqualTo(2);
    assertThat(k.measuredNs()).isEqualTo(150_000.0);
    assertThat(k.projectedNs()).isEqualTo(75_000.0);
    assertThat(k.speedup()).isEqualTo(2.0);
  }
}
