package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeOverride;
import io.apptrace.node.TransferKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "What-if": a {@code --set} on a link that a node's measured curves were taken
 * over rescales the curves on the routes through it, by the ratio of the datasheet estimates after
 * and before the change. Tried as a new user would: on dgx1, whose curves price its copies, setting
 * both PCIe links of gpu0's route to generation 4 gave the baseline makespan to the nanosecond.
 */
class WhatIfCurvesTest {
  private static final long N = 64L << 20;

  private static ReplayProgram oneCopy(int device) {
    ProgramFixture f = new ProgramFixture();
    int s = f.stream(false, true, device);
    f.copy(0, s, TransferKind.PINNED_H2D, N);
    f.syncStream(0, s);
    return f.build();
  }

  private static double copyNs(Node n, int device) throws Exception {
    return Replayer.replay(oneCopy(device), n, Replayer.Options.defaults()).ops().get(0).durationNs();
  }

  /**
   * Scenario "a faster link under a measured curve": the copy's data time is the curve's, times
   * (n / BW_datasheet,after) / (n / BW_datasheet,before), BW the route's effective bandwidth
   * (Abdelhafez et al. 2019, eq. 2 per link); its fixed part L+o stays.
   */
  @Test
  void aLinkChangeUnderAMeasuredCurveRescalesIt() throws Exception {
    List<NodeOverride> gen4 = List.of(new NodeOverride("links.cpu0-plx0.generation", "4"),
        new NodeOverride("links.plx0-gpu0.generation", "4"));
    Node before = NodeLoader.resolve("dgx1");
    Node after = NodeLoader.resolve("dgx1", gen4);
    assertThat(before.measured().curves()).as("the scenario needs measured curves").isNotEmpty();
    TransferModel b = new TransferModel(before);
    TransferModel a = new TransferModel(after);
    TransferModel.Endpoints gpu0 = TransferModel.Endpoints.gpu(0);
    double l = b.estimate(TransferKind.PINNED_H2D, N, gpu0, TransferModel.Setting.MEASURED).latency().seconds();
    double curveData = b.estimate(TransferKind.PINNED_H2D, N, gpu0, TransferModel.Setting.MEASURED).seconds() - l;
    double dsBefore = b.estimate(TransferKind.PINNED_H2D, N, gpu0, TransferModel.Setting.DATASHEET).seconds() - l;
    double dsAfter = a.estimate(TransferKind.PINNED_H2D, N, gpu0, TransferModel.Setting.DATASHEET).seconds() - l;
    assertThat(dsAfter / dsBefore).as("PCIe 4.0 doubles the route's bandwidth").isCloseTo(0.5, within(0.01));
    TransferEstimate rescaled = a.estimate(TransferKind.PINNED_H2D, N, gpu0, TransferModel.Setting.MEASURED);
    assertThat(rescaled.seconds()).isCloseTo(l + curveData * dsAfter / dsBefore, within(1e-9));
    assertThat(rescaled.notes()).anySatisfy(n -> assertThat(n).contains("measured curve rescaled")
        .contains("cpu0-plx0").contains("plx0-gpu0"));

    ReplayResult r = Replayer.replay(oneCopy(0), after, Replayer.Options.defaults());
    assertThat(r.ops().get(0).durationNs()).isCloseTo(rescaled.seconds() * 1e9, within(2.0));
    assertThat(copyNs(after, 0)).isLessThan(copyNs(before, 0) * 0.6);
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("pinned_h2d to and from gpu0: measured curve"
        + " rescaled"));
  }

  /** A link that is not on the copy's route leaves its curve as measured. */
  @Test
  void aLinkOffTheRouteLeavesTheCurve() throws Exception {
    Node after = NodeLoader.resolve("dgx1", List.of(new NodeOverride("links.plx0-gpu0.generation", "4")));
    // gpu2's route is cpu0-plx1-gpu2
    assertThat(copyNs(after, 2)).isEqualTo(copyNs(NodeLoader.resolve("dgx1"), 2));
  }

  /** A --set of the curves themselves is what the user says they are: not rescaled. */
  @Test
  void curvesTheUserSetAreNotRescaled() throws Exception {
    Node after = NodeLoader.resolve("dgx1", List.of(new NodeOverride("links.plx0-gpu0.generation", "4"),
        new NodeOverride("measured.curves.pinned_h2d", "[[1 MiB, 10 GB/s], [1 GiB, 10 GB/s]]")));
    assertThat(after.measured().curveLinks()).isEmpty();
  }
}
