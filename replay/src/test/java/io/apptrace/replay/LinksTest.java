package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * Link sharing (docs/REPLAY.md, "Copies"): each direction of a link is shared max-min fairly among
 * the transfers crossing it, each using on each link the bytes that link carries per data byte; the
 * two directions of a link are independent except for its duplex factor; no transfer goes faster
 * than it would alone. First the rule class {@link Links} on its own (rates in bytes per ns, times
 * in ns), then the same rules in whole replays, on round numbers: links of 10 GB/s (10 bytes per
 * ns, 10,000 per us) that carry n bytes for n, L+o 10 us each way.
 */
class LinksTest {
  /**
   * One CPU (memory 20 GB/s) behind a switch: cpu0-sw0 10 GB/s; sw0-gpu0 10 GB/s; sw0-gpu1
   * 10 GB/s, duplex 0.8; sw0-gpu2 2 GB/s.
   */
  static Node node(int copyEngines) throws Exception {
    return NodeLoader.parse("links.yaml", """
        name: links
        description: round numbers for link sharing
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus:
          - {id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: %1$d}
          - {id: gpu1, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: %1$d}
          - {id: gpu2, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: %1$d}
        switches: [{id: sw0, type: pcie}]
        links:
          - {between: [cpu0, sw0], type: smp, bandwidth: "10 GB/s"}
          - {between: [sw0, gpu0], type: smp, bandwidth: "10 GB/s"}
          - {between: [sw0, gpu1], type: smp, bandwidth: "10 GB/s", duplex: 0.8}
          - {between: [sw0, gpu2], type: smp, bandwidth: "2 GB/s"}
        measured:
          timed: gpu
          latency: {pinned_h2d: "10 us", pinned_d2h: "10 us"}
        """.formatted(copyEngines), "links.yaml");
  }

  /** The resource of link {@code id} crossed from its first vertex ({@code forward}) or from its second. */
  static int res(Links links, String id, boolean forward) {
    Node.Link l = links.links().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
    return Links.resource(links.linkIndex(l), forward);
  }

  static int[] r(int... resources) {
    return resources;
  }

  static double[] f(double... factors) {
    return factors;
  }

  private static final double FREE = Double.POSITIVE_INFINITY;

  /**
   * A transfer alone moves at the lesser of its own rate (its cost-model time alone on the node)
   * and what its links allow, and ends at the nanosecond nearest to its bytes over that rate.
   *
   * <pre>
   *   cpu0-sw0 (10/ns)  [op 0: 1,000 bytes at 3 per ns: 0 .. 333]
   * </pre>
   */
  @Test
  void aTransferAloneMovesAtItsOwnRateAndEndsAtTheNearestNanosecond() throws Exception {
    Links links = new Links(node(1), false);
    links.start(0, r(res(links, "cpu0-sw0", true)), f(1), 3, 1_000, 0, 0);
    links.update(0);
    assertThat(links.rate(0)).isEqualTo(3.0);
    assertThat(links.nextAt()).isEqualTo(333); // 1,000 / 3 = 333.3 ns
    links.advance(333);
    assertThat(links.finished(333)).isEqualTo(1);
    assertThat(links.result()[0]).isZero();
    assertThat(links.isEmpty()).isTrue();
  }

  /**
   * Three transfers on one direction of one link share it max-min fairly: the one that cannot use
   * its equal share (its own rate is 2 per ns) keeps 2, the other two share the remaining 8.
   *
   * <pre>
   *   cpu0-sw0 (10/ns)   op 0: 2/ns (its own most)
   *                      op 1: 4/ns
   *                      op 2: 4/ns
   * </pre>
   */
  @Test
  void threeTransfersShareOneDirectionOfALinkMaxMinFairly() throws Exception {
    Links links = new Links(node(1), false);
    int up = res(links, "cpu0-sw0", true);
    links.start(0, r(up), f(1), 2, 1e6, 0, 0);
    links.start(1, r(up), f(1), FREE, 1e6, 0, 0);
    links.start(2, r(up), f(1), FREE, 1e6, 0, 0);
    links.update(0);
    assertThat(links.rate(0)).isCloseTo(2, offset(1e-9));
    assertThat(links.rate(1)).isCloseTo(4, offset(1e-9));
    assertThat(links.rate(2)).isCloseTo(4, offset(1e-9));
  }

