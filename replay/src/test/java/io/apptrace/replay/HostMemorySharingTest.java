package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeOverride;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "Copies": a CPU's memory is a resource of its memory bandwidth, shared max-min
 * fairly by the transfers that read or write it, like a link: a pinned copy crosses it once per
 * byte, a pageable one three times (read by the CPU's staging copy, written to the staging buffer,
 * read by the DMA; Pearson 2018, sec. 4.2.1), a staged GPU-to-GPU copy twice (written by one GPU,
 * read by the other). The scenarios use dgx1 with its cpu0's memory set to 20 GB/s, so that it binds
 * before the PCIe links do.
 */
class HostMemorySharingTest {
  private static final long N = 256L << 20;

  private static Node dgx1(String memory) throws Exception {
    return NodeLoader.resolve("dgx1", List.of(new NodeOverride("cpus.cpu0.memory_bandwidth", memory)));
  }

  /** One pinned copy from cpu0's memory to gpu0 and one to gpu2 (behind two PCIe switches), at once. */
  private static ReplayProgram twoCopies(TransferKind kind) {
    ProgramFixture f = new ProgramFixture();
    List<Integer> streams = new ArrayList<>();
    for (int g : new int[] {0, 2}) {
      streams.add(f.stream(false, false, g));
    }
    for (int s : streams) {
      f.copy(0, s, kind, N);
    }
    f.syncDevice(0);
    return f.build();
  }

  /**
   * Scenario "two GPUs pull from one memory": with dgx1's memory each pinned copy runs at its PCIe
   * route's rate (about 12 GB/s, each GPU behind its own switch); together they would need 24 GB/s
   * of a 10 GB/s memory, so each gets half of it: its data time is n / 5 GB/s.
   */
  @Test
  void copiesFromOneCpusMemoryShareItsBandwidth() throws Exception {
    ReplayResult free = Replayer.replay(twoCopies(TransferKind.PINNED_H2D), NodeLoader.resolve("dgx1"),
        Replayer.Options.defaults());
    ReplayResult shared = Replayer.replay(twoCopies(TransferKind.PINNED_H2D), dgx1("10 GB/s"),
        Replayer.Options.defaults());
    double freeRate = N / free.ops().get(0).durationNs(); // bytes per ns, its L+o included
    assertThat(freeRate).as("each copy is bound by its PCIe route, not by 10 GB/s / 2").isGreaterThan(10);
    for (int i = 0; i < 2; i++) {
      assertThat(shared.ops().get(i).durationNs()).isCloseTo(N / 5.0, within(N / 5.0 * 0.01));
    }
    assertThat(shared.linkUse()).anySatisfy(u -> assertThat(u.name()).isEqualTo("cpu0 memory"));
  }

  /**
   * Scenario "pageable copies cross host memory three times": a pageable copy alone on a 20 GB/s
   * memory cannot move more than 20 / 3 GB/s.
   */
  @Test
  void aPageableCopyCrossesHostMemoryThreeTimes() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    f.copy(0, s, TransferKind.PAGEABLE_H2D, N);
    f.syncDevice(0);
    ReplayResult r = Replayer.replay(f.build(), dgx1("20 GB/s"), Replayer.Options.defaults());
    assertThat(r.ops().get(0).durationNs()).isGreaterThanOrEqualTo(N / (20.0 / 3));
  }

  /**
   * Scenario "a staged GPU-to-GPU copy crosses host memory twice": gpu0 and gpu5 share no NVLink
   * on dgx1 (its hybrid cube mesh), so the copy is staged through gpu0's local memory, cpu0's; with
   * a 10 GB/s memory it moves at most 5 GB/s.
   */
  @Test
  void aStagedGpuToGpuCopyCrossesHostMemoryTwice() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    f.peerCopy(0, s, 5, N);
    f.syncDevice(0);
    ReplayResult slow = Replayer.replay(f.build(), dgx1("10 GB/s"), Replayer.Options.defaults());
    assertThat(slow.ops().get(0).durationNs()).isGreaterThanOrEqualTo(N / 5.0);
  }
}
