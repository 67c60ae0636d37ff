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
  /**
   * One CPU (memory 20 GB/s, 20,000 bytes per us) behind a switch (cpu0-sw0 40 GB/s), three GPUs
   * behind 10 GB/s links; L+o 10 us each way; {@code memory} sets the CPU's memory bandwidth.
   */
  private static Node fixture(String memory) throws Exception {
    return NodeLoader.parse("memory.yaml", """
        name: memory
        description: round numbers for host memory sharing
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "%s"}]
        gpus:
          - {id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 1}
          - {id: gpu1, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 1}
          - {id: gpu2, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 1}
        switches: [{id: sw0, type: pcie}]
        links:
          - {between: [cpu0, sw0], type: smp, bandwidth: "40 GB/s"}
          - {between: [sw0, gpu0], type: smp, bandwidth: "10 GB/s"}
          - {between: [sw0, gpu1], type: smp, bandwidth: "10 GB/s"}
          - {between: [sw0, gpu2], type: smp, bandwidth: "10 GB/s"}
        measured:
          timed: gpu
          latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}
        """.formatted(memory), "memory.yaml");
  }

  /**
   * Scenario "a pageable copy weighs three times on host memory", exactly: a 1 MB pageable copy to
   * gpu0 (alone 10 + 2 x 10^6 / 20,000 + 10^6 / 10,000 = 210 us, Abdelhafez et al. 2019, eq. 9: 5,000
   * bytes per us) and a 2 MB pinned copy to gpu1 (alone 10 GB/s) start together. Host memory holds
   * 3 r + r = 20,000: both move 5,000 bytes per us; the pageable copy ends at 210 us, the pinned one
   * has 1 MB left, which it moves alone at 10,000 per us: it ends at 310 us (at 210 us were the
   * pageable copy's bytes counted once).
   *
   * <pre>
   *   cpu0 memory     [10][3 x 5 + 5 GB/s ........][10 GB/s ....]
   *   pageable, gpu0  [10][----- 5 GB/s ----------]               210
   *   pinned, gpu1    [10][----- 5 GB/s ----------][- 10 GB/s -]  310
   * </pre>
   */
  @Test
  void aPageableCopyWeighsThreeTimesOnHostMemory() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int pageable = f.copy(0, f.stream(false, false, 0), TransferKind.PAGEABLE_H2D, 1_000_000);
    int pinned = f.copy(0, f.stream(false, false, 1), TransferKind.PINNED_H2D, 2_000_000);
    f.syncDevice(0);
    ReplayResult r = Replayer.replay(f.build(), fixture("20 GB/s"), Replayer.Options.defaults());
    TimelineFixturesTest.times(r, pageable, 0, 210);
    TimelineFixturesTest.times(r, pinned, 0, 310);
  }

  /**
   * Scenario "a staged GPU-to-GPU copy weighs twice on host memory", exactly: with no peer access
   * gpu0 to gpu1 is staged through cpu0's memory (24 GB/s here), its L+o the two pinned halves'
   * (20 us), alone at min(10, 10, 24 / 2) = 10 GB/s. A 1 MB pinned copy to gpu2 starts at 10 us
   * and moves 100,000 bytes alone; from 20 us host memory holds 2 r + r = 24,000: both move 8,000
   * bytes per us. The pinned copy ends at 20 + 900,000 / 8,000 = 132.5 us, the staged one then has
   * 100,000 bytes left at 10,000 per us: it ends at 142.5 us.
   *
   * <pre>
   *   staged gpu0->gpu1  [ 20 ][---- 8 GB/s ---------][10]  142.5
   *   pinned to gpu2     [10][10][---- 8 GB/s -------]      132.5
   * </pre>
   */
  @Test
  void aStagedGpuToGpuCopyWeighsTwiceOnHostMemory() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int staged = f.peerCopy(0, f.stream(false, false, 0), 1, 1_000_000);
    int pinned = f.copy(0, f.stream(false, false, 2), TransferKind.PINNED_H2D, 1_000_000);
    f.syncDevice(0);
    ReplayResult r = Replayer.replay(f.build(), fixture("24 GB/s"), Replayer.Options.defaults());
    TimelineFixturesTest.times(r, pinned, 0, 132.5);
    TimelineFixturesTest.times(r, staged, 0, 142.5);
  }
}