  /**
   * A transfer bound by another link of its route leaves the rest of a shared link to the others:
   * three transfers from cpu0 to gpu0, gpu1 and gpu2 share cpu0-sw0; gpu2's own link carries 2 per
   * ns, so the other two get (10 - 2) / 2 = 4 each.
   *
   * <pre>
   *   cpu0-sw0 (10/ns)  [to gpu0: 4][to gpu1: 4][to gpu2: 2]
   *   sw0-gpu2 (2/ns)                            [to gpu2: 2]
   * </pre>
   */
  @Test
  void aTransferBoundElsewhereLeavesItsShareOfALinkToTheOthers() throws Exception {
    Links links = new Links(node(1), false);
    int up = res(links, "cpu0-sw0", true);
    links.start(0, r(up, res(links, "sw0-gpu0", true)), f(1, 1), FREE, 1e6, 0, 0);
    links.start(1, r(up, res(links, "sw0-gpu1", true)), f(1, 1), FREE, 1e6, 0, 0);
    links.start(2, r(up, res(links, "sw0-gpu2", true)), f(1, 1), FREE, 1e6, 0, 0);
    links.update(0);
    assertThat(links.rate(0)).isCloseTo(4, offset(1e-9));
    assertThat(links.rate(1)).isCloseTo(4, offset(1e-9));
    assertThat(links.rate(2)).isCloseTo(2, offset(1e-9));
  }

  /**
   * Each transfer uses on a link the bytes that link carries per data byte (its packet overheads,
   * Abdelhafez et al. 2019, eqs. 4-7): sharing is fair in data bytes, so a transfer that puts 3
   * bytes on the wire per data byte and one that puts 1 both move 10 / (3 + 1) = 2.5 data bytes per
   * ns, and the link carries 7.5 + 2.5 = 10.
   *
   * <pre>
   *   cpu0-sw0 (10/ns)   op 0: 2.5 data/ns x 3 = 7.5 on the wire
   *                      op 1: 2.5 data/ns x 1 = 2.5 on the wire
   * </pre>
   */
  @Test
  void eachTransferUsesOnALinkTheBytesThatLinkCarriesPerDataByte() throws Exception {
    Links links = new Links(node(1), false);
    int up = res(links, "cpu0-sw0", true);
    links.start(0, r(up), f(3), FREE, 1e6, 0, 0);
    links.start(1, r(up), f(1), FREE, 1e6, 0, 0);
    links.update(0);
    assertThat(links.rate(0)).isCloseTo(2.5, offset(1e-9));
    assertThat(links.rate(1)).isCloseTo(2.5, offset(1e-9));
    // alone, the first would move 10 / 3 data bytes per ns
    Links alone = new Links(node(1), false);
    alone.start(0, r(up), f(3), FREE, 1e6, 0, 0);
    alone.update(0);
    assertThat(alone.rate(0)).isCloseTo(10.0 / 3, offset(1e-9));
  }

  /**
   * The two directions of a full-duplex link are independent, except that each keeps only the
   * link's duplex factor of its bandwidth while the other is busy: on sw0-gpu1 (duplex 0.8) a
   * transfer each way moves 8 per ns; on sw0-gpu0 (duplex 1, the default) 10 each way.
   *
   * <pre>
   *   sw0-gpu1 ->  [8/ns]      sw0-gpu0 ->  [10/ns]
   *   sw0-gpu1 <-  [8/ns]      sw0-gpu0 <-  [10/ns]
   * </pre>
   */
  @Test
  void theTwoDirectionsOfALinkAreIndependentExceptForItsDuplexFactor() throws Exception {
    Links links = new Links(node(2), false);
    links.start(0, r(res(links, "sw0-gpu1", true)), f(1), FREE, 1e6, 0, 0);
    links.update(0);
    assertThat(links.rate(0)).as("alone: the whole direction").isCloseTo(10, offset(1e-9));
    links.start(1, r(res(links, "sw0-gpu1", false)), f(1), FREE, 1e6, 0, 0);
    links.start(2, r(res(links, "sw0-gpu0", true)), f(1), FREE, 1e6, 0, 0);
    links.start(3, r(res(links, "sw0-gpu0", false)), f(1), FREE, 1e6, 0, 0);
    links.update(0);
    assertThat(links.rate(0)).isCloseTo(8, offset(1e-9));
    assertThat(links.rate(1)).isCloseTo(8, offset(1e-9));
    assertThat(links.rate(2)).isCloseTo(10, offset(1e-9));
    assertThat(links.rate(3)).isCloseTo(10, offset(1e-9));
  }

  /**
   * No transfer goes faster than it would alone: when the transfer it shared a link with ends, a
   * transfer whose own rate is 6 per ns goes from 5 to 6, not to the link's 10.
   *
   * <pre>
   *   cpu0-sw0 (10/ns)  op 0: [5/ns ......][6/ns .......]
   *                     op 1: [5/ns ......] ends at 100
   * </pre>
   */
  @Test
  void noTransferGoesFasterThanItWouldAlone() throws Exception {
    Links links = new Links(node(1), false);
    int up = res(links, "cpu0-sw0", true);
    links.start(0, r(up), f(1), 6, 10_000, 0, 0);
    links.start(1, r(up), f(1), FREE, 500, 0, 0);
    links.update(0);
    assertThat(links.rate(0)).isCloseTo(5, offset(1e-9));
    assertThat(links.nextAt()).isEqualTo(100);
    links.advance(100);
    assertThat(links.finished(100)).isEqualTo(1);
    links.update(100);
    assertThat(links.rate(0)).isCloseTo(6, offset(1e-9));
    // 9,500 bytes left at 6 per ns: 1,583.3 ns, to the nearest ns
    assertThat(links.nextAt()).isEqualTo(100 + 1_583);
  }

