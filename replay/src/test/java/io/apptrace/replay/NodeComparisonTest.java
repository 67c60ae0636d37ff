package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "What it reports": why one node's projection differs from another's, by the
 * categories of their critical paths and by the operations whose times differ most.
 */
class NodeComparisonTest {
  /**
   * A 256 MiB pinned copy to the GPU then a 2 ms kernel (kept at its measured time), on dgx1
   * (PCIe 3.0) and dgx-a100 (PCIe 4.0): the copy is what differs, the kernel is not.
   *
   * <pre>
   *   dgx1:     [copy 256 MiB ~ 21 ms        ][kernel 2 ms]
   *   dgx-a100: [copy ~ 11 ms  ][kernel 2 ms]
   * </pre>
   */
  @Test
  void theCopyIsWhyTheNewerNodeIsFaster() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int copy = f.copy(0, s, TransferKind.PINNED_H2D, 256L << 20);
    int kernel = f.kernel(0, s, "k", 2_000_000);
    f.syncDevice(0);
    ReplayProgram p = f.build();
    Replayer.Options keep = Replayer.Options.defaults().withKernelPolicy(io.apptrace.cost.KernelModel.Policy.MEASURED,
        java.util.Optional.empty());
    ReplayResult a = Replayer.replay(p, NodeLoader.resolve("dgx1"), keep);
    ReplayResult b = Replayer.replay(p, NodeLoader.resolve("dgx-a100"), keep);
    NodeComparison c = NodeComparison.againstFirst(List.of(a, b), 5).get(0);
    assertThat(c.base()).isSameAs(a);
    assertThat(c.speedup()).isCloseTo(a.makespanNs() / b.makespanNs(), within(1e-9));
    NodeComparison.Category first = c.categories().get(0);
    assertThat(first.name()).isEqualTo("copies pinned_h2d");
    assertThat(first.baseNs()).isEqualTo(a.breakdown().get("copies pinned_h2d"));
    assertThat(first.differenceNs()).isNegative();
    assertThat(c.categories()).extracting(NodeComparison.Category::name).doesNotContain("copies", "kernels");
    // only the copy's duration differs
    assertThat(c.ops()).singleElement().satisfies(o -> {
      assertThat(o.op()).isEqualTo(copy);
      assertThat(o.differenceNs()).isEqualTo(b.ops().get(copy).durationNs() - a.ops().get(copy).durationNs());
    });
    assertThat(a.ops().get(kernel).durationNs()).isEqualTo(b.ops().get(kernel).durationNs());
    assertThat(NodeComparison.againstFirst(List.of(a, b), 0).get(0).ops()).isEmpty();
  }
}
