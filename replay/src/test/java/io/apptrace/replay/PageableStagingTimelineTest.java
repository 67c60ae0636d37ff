package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.cost.PageableStaging;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeOverride;
import io.apptrace.node.TransferKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "Copies": a copy between pageable memory and a GPU is staged by the calling
 * thread through pinned buffers (Pearson 2018, sec. 4.2.1). Its DMA cannot start before the thread
 * has staged the first chunk (host to device), and a thread waiting for a copy to pageable memory
 * goes on only after it copied the last chunk out (device to host). The scenarios use dgx-h100
 * with cpu0's memcpy bandwidth set to 4 GB/s, so that the staging is worth seeing, and a 1 MiB
 * staging chunk.
 */
class PageableStagingTimelineTest {
  private static final long N = 8L << 20;

  private static Node node() throws Exception {
    return NodeLoader.resolve("dgx-h100", List.of(new NodeOverride("measured.memcpy_bandwidth.cpu0", "4 GB/s")));
  }

  private static PageableStaging staging(Node n, TransferKind kind) throws Exception {
    return new TransferModel(n).pageableStaging(kind, N, 0, 0, TransferModel.Setting.MEASURED).orElseThrow();
  }

  /**
   * Scenario "the first chunk before the DMA":
   *
   * <pre>
   *   host:   cudaMemcpy [stage chunk 0 | stage 1 | ... | stage 7]--returns
   *   copy0:                            [L+o][DMA 0][DMA 1] ...      [DMA 7]
   *           ^ issue   ^ issue + 1 MiB / 4 GB/s
   * </pre>
   */
  @Test
  void aPageableCopyToTheGpuStartsAfterItsFirstChunkIsStaged() throws Exception {
    Node n = node();
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int op = f.syncCopy(0, legacy, TransferKind.PAGEABLE_H2D, N, 0);
    ReplayResult r = Replayer.replay(f.build(), n, Replayer.Options.defaults());
    PageableStaging p = staging(n, TransferKind.PAGEABLE_H2D);
    assertThat(p.hostBeforeSeconds()).isCloseTo((1 << 20) / 4e9, within(1e-12));
    ReplayResult.OpTimes t = r.ops().get(op);
    assertThat(t.startNs() - t.issueNs()).isCloseTo(p.hostBeforeSeconds() * 1e9, within(1.0));
  }

  /**
   * Scenario "the last chunk after the DMA":
   *
   * <pre>
   *   copy0:  [L+o][DMA 0][DMA 1] ... [DMA 7]
   *   host:   cudaMemcpy ... [copy out 6][copy out 7]--returns
   *                         ^ DMA end              ^ + 1-2 x 1 MiB / 4 GB/s
   * </pre>
   */
  @Test
  void aThreadWaitingForAPageableCopyFromTheGpuGoesOnAfterTheLastChunk() throws Exception {
    Node n = node();
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    int op = f.syncCopy(0, legacy, TransferKind.PAGEABLE_D2H, N, 0);
    f.hostCall(0, 0);
    ReplayResult r = Replayer.replay(f.build(), n, Replayer.Options.defaults());
    PageableStaging p = staging(n, TransferKind.PAGEABLE_D2H);
    // the CPU's 4 GB/s is the pipeline's bottleneck: with two buffers the DMAs run ahead and the
    // last two chunks are still to copy out when the last DMA ends
    // last two chunks are still being copied out when the last DMA ends (less that DMA's own time,
    // which overlapped the copy of chunk 6): between one and two chunks' copies
    double chunk = (1 << 20) / 4e9;
    assertThat(p.hostAfterSeconds()).isGreaterThan(chunk).isLessThan(2 * chunk);
    double callEnd = r.calls().get(0).get(0).endNs();
    assertThat(callEnd - r.ops().get(op).endNs()).isGreaterThanOrEqualTo(p.hostAfterSeconds() * 1e9 - 1);
  }

  /** Without a measured memcpy bandwidth the staging is inside the equation's time: nothing is placed apart. */
  @Test
  void withoutAMemcpyBandwidthNothingIsPlacedApart() throws Exception {
    assertThat(new TransferModel(NodeLoader.resolve("dgx-h100")).pageableStaging(TransferKind.PAGEABLE_H2D, N, 0, 0,
        TransferModel.Setting.MEASURED)).isEmpty();
    ProgramFixture f = new ProgramFixture();
    int op = f.syncCopy(0, f.legacy(), TransferKind.PAGEABLE_H2D, N, 0);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx-h100"), Replayer.Options.defaults());
    assertThat(r.ops().get(op).startNs()).isEqualTo(r.ops().get(op).issueNs());
  }
}