  /**
   * A transfer with a milestone (a synchronous pageable copy's last staging chunk) signals it when
   * its bytes left come down to it, once, before it ends.
   *
   * <pre>
   *   op 0: 1,000 bytes at 2 per ns, milestone at 200 left:  [.... 400: milestone ..][500: ends]
   * </pre>
   */
  @Test
  void aTransferSignalsItsMilestoneOnceBeforeItEnds() throws Exception {
    Links links = new Links(node(1), false);
    links.start(0, r(res(links, "cpu0-sw0", true)), f(1), 2, 1_000, 200, 0);
    links.update(0);
    assertThat(links.nextAt()).isEqualTo(400);
    links.advance(400);
    assertThat(links.milestones(400)).isEqualTo(1);
    assertThat(links.finished(400)).isZero();
    links.update(400);
    assertThat(links.milestones(400)).isZero();
    assertThat(links.nextAt()).isEqualTo(500);
  }

  /**
   * Scenario "three copies share an uplink max-min fairly", replayed: at t = 0, 1 MB to gpu0, 1 MB
   * to gpu1 and 0.2 MB to gpu2 (behind its 2 GB/s link). After their 10 us of L+o they cross
   * cpu0-sw0 at 4, 4 and 2 GB/s; the small one ends at 10 + 200,000 / 2,000 = 110 us; the two big
   * ones have 1,000,000 - 100 x 4,000 = 600,000 bytes left, which they then move at 5,000 bytes per
   * us each: they end at 110 + 120 = 230 us (2.2 MB over 10 GB/s after 10 us).
   *
   * <pre>
   *   cpu0-sw0       [10][ 4 + 4 + 2 GB/s ........][ 5 + 5 GB/s ......]
   *   to gpu0 (1 MB) [10][------------------------------------------]  230
   *   to gpu1 (1 MB) [10][------------------------------------------]  230
   *   to gpu2 (.2 MB)[10][------------------------]                    110
   * </pre>
   */
  @Test
  void threeCopiesShareAnUplinkMaxMinFairly() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s0 = f.stream(false, false, 0);
    int s1 = f.stream(false, false, 1);
    int s2 = f.stream(false, false, 2);
    int a = f.copy(0, s0, TransferKind.PINNED_H2D, 1_000_000);
    int b = f.copy(0, s1, TransferKind.PINNED_H2D, 1_000_000);
    int c = f.copy(0, s2, TransferKind.PINNED_H2D, 200_000);
    f.syncDevice(0);
    ReplayResult r = Replayer.replay(f.build(), node(1), Replayer.Options.defaults());
    TimelineFixturesTest.times(r, a, 0, 230);
    TimelineFixturesTest.times(r, b, 0, 230);
    TimelineFixturesTest.times(r, c, 0, 110);
  }

  /**
   * Scenario "duplex", replayed with two copy engines: 1 MB to gpu1 and 0.5 MB from it at once.
   * While both move, each direction of sw0-gpu1 keeps 0.8 of its 10 GB/s: 8,000 bytes per us; the
   * copy from the GPU ends at 10 + 500,000 / 8,000 = 72.5 us; the other then has 500,000 bytes left
   * at 10,000 per us: it ends at 122.5 us. (cpu0-sw0 carries one transfer each way.)
   *
   * <pre>
   *   to gpu1 (1 MB)     [10][--- 8 GB/s ---][-- 10 GB/s --]  122.5
   *   from gpu1 (.5 MB)  [10][--- 8 GB/s ---]                  72.5
   * </pre>
   */
  @Test
  void oppositeCopiesOnADuplexLinkEachKeepItsDuplexFactor() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s1 = f.stream(false, false, 1);
    int s2 = f.stream(false, false, 1);
    int in = f.copy(0, s1, TransferKind.PINNED_H2D, 1_000_000);
    int out = f.copy(0, s2, TransferKind.PINNED_D2H, 500_000);
    f.syncDevice(0, 1, 0);
    ReplayResult r = Replayer.replay(f.build(), node(2), Replayer.Options.defaults());
    TimelineFixturesTest.times(r, out, 0, 72.5);
    TimelineFixturesTest.times(r, in, 0, 122.5);
  }
}
