package io.apptrace.replay;

import java.util.List;
import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.ApiClass;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "CUDA graphs", the what-if {@code --what-if graph-launch} (rule class
 * {@code GraphLaunchWhatIf}): a repeated run of stream work is replayed as one graph launch.
 */
class GraphLaunchWhatIfTest {
  private final Node node;

  GraphLaunchWhatIfTest() throws Exception {
    node = NodeLoader.resolve("dgx-a100");
  }

  /**
   * <pre>
   *   host:   launch k, launch k, ... (1,000 times)        --what-if-->   cudaGraphLaunch (k -> k -> ... -> k)
   *   GPU:    k (1 us) after each launch overhead                          k, k, ..., back to back
   * </pre>
   * One by one, 1,000 small kernels wait for their launches (van Werkhoven et al. 2014: a launch
   * overhead per kernel); as one graph, the host pays one graph launch and the kernels run back to
   * back: the saving is the launch overheads less the one graph launch and the kernels' own time.
   */
  @Test
  void aLoopOfAThousandSmallKernelsBecomesOneGraphLaunch() throws Exception {
    ProgramFixture f = new ProgramFixture().simulated();
    int s = f.blocking();
    for (int i = 0; i < 1000; i++) {
      f.kernel(0, s, "small", 1_000);
    }
    ReplayProgram p = f.build();
    ReplayResult asWas = Replayer.replay(p, node, Replayer.Options.defaults());
    WhatIfs.Applied a = WhatIfs.apply(List.of(new WhatIf.GraphLaunch()), p, new ProgramValues(p.ops().size()), node);
    ReplayResult launched = Replayer.replay(a.program(), node, Replayer.Options.defaults());
    double launch = node.gpus().get(0).launchOverheadSeconds() * 1e9;
    double graph = node.hostOverheads().costNs(ApiClass.GRAPH_LAUNCH, 0);
    double expected = 1000 * launch - graph - 1000 * 1_000.0;
    assertThat(asWas.makespanNs() - launched.makespanNs()).isGreaterThan(0.99 * expected);
    assertThat(a.notes()).singleElement().satisfies(n -> assertThat(n).startsWith("graph-launch: 1 repeated run(s)"
        + " of stream work (1000 operations) each launched as one CUDA graph"));
    assertThat(a.changed()).hasSize(1000);
  }

  /**
   * Ten iterations of copy in, kernel, copy out, synchronize: each iteration is a run (the
   * synchronization ends it), the same as the others, so each becomes a graph launch of three
   * operations; the synchronizations stay.
   */
  @Test
  void identicalIterationsBetweenSynchronizationsEachBecomeALaunch() throws Exception {
    ProgramFixture f = new ProgramFixture().simulated();
    int s = f.blocking();
    for (int i = 0; i < 10; i++) {
      f.copy(0, s, TransferKind.PINNED_H2D, 4096);
      f.kernel(0, s, "step", 1_000);
      f.copy(0, s, TransferKind.PINNED_D2H, 4096);
      f.syncStream(0, s);
    }
    ReplayProgram p = f.build();
    WhatIfs.Applied a = WhatIfs.apply(List.of(new WhatIf.GraphLaunch()), p, new ProgramValues(p.ops().size()), node);
    ReplayResult launched = Replayer.replay(a.program(), node, Replayer.Options.defaults());
    assertThat(a.notes()).singleElement().satisfies(n -> assertThat(n).startsWith("graph-launch: 10 repeated run(s)"
        + " of stream work (30 operations)"));
    assertThat(launched.ops()).allSatisfy(o -> assertThat(o.endNs()).isPositive());
  }

  /** Work that does not repeat is left as it was, and the report says so. */
  @Test
  void workThatDoesNotRepeatIsLeftAsItWas() throws Exception {
    ProgramFixture f = new ProgramFixture().simulated();
    int s = f.blocking();
    f.copy(0, s, TransferKind.PINNED_H2D, 4096);
    f.kernel(0, s, "once", 1_000);
    ReplayProgram p = f.build();
    WhatIfs.Applied a = WhatIfs.apply(List.of(new WhatIf.GraphLaunch()), p, new ProgramValues(p.ops().size()), node);
    ReplayResult r = Replayer.replay(a.program(), node, Replayer.Options.defaults());
    assertThat(r.makespanNs()).isEqualTo(Replayer.replay(p, node, Replayer.Options.defaults()).makespanNs());
    assertThat(a.changed()).isEmpty();
    assertThat(a.notes()).singleElement().satisfies(n -> assertThat(n).startsWith("graph-launch: no repeated"
        + " sequence"));
  }
}
