package io.apptrace.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.graph.CallLog;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.replay.HostCall;
import io.apptrace.replay.ReplayJson;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayResult;
import io.apptrace.replay.Replayer;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the report page is made of: its numbers come from the {@code replay --json} document, its
 * what-if table from the list it is given, its timelines from the replay, its copies against the
 * transfer model.
 */
class ReportPageTest {
  /**
   * One thread on one stream: a pinned copy of {@code bytes} in, a kernel measured at 50 us, a copy
   * out; a range "step" around the three.
   */
  static ReplayProgram program(long bytes) {
    List<ReplayProgram.Op> ops = List.of(
        new ReplayProgram.Op(0, ReplayProgram.Kind.COPY, "cudaMemcpyAsync", 0, 0, -1, TransferKind.PINNED_H2D, bytes,
            -1, -1, -1, bytes, 0, 0, 0, false),
        new ReplayProgram.Op(1, ReplayProgram.Kind.KERNEL, "scale", 0, 0, -1, null, 0, -1, 0, 50_000, bytes, 0, 0,
            1024, false),
        new ReplayProgram.Op(2, ReplayProgram.Kind.COPY, "cudaMemcpyAsync", 0, 0, -1, TransferKind.PINNED_D2H, bytes,
            -1, -1, -1, bytes, 0, 0, 0, false));
    List<ReplayProgram.Call> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(new ReplayProgram.Call(new HostCall.IssueOp(i, 0), 1_000 * i, 500, ops.get(i).name()));
    }
    calls.add(new ReplayProgram.Call(new HostCall.SyncStream(0), 3_000, 500, "cudaStreamSynchronize"));
    return new ReplayProgram(ops, List.of(new CallLog.Stream(1, 0, false, true, false, 0x10)),
        List.of(new ReplayProgram.HostThread(1, 7, calls)), 0)
        .withAnnotations(List.of(new CallLog.Range(0, "step", "", 0, 3_500)), List.of());
  }

  static List<ReplayResult> replay(ReplayProgram p, String... nodes) throws Exception {
    List<ReplayResult> out = new ArrayList<>();
    for (String n : nodes) {
      out.add(Replayer.replay(p, NodeLoader.bundled(n).orElseThrow(), Replayer.Options.defaults()));
    }
    return out;
  }

  @Test
  void theNumbersAreThoseOfTheReplayJsonDocument() throws Exception {
    List<ReplayResult> results = replay(program(4 << 20), "ac922", "dgx1");
    ObjectNode json = ReplayJson.of(results, "t.apptrace");
    ReportData d = ReportPage.of(results, json, List.of(), null).data();
    assertThat(d.nodes()).extracting(ReportData.NodeSummary::node).containsExactly("ac922", "dgx1");
    for (int i = 0; i < 2; i++) {
      ReportData.NodeSummary s = d.nodes().get(i);
      var n = json.get("nodes").get(i);
      assertThat(s.makespanNs()).isEqualTo(n.get("makespan_ns").asLong());
      assertThat(s.speedupOverFirst()).isEqualTo(n.get("speedup_over_first").asDouble());
      assertThat(s.breakdownNs().get("kernels")).isEqualTo(n.get("breakdown_ns").get("kernels").asLong());
      assertThat(s.breakdownNs().get("copies pinned_h2d"))
          .isEqualTo(n.get("breakdown_ns").get("copies_by_kind").get("pinned_h2d").asLong());
      assertThat(s.breakdownNs().values().stream().mapToLong(Long::longValue).sum())
          .as("the bars add up to the makespan, to a nanosecond per category").isCloseTo(s.makespanNs(),
              org.assertj.core.data.Offset.offset(8L));
    }
    assertThat(d.comparisons()).singleElement().satisfies(c -> {
      assertThat(c.node()).isEqualTo("dgx1");
      assertThat(c.against()).isEqualTo("ac922");
      assertThat(c.speedup()).isEqualTo(json.get("comparisons").get(0).get("speedup").asDouble());
    });
  }

  @Test
  void theSameReplayGivesTheSamePageByteForByte() throws Exception {
    StringWriter a = new StringWriter();
    StringWriter b = new StringWriter();
    for (StringWriter w : List.of(a, b)) {
      List<ReplayResult> results = replay(program(4 << 20), "ac922", "dgx1");
      HtmlReport.write(ReportPage.of(results, ReplayJson.of(results, "t.apptrace"), List.of(), null), w);
    }
    assertThat(b.toString()).isEqualTo(a.toString());
  }

  @Test
  void theWhatIfTableIsTheListItIsGivenAndSaysSoWhenItIsEmpty() throws Exception {
    List<ReplayResult> results = replay(program(1 << 20), "dgx1");
    ObjectNode json = ReplayJson.of(results, "t.apptrace");
    StringWriter none = new StringWriter();
    HtmlReport.write(ReportPage.of(results, json, List.of(), null), none);
    assertThat(none.toString()).contains("no what-ifs requested").doesNotContain("what-if-table");

    WhatIf pin = new WhatIf("pin-pageable", List.of(new WhatIf.NodeResult("dgx1", 2_000_000, 1_000_000)));
    StringWriter one = new StringWriter();
    HtmlReport.write(ReportPage.of(results, json, List.of(pin), null), one);
    assertThat(one.toString()).doesNotContain("no what-ifs requested")
        .contains("<tr data-what-if=\"pin-pageable\" data-node=\"dgx1\"><td>pin-pageable</td><td>dgx1</td>"
            + "<td class=\"before\" data-ns=\"2000000\">2.000 ms</td><td class=\"after\" data-ns=\"1000000\">1.000 ms"
            + "</td><td>2.00x</td></tr>");
  }

  @Test
  void theTimelineHasALaneForEachThreadRangeStreamEngineTransferAndLink() throws Exception {
    ReplayResult r = replay(program(4 << 20), "dgx1").get(0);
    TimelineLanes t = TimelineLanes.projected(r);
    assertThat(t.lanes()).extracting(l -> l.group().label() + ": " + l.name()).contains(
        "host threads: thread 7 (pid 1)", "NVTX ranges: ranges, thread 7 (pid 1)", "streams: stream 0x10 (gpu 0)",
        "transfers: transfers", "links: cpu0->plx0", "links: plx0->gpu0");
    TimelineLanes.Lane stream = t.lanes().stream().filter(l -> l.group() == TimelineLanes.Group.STREAMS).findFirst()
        .orElseThrow();
    assertThat(stream.slices()).extracting(TimelineLanes.Slice::style).containsExactly("copy", "kernel", "copy");
    assertThat(stream.slices().get(1).endNs()).isEqualTo(r.ops().get(1).endNs());
    assertThat(t.spanNs()).isEqualTo(r.makespanNs());
    assertThat(TimelineLanes.measured(r.program())).as("the kernel's measured time makes a measured timeline")
        .isNotNull();
  }

  @Test
  void aTimelineWithTooManySlicesMergesNeighboursAndSaysHowMany() {
    List<TimelineLanes.Slice> many = new ArrayList<>();
    for (int i = 0; i < 3 * TimelineLanes.MAX_SLICES; i++) {
      many.add(new TimelineLanes.Slice(10.0 * i, 10.0 * i + 5, "k", "kernel", 1));
    }
    TimelineLanes t = TimelineLanes.coarse(new TimelineLanes("x", 30.0 * TimelineLanes.MAX_SLICES,
        List.of(new TimelineLanes.Lane(TimelineLanes.Group.STREAMS, "s", many, List.of()))));
    assertThat(t.slices()).isLessThanOrEqualTo(TimelineLanes.MAX_SLICES);
    assertThat(t.lanes().get(0).slices().stream().mapToInt(TimelineLanes.Slice::count).sum()).isEqualTo(many.size());
    assertThat(t.lanes().get(0).slices().get(0).label()).endsWith("slices merged (zoom in the --timeline file)");
  }

  @Test
  void eachCopyKindIsDrawnAgainstTheTransferModelsCurveOnTheNode() throws Exception {
    ReplayResult r = replay(program(4 << 20), "dgx1").get(0);
    CopyBandwidth c = CopyBandwidth.of(r);
    assertThat(c.series()).extracting(CopyBandwidth.Series::kind).containsExactly("pinned_h2d", "pinned_d2h");
    CopyBandwidth.Series in = c.series().get(0);
    assertThat(in.projected()).singleElement().satisfies(p -> {
      assertThat(p[0]).isEqualTo(4 << 20);
      assertThat(p[1]).isEqualTo((4 << 20) / (r.ops().get(0).durationNs() * 1e-9));
    });
    double[] last = in.curve().get(in.curve().size() - 1);
    assertThat(last[0]).as("the curve reaches twice the largest copy").isEqualTo(8 << 20);
    var model = new io.apptrace.cost.TransferModel(r.node());
    assertThat(last[1]).isEqualTo((8 << 20) / model.estimate(TransferKind.PINNED_H2D, 8 << 20,
        new io.apptrace.cost.TransferModel.Endpoints(-1, 0, 0), io.apptrace.cost.TransferModel.Setting.MEASURED)
        .seconds());
    assertThat(in.measured()).as("the copies were not measured").isEmpty();
  }
}
