package io.apptrace.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;
import static org.assertj.core.data.Percentage.withPercentage;

import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TestNodes;
import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * Fixed costs by the way they were timed (docs/COST-MODEL.md, "Timing kinds"): L+o as GPU time and
 * as the duration of the blocking call around the copy, converted by {@link TimingConversion}'s
 * rule where the node file has only the other; {@code latency_from} resolved when the file is read.
 */
class FixedCostsTest {
  private static final double MIB = 1048576;
  /** PCIe 3.0 x16: 16 lanes * 8 GT/s * 128/130 / 8. */
  private static final double GEN3_X16 = 16 * 8e9 * 128 / 130 / 8;

  private static Node timed(String how) throws NodeFileException {
    return NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("timed: gpu", "timed: " + how), "t.yaml");
  }

  @Test
  void anEventTimedLatencyIsTakenAsGpuTimeByTheStatedRule() throws Exception {
    TransferModel m = new TransferModel(timed("event"));
    TransferModel.Latency l = m.latency(TransferKind.PINNED_H2D);
    // call to GPU: L_gpu = min(L_call, the median GPU time of a small host-to-device copy) = min(10 us, 1.344 us)
    assertThat(l.seconds()).isEqualTo(TimingConversion.SMALL_COPY_GPU_H2D).isEqualTo(1.344e-6);
    assertThat(l.callSeconds()).isEqualTo(10e-6);
    assertThat(l.timed()).isEqualTo(Timing.EVENT);
    assertThat(l.conversion()).hasValueSatisfying(c -> assertThat(c).startsWith("GPU time converted from 10.00 us"
        + " event-timed"));
    // device to host: min(11 us, 2.0 us)
    assertThat(m.latency(TransferKind.PINNED_D2H).seconds()).isEqualTo(2.0e-6);
    // a pinned copy of 1 MiB, Abdelhafez et al. 2019, eq. 10 in each view: L+o + 1245708 / 15.7538e9 s (eq. 4)
    TransferEstimate e = m.estimate(TransferKind.PINNED_H2D, (long) MIB, new TransferModel.Endpoints(0, 0, 0),
        TransferModel.Setting.DATASHEET);
    assertThat(e.seconds()).isCloseTo(1.344e-6 + 1245708 / GEN3_X16, offset(1e-12));
    assertThat(e.callSeconds()).isCloseTo(10e-6 + 1245708 / GEN3_X16, offset(1e-12));
    assertThat(e.seconds(Timing.EVENT)).isEqualTo(e.callSeconds());
    assertThat(e.peakBwSeconds(Timing.EVENT) - e.peakBwSeconds()).isCloseTo(10e-6 - 1.344e-6, offset(1e-15));
  }

  @Test
  void aGpuTimedLatencyGetsTheBlockingCallsHostSideForTheCallView() throws Exception {
    TransferModel.Latency l = new TransferModel(timed("gpu")).latency(TransferKind.PINNED_H2D);
    // GPU to call: L_call = L_gpu + the median host-side overhead of a blocking copy call = 10 us + 9.5 us
    assertThat(l.seconds()).isEqualTo(10e-6);
    assertThat(l.callSeconds()).isCloseTo(10e-6 + TimingConversion.BLOCKING_CALL_HOST, offset(1e-18))
        .isCloseTo(19.5e-6, offset(1e-18));
    // wall-clock figures are converted as event-timed ones (both bracket the call)
    assertThat(new TransferModel(timed("wall")).latency(TransferKind.PINNED_H2D).seconds()).isEqualTo(1.344e-6);
  }

  @Test
  void aGapTimedAroundCallsIsAtMostTheGpuTimeLatency() throws Exception {
    // the test node's gap h2d is 2.5 us; event-timed, its L+o's GPU time is 1.344 us
    assertThat(new TransferModel(timed("event")).gap(TransferKind.PINNED_H2D)).isEqualTo(1.344e-6);
    assertThat(new TransferModel(timed("gpu")).gap(TransferKind.PINNED_H2D)).isEqualTo(2.5e-6);
  }

  @Test
  void timesWithoutSayingHowTheyWereTimedAreRefused() {
    assertThatThrownBy(() -> NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("  timed: gpu\n", ""), "t.yaml"))
        .isInstanceOf(NodeFileException.class).hasMessageStartingWith("t.yaml:").hasMessageContaining(
            "measured.timed: missing: say how these times were taken: gpu (the copy's span on the GPU");
    assertThatThrownBy(() -> timed("sundial")).isInstanceOf(NodeFileException.class)
        .hasMessageContaining("measured.timed: 'sundial' is no way of timing; use gpu, event, wall");
  }

  @Test
  void latencyFromIsResolvedWhenTheFileIsRead() throws Exception {
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace(
        "  latency: {pinned_h2d: \"10 us\", pinned_d2h: \"11 us\"}\n", "  latency_from: dgx1\n"), "t.yaml");
    Node.LatencySource from = n.measured().latencyFrom().orElseThrow();
    assertThat(from.node()).isEqualTo("dgx1");
    assertThat(from.measured().timed()).hasValue(Timing.EVENT);
    TransferModel.Latency l = new TransferModel(n).latency(TransferKind.PINNED_H2D);
    // dgx1's own event-timed 10.913 us, taken as GPU time by the rule
    assertThat(l.callSeconds()).isCloseTo(10.913e-6, offset(1e-15));
    assertThat(l.seconds()).isEqualTo(1.344e-6);
    assertThat(l.source()).isEqualTo("reused from dgx1 (pinned_h2d)");
    // a chain: dgx1-v100 reuses dgx1's
    Node v = NodeLoader.bundled("dgx1-v100").orElseThrow();
    assertThat(new TransferModel(v).latency(TransferKind.PEER).callSeconds()).isCloseTo(9.883e-6, offset(1e-15));
  }

  @Test
  void aNodeReusingItsOwnLatencyIsACircle() {
    assertThatThrownBy(() -> NodeLoader.parse("titan.yaml", TestNodes.GOOD.replace("name: test", "name: titan")
        .replace("  latency: {pinned_h2d: \"10 us\", pinned_d2h: \"11 us\"}\n", "  latency_from: titan\n"),
        "titan.yaml")).isInstanceOf(NodeFileException.class).hasMessageContaining(
            "measured.latency_from: the nodes titan reuse each other's latency in a circle");
  }

  /**
   * Two nodes that differ only in their GPUs (the DGX-1 with P100s and with V100s: the same CPUs,
   * PCIe switches and PCIe 3.0 x16 routes) price the same small copy over the same link alike, in
   * both views, whichever way each node's fixed costs were timed.
   */
  @Test
  void nodesDifferingOnlyInTheirGpusPriceASmallCopyAlike() throws Exception {
    TransferModel p100 = new TransferModel(NodeLoader.bundled("dgx1").orElseThrow());
    TransferModel v100 = new TransferModel(NodeLoader.bundled("dgx1-v100").orElseThrow());
    for (TransferKind k : new TransferKind[] {TransferKind.PINNED_H2D, TransferKind.PINNED_D2H}) {
      TransferEstimate a = p100.estimate(k, 4096, TransferModel.Endpoints.gpu(0), TransferModel.Setting.DATASHEET);
      TransferEstimate b = v100.estimate(k, 4096, TransferModel.Endpoints.gpu(0), TransferModel.Setting.DATASHEET);
      assertThat(b.legs()).isEqualTo(a.legs());
      assertThat(b.seconds()).as(k + " GPU time").isCloseTo(a.seconds(), withPercentage(5));
      assertThat(b.callSeconds()).as(k + " call").isCloseTo(a.callSeconds(), withPercentage(5));
    }
  }
}
