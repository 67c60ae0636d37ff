package io.apptrace.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TestNodes;
import io.apptrace.node.PcieGeneration;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * Each equation of docs/COST-MODEL.md against values computed by hand (the arithmetic is in the
 * comments), on the test node of {@link TestNodes#GOOD}: two sockets (60 GB/s and 76.8 GB/s
 * memory), QPI between them at 19.2 GB/s with efficiency 0.6, two GPUs behind a PCIe 3.0 x16
 * switch (gpu1's link with 20-byte packet overheads) and joined by one NVLink 1.0 lane; measured
 * L+o 10 us (pinned_h2d) and 11 us (pinned_d2h).
 */
class TransferModelTest {
  private static final double MIB = 1048576;
  /** PCIe 3.0 x16: 16 lanes * 8 GT/s * 128/130 / 8 = 15.753846... GB/s. */
  private static final double GEN3_X16 = 16 * 8e9 * 128 / 130 / 8;

  private static TransferModel model() throws Exception {
    return new TransferModel(TestNodes.good());
  }

  private static TransferEstimate datasheet(TransferKind k, long bytes, TransferModel.Endpoints e) throws Exception {
    return model().estimate(k, bytes, e, TransferModel.Setting.DATASHEET);
  }

  @Test
  void pcieLinkBandwidthAppliesTheEncodingOnce() {
    // docs/COST-MODEL.md: Link_BW = lanes * rate * eta / 8
    assertThat(PcieGeneration.of(2).linkBandwidth(16)).isEqualTo(8e9); // 16 * 5e9 * 0.8 / 8
    assertThat(PcieGeneration.of(3).linkBandwidth(16)).isCloseTo(15.753846153846e9, offset(1e3));
    assertThat(PcieGeneration.of(1).linkBandwidth(1)).isEqualTo(0.25e9); // Abdelhafez et al. 2019, Table II: 0.25 GB/s a lane
  }

  @Test
  void packetOverheadsOfEquations4To7() throws Exception {
    Node n = TestNodes.good();
    Node.Link pcie = n.links().get(0); // defaults: MRd_O = CplD_O = MWr_O = 12, MRRS 512, RCB 64, MPS 256
    // Abdelhafez et al. 2019, eq. 4: 12 + 512 + ceil(1048576 / 64) * 12 + 1048576 = 524 + 196608 + 1048576
    assertThat(LinkCost.nHat(pcie, MIB, LinkCost.Access.READ)).isEqualTo(1245708);
    // Abdelhafez et al. 2019, eq. 5: ceil(1048576 / 256) * 12 + 1048576 = 49152 + 1048576
    assertThat(LinkCost.nHat(pcie, MIB, LinkCost.Access.WRITE)).isEqualTo(1097728);
    Node.Link nvlink = n.links().get(3);
    // Abdelhafez et al. 2019, eq. 6: 16 + ceil(1000 / 256) * 16 + 1000 = 16 + 64 + 1000
    assertThat(LinkCost.nHat(nvlink, 1000, LinkCost.Access.READ)).isEqualTo(1080);
    // Abdelhafez et al. 2019, eq. 7: ceil(1000 / 256) * 16 + 1000
    assertThat(LinkCost.nHat(nvlink, 1000, LinkCost.Access.WRITE)).isEqualTo(1064);
    // Abdelhafez et al. 2019, eq. 2: BW_eff = n * Link_BW / n_hat
    assertThat(LinkCost.effectiveBandwidth(pcie, MIB, LinkCost.Access.READ, true))
        .isCloseTo(MIB * GEN3_X16 / 1245708, offset(1.0));
    Node.Link qpi = n.links().get(4);
    assertThat(LinkCost.effectiveBandwidth(qpi, MIB, LinkCost.Access.READ, true)).isCloseTo(19.2e9 * 0.6, offset(1.0));
  }

  @Test
  void pinnedHostToDeviceIsEquation10OverTheRoute() throws Exception {
    TransferEstimate e = datasheet(TransferKind.PINNED_H2D, (long) MIB, new TransferModel.Endpoints(0, 0, 0));
    // Abdelhafez et al. 2019, eq. 10: T = L+o + n / BW_eff = 10 us + 1245708 / 15.7538e9 s = 89.07326 us
    assertThat(e.seconds()).isCloseTo(8.907326171875e-05, offset(1e-12));
    assertThat(e.path()).isEqualTo(TransferPath.HOST);
    assertThat(e.legs()).singleElement().satisfies(l -> assertThat(l.travelled().describe()).isEqualTo("cpu0 -> plx0 -> gpu0"));
    assertThat(e.remote()).isFalse();
    assertThat(e.latency().source()).isEqualTo("measured on test (pinned_h2d)");
    // docs/COST-MODEL.md: Peak BW = L+o + n / Link_BW = 10 us + 66.56 us; back-of-envelope = 66.56 us
    assertThat(e.peakBwSeconds()).isCloseTo(7.656e-05, offset(1e-12));
    assertThat(e.backOfEnvelopeSeconds()).isCloseTo(6.656e-05, offset(1e-12));
  }

  @Test
  void deviceToHostWritesAndTheLinkWithTheMostOverheadBoundsIt() throws Exception {
    TransferEstimate e = datasheet(TransferKind.PINNED_D2H, (long) MIB, new TransferModel.Endpoints(0, 1, 1));
    // Abdelhafez et al. 2019, eq. 5 on plx0-gpu1 (MWr_O = 20): 4096 * 20 + 1048576 = 1130496; 11 us + 1130496 /
    // 15.7538e9
    assertThat(e.seconds()).isCloseTo(8.276e-05, offset(1e-12));
    assertThat(e.bottleneck()).startsWith("plx0-gpu1 (pcie gen3 x16");
  }

  @Test
  void pageableIsEquation9StagedThroughHostMemory() throws Exception {
    TransferEstimate e = datasheet(TransferKind.PAGEABLE_H2D, (long) MIB, new TransferModel.Endpoints(0, 0, 0));
    // Abdelhafez et al. 2019, eq. 9: 10 us (pinned_h2d's L+o: no pageable one measured) + 2 * 1048576 / 60e9 +
    // 1245708 / 15.7538e9
    assertThat(e.seconds()).isCloseTo(1.2402579505208335e-04, offset(1e-12));
    assertThat(e.latency().source()).isEqualTo("measured on test (pinned_h2d, for pageable_h2d)");
  }

  /**
   * docs/COST-MODEL.md, "Pageable host memory": with the CPU's memcpy bandwidth measured (5 GB/s), a
   * copy is a pipeline of 1 MiB chunks: the CPU stages a chunk in 1048576 / 5e9 = 209.7152 us, the
   * PCIe DMA moves it in 1245708 / 15.7538e9 = 79.0738 us (Abdelhafez et al. 2019, eq. 4 for 1 MiB).
   * The CPU sets the pace: chunk j's DMA ends at 209.7152 j + 79.0738 us.
   */
  @Test
  void pageableWithTheCpusMemcpyBandwidthIsAStagingPipeline() throws Exception {
    TransferModel m = new TransferModel(NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("  gap: {h2d: \"2.5 us\"}\n",
        "  gap: {h2d: \"2.5 us\"}\n  memcpy_bandwidth: {cpu0: \"5 GB/s\"}\n"), "t.yaml"));
    double stage = MIB / 5e9;
    double dma = 1245708 / GEN3_X16;
    TransferModel.Endpoints local = new TransferModel.Endpoints(0, 0, 0);
    // one chunk: the GPU sees only its DMA; the call sees the staging before it too. L+o 10 us (GPU time),
    // 10 + 9.5 us as the call's (the test node's figures are GPU times; docs/COST-MODEL.md, "Timing kinds")
    TransferEstimate one = m.estimate(TransferKind.PAGEABLE_H2D, (long) MIB, local, TransferModel.Setting.DATASHEET);
    assertThat(one.seconds()).isCloseTo(10e-6 + dma, offset(1e-12));
    assertThat(one.callSeconds()).isCloseTo(19.5e-6 + stage + dma, offset(1e-12));
    // four chunks: on the GPU from the first DMA's start (209.7 us) to the last one's end (4 * 209.7 + 79.1 us)
    TransferEstimate four = m.estimate(TransferKind.PAGEABLE_H2D, 4 * (long) MIB, local,
        TransferModel.Setting.DATASHEET);
    assertThat(four.seconds()).isCloseTo(10e-6 + 3 * stage + dma, offset(1e-12));
    assertThat(four.callSeconds()).isCloseTo(19.5e-6 + 4 * stage + dma, offset(1e-12));
    // device to host: the DMA first, into two buffers, each copied out by the CPU; chunk j + 2's DMA waits for
    // chunk j's copy out. With w = 1097728 / 15.7538e9 = 69.68 us a DMA (Abdelhafez et al. 2019, eq. 5) and
    // a = 209.72 us a copy: DMAs end at w, 2w, 2w + a, 2w + 2a; copies out at w + a, w + 2a, w + 3a, w + 4a
    double w = 1097728 / GEN3_X16;
    TransferEstimate back = m.estimate(TransferKind.PAGEABLE_D2H, 4 * (long) MIB, local,
        TransferModel.Setting.DATASHEET);
    assertThat(back.seconds()).isCloseTo(11e-6 + 2 * w + 2 * stage, offset(1e-12));
    assertThat(back.callSeconds()).isCloseTo(20.5e-6 + w + 4 * stage, offset(1e-12));
  }

  @Test
  void aSocketBusMayReachADifferentFractionForReadsAndWrites() throws Exception {
    TransferModel m = new TransferModel(NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("efficiency: 0.6",
        "efficiency: {read: 0.6, write: 0.4}"), "t.yaml"));
    TransferModel.Endpoints remote = new TransferModel.Endpoints(1, 0, 0);
    // host to device: the GPU reads memory across the QPI, 19.2 GB/s * 0.6; back it writes it, 19.2 GB/s * 0.4
    // (either below the PCIe link's 13.3 and 15.0 GB/s for 1 MiB, Abdelhafez et al. 2019, eq. 4-5)
    assertThat(m.estimate(TransferKind.PINNED_H2D, (long) MIB, remote, TransferModel.Setting.DATASHEET).seconds())
        .isCloseTo(10e-6 + MIB / (19.2e9 * 0.6), offset(1e-12));
    assertThat(m.estimate(TransferKind.PINNED_D2H, (long) MIB, remote, TransferModel.Setting.DATASHEET).seconds())
        .isCloseTo(11e-6 + MIB / (19.2e9 * 0.4), offset(1e-12));
  }

  @Test
  void aStagedCopyCrossesTheStagingMemoryTwice() throws Exception {
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("peer_access: [nvlink, pcie-switch]",
        "peer_access: none").replace("memory_bandwidth: \"60 GB/s\"", "memory_bandwidth: \"20 GB/s\""), "t.yaml");
    TransferEstimate e = new TransferModel(n).estimate(TransferKind.STAGED_P2P, (long) MIB,
        new TransferModel.Endpoints(-1, 0, 1), TransferModel.Setting.DATASHEET);
    // cpu0's memory is written by the first half and read by the second: 20 GB/s / 2 = 10 GB/s, below either PCIe half
    assertThat(e.seconds()).isCloseTo(21e-6 + MIB / 10e9, offset(1e-12));
    assertThat(e.bottleneck()).isEqualTo("NUMA node 0 memory (20.00 GB/s, crossed twice)");
  }

  @Test
  void aMemsetPaysAnOnGpuFixedCostAndWritesEveryByteOnce() throws Exception {
    Node.Gpu g = TestNodes.good().gpus().get(0);
    // no measured.memset: the device-to-device L+o (here pinned_d2h's, 11 us) + n / (732 GB/s * 0.766540)
    assertThat(model().memsetSeconds((long) MIB, g)).isCloseTo(11e-6 + MIB / (732e9 * 0.7665399640678914),
        offset(1e-12));
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("  gap: {h2d: \"2.5 us\"}\n",
        "  gap: {h2d: \"2.5 us\"}\n  memset: \"1.5 us\"\n"), "t.yaml");
    assertThat(new TransferModel(n).memsetSeconds(0, g)).isEqualTo(1.5e-6);
    assertThat(new TransferModel(n).memset().source()).isEqualTo("measured on test (memset)");
  }

  @Test
  void aRemoteNumaNodeCrossesTheSocketBusAtItsEfficiency() throws Exception {
    TransferEstimate e = datasheet(TransferKind.PINNED_H2D, (long) MIB, new TransferModel.Endpoints(1, 0, 0));
    // the QPI at 19.2 GB/s * 0.6 = 11.52 GB/s bounds it: 10 us + 1048576 / 11.52e9 = 101.0222 us
    assertThat(e.seconds()).isCloseTo(1.0102222222222223e-04, offset(1e-12));
    assertThat(e.legs()).singleElement().satisfies(l -> assertThat(l.travelled().describe())
        .isEqualTo("cpu1 -> cpu0 -> plx0 -> gpu0"));
    assertThat(e.remote()).isTrue();
    assertThat(e.bottleneck()).startsWith("cpu0-cpu1 (qpi");
  }

  @Test
  void peerCopiesTakeTheDirectNvlink() throws Exception {
    TransferEstimate e = datasheet(TransferKind.PEER, (long) MIB, new TransferModel.Endpoints(-1, 0, 1));
    // Abdelhafez et al. 2019, eq. 7 over one NVLink 1.0 lane (20 GB/s): 11 us + (4096 * 16 + 1048576) / 20e9 =
    // 66.7056 us
    assertThat(e.seconds()).isCloseTo(6.67056e-05, offset(1e-12));
    assertThat(e.path()).isEqualTo(TransferPath.PEER);
    assertThat(e.legs()).singleElement().satisfies(l -> assertThat(l.travelled().describe()).isEqualTo("gpu0 -> gpu1"));
  }

  @Test
  void withoutPeerAccessACopyIsStagedThroughHostMemory() throws Exception {
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("peer_access: [nvlink, pcie-switch]",
        "peer_access: none"), "t.yaml");
    TransferEstimate e = new TransferModel(n).estimate(TransferKind.PEER, (long) MIB,
        new TransferModel.Endpoints(-1, 0, 1), TransferModel.Setting.DATASHEET);
    // down gpu0 -> cpu0 (Abdelhafez et al. 2019, eq. 5: 1097728 bytes on the wire), up cpu0 -> gpu1 (Abdelhafez et
    // al. 2019, eq. 4 with gpu1's
    // 20-byte overheads: 20 + 512 + 16384 * 20 + 1048576 = 1376788), pipelined: the slower half sets the
    // pace. L+o = 11 us + 10 us; 21 us + 1376788 / 15.7538e9 s = 108.394 us
    assertThat(e.seconds()).isCloseTo(21e-6 + 1376788 / GEN3_X16, offset(1e-12));
    assertThat(e.seconds()).isCloseTo(1.0839376953125e-04, offset(1e-12));
    assertThat(e.kind()).isEqualTo("staged_p2p");
    assertThat(e.notes()).first().isEqualTo("no peer access between gpu0 and gpu1: staged through host memory");
  }

  @Test
  void deviceToDeviceReadsAndWritesEveryByteAtTheStreamingEfficiency() throws Exception {
    // docs/COST-MODEL.md, device to device: the kernel model's elementwise efficiency at 64 times the L2 (feature
    // log2(64) + 20 = 26): halfway between its bins 31 and 32 (kernel-coefficients.yaml), exp((-0.26126344540542323
    // - 0.27047344189441724) / 2) = 0.766540
    assertThat(DeviceCopy.dramEfficiency()).isCloseTo(0.7665399640678914, offset(1e-12));
    TransferEstimate e = datasheet(TransferKind.D2D, (long) MIB, TransferModel.Endpoints.gpu(0));
    // T = (L+o) + 2n / (GPU_memory_BW * e) = 11 us (pinned_d2h's, none for d2d) + 2 * 1048576 / (732e9 * 0.766540)
    assertThat(e.seconds()).isCloseTo(1.4737524307839134e-05, offset(1e-12));
    // the Peak-BW baseline is Abdelhafez et al. 2019, sec. IV-C: (L+o) + n / GPU_memory_BW
    assertThat(e.peakBwSeconds()).isCloseTo(11e-6 + MIB / 732e9, offset(1e-12));
  }

  @Test
  void aMeasuredCurveWinsOnItsLocalRouteAndNeverSpeedsUpARemoteOne() throws Exception {
    TransferModel m = model();
    TransferModel.Endpoints local = new TransferModel.Endpoints(0, 0, 0);
    // at a measured point: 1 MiB at 10 GB/s
    assertThat(m.estimate(TransferKind.PINNED_H2D, (long) MIB, local, TransferModel.Setting.MEASURED).seconds())
        .isCloseTo(MIB / 10e9, offset(1e-15));
    // between points, log-log: t(2 MiB) = exp(ln t1 + (ln 2 / ln 1024) * ln(t2 / t1)), t1 = 1 MiB / 10 GB/s,
    // t2 = 1 GiB / 12 GB/s
    assertThat(m.estimate(TransferKind.PINNED_H2D, 2L << 20, local, TransferModel.Setting.MEASURED).seconds())
        .isCloseTo(2.059262848269103e-04, offset(1e-12));
    // below the smallest point: the smallest point's time (256 B at 0.02 GB/s = 12.8 us)
    assertThat(m.estimate(TransferKind.PINNED_H2D, 1, local, TransferModel.Setting.MEASURED).seconds())
        .isCloseTo(12.8e-6, offset(1e-12));
    // a remote route takes the slower of the local curve and the model: at 1 MiB the curve
    // (104.8576 us) is slower than the model's 101.0222 us
    TransferModel.Endpoints remote = new TransferModel.Endpoints(1, 0, 0);
    assertThat(m.estimate(TransferKind.PINNED_H2D, (long) MIB, remote, TransferModel.Setting.MEASURED).seconds())
        .isCloseTo(MIB / 10e9, offset(1e-15));
    // at 1 GiB the QPI (11.52 GB/s) is slower than the curve's 12 GB/s: 10 us + 2^30 / 11.52e9 s
    assertThat(m.estimate(TransferKind.PINNED_H2D, 1L << 30, remote, TransferModel.Setting.MEASURED).seconds())
        .isCloseTo(10e-6 + (1L << 30) / 11.52e9, offset(1e-12));
  }

  @Test
  void latencyFromReusesAnotherNodesMeasurement() throws Exception {
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace(
        "  latency: {pinned_h2d: \"10 us\", pinned_d2h: \"11 us\"}\n", "  latency_from: titan\n"), "t.yaml");
    TransferModel.Latency l = new TransferModel(n).latency(TransferKind.PINNED_H2D);
    Node titan = NodeLoader.bundled("titan").orElseThrow();
    assertThat(l.seconds()).isEqualTo(titan.measured().latency().get(TransferKind.PINNED_H2D));
    assertThat(l.source()).isEqualTo("reused from titan (pinned_h2d)");
  }

  @Test
  void withNoMeasuredLatencyTheEstimateSaysSo() throws Exception {
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace(
        "  latency: {pinned_h2d: \"10 us\", pinned_d2h: \"11 us\"}\n", ""), "t.yaml");
    TransferEstimate e = new TransferModel(n).estimate(TransferKind.PINNED_H2D, (long) MIB,
        new TransferModel.Endpoints(0, 0, 0), TransferModel.Setting.DATASHEET);
    assertThat(e.seconds()).isCloseTo(1245708 / GEN3_X16, offset(1e-15));
    assertThat(e.notes()).containsExactly("no measured L+o for pinned_h2d: the time counts no fixed overhead");
  }

  @Test
  void pageFaultsNeedTheirMeasurement() throws Exception {
    assertThatThrownBy(() -> model().pageFaultMigration(TransferKind.Way.H2D, 1 << 20, TransferModel.Endpoints.gpu(0)))
        .hasMessage("test has no measured page-fault latency for this migration (measured.page_fault in its node file)");
    Node n = NodeLoader.parse("t.yaml", TestNodes.GOOD.replace("  gap: {h2d: \"2.5 us\"}\n",
        "  gap: {h2d: \"2.5 us\"}\n  page_fault: {cpu_to_gpu: \"24.1 us\"}\n"), "t.yaml");
    TransferEstimate e = new TransferModel(n).pageFaultMigration(TransferKind.Way.H2D, 1 << 20,
        new TransferModel.Endpoints(0, 0, 0));
    // Pearson 2018, Table 5.5: 1 MiB / 64 KiB = 16 faults of 24.1 us, plus 1 MiB over the route at its 64 KiB
    // effective bandwidth (Abdelhafez et al. 2019, eq. 4 for 65536 B: 12 + 512 + 1024 * 12 + 65536 = 78348 bytes on
    // the wire)
    double wire = MIB / (65536 * GEN3_X16 / 78348);
    assertThat(e.seconds()).isCloseTo(16 * 24.1e-6 + wire, offset(1e-12));
  }

  @Test
  void table1ParametersReproduceTheLogGpTimes() {
    // van Werkhoven et al. 2014, Table I (PCIe 3.0, GTX Titan): L+o = 0.009420 ms, G_hd = 8.318392e-8 ms/B, g_hd =
    // 0.002503 ms
    LogGp hd = new LogGp(0.009420e-3, 8.318392e-8 * 1e-3, 0.002503e-3);
    LogGp dh = new LogGp(0.009023e-3, 7.924734e-8 * 1e-3, 0.002674e-3);
    // 16 MB, one stream: 0.009420 + 16777216 * 8.318392e-8 = 1.405014594 ms
    assertThat(hd.seconds(16777216)).isCloseTo(1.40501459356672e-3, offset(1e-15));
    // device to host: 0.009023 + 16777216 * 7.924734e-8 = 1.338572741 ms
    assertThat(dh.seconds(16777216)).isCloseTo(1.33857274060544e-3, offset(1e-15));
    // van Werkhoven et al. 2014, sec. V, four streams: L+o + k*G + g*(nStreams - 1) = 1.405014594 + 3 * 0.002503 ms
    assertThat(hd.seconds(16777216, 4)).isCloseTo(1.41252359356672e-3, offset(1e-15));
  }
}
