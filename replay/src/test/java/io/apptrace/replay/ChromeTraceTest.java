package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.graph.CallLog;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * What the {@code --timeline} file shows beyond the operations' slices (docs/REPLAY.md, "What it
 * reports"): arrows from each call to what it issued, the program's NVTX ranges, and transfers in
 * flight together on separate tracks.
 */
class ChromeTraceTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static List<JsonNode> events(List<ReplayResult> results) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ChromeTrace.write(results, out);
    List<JsonNode> list = new ArrayList<>();
    JSON.readTree(out.toByteArray()).get("traceEvents").forEach(list::add);
    return list;
  }

  private static List<JsonNode> where(List<JsonNode> events, Predicate<JsonNode> p) {
    return events.stream().filter(p).toList();
  }

  private static double us(double ns) {
    return Math.round(ns) / 1e3;
  }

  /**
   * Two copies issued together on two streams of a GPU with four copy engines move their bytes at
   * the same time, then a third after a synchronization:
   *
   * <pre>
   *   transfers      [copy 0 ]      [copy 2]
   *   transfers #2   [copy 1 ]
   * </pre>
   */
  @Test
  void eachCallPointsAtWhatItIssuedAndTransfersInFlightTogetherGetTracksOfTheirOwn() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int a = f.nonBlocking();
    int b = f.nonBlocking();
    f.copy(0, a, TransferKind.PINNED_H2D, 1 << 20);
    f.copy(0, b, TransferKind.PINNED_H2D, 1 << 20);
    f.syncDevice(0);
    f.copy(0, a, TransferKind.PINNED_H2D, 1 << 20);
    ReplayResult r = TimelineFixturesTest.replay(f.build(), TimelineFixturesTest.node(4, 1));
    List<JsonNode> ev = events(List.of(r));

    List<JsonNode> starts = where(ev, e -> e.get("ph").asText().equals("s"));
    List<JsonNode> ends = where(ev, e -> e.get("ph").asText().equals("f"));
    assertThat(starts).hasSize(3);
    assertThat(ends).hasSize(3);
    for (int op = 0; op < 3; op++) {
      JsonNode s = starts.get(op);
      JsonNode e = ends.stream().filter(x -> x.get("id").equals(s.get("id"))).findFirst().orElseThrow();
      ReplayResult.CallTimes call = r.calls().get(0).get(op == 2 ? 3 : op);
      assertThat(s.get("tid").asInt()).as("from the host thread's track").isEqualTo(1);
      assertThat(s.get("ts").asDouble()).isEqualTo(us(call.startNs()));
      assertThat(e.get("tid").asInt()).as("to the stream's track").isEqualTo(ChromeTrace.STREAM_TID
          + r.program().ops().get(op).stream());
      assertThat(e.get("ts").asDouble()).isEqualTo(us(r.ops().get(op).startNs()));
      assertThat(e.get("bp").asText()).as("bound to the operation's slice").isEqualTo("e");
    }

    List<JsonNode> transfers = where(ev, e -> e.get("ph").asText().equals("X")
        && e.get("tid").asInt() >= ChromeTrace.TRANSFER_TID);
    assertThat(transfers).extracting(e -> e.get("args").get("op").asInt()).containsExactly(0, 1, 2);
    assertThat(transfers).extracting(e -> e.get("tid").asInt() - ChromeTrace.TRANSFER_TID).containsExactly(0, 1, 0);
    assertThat(transfers.get(0).get("args").get("route").asText()).contains("cpu0->sw0").contains("sw0->gpu0");
    assertThat(where(ev, e -> e.get("ph").asText().equals("M") && e.path("args").path("name").asText()
        .startsWith("transfers"))).extracting(e -> e.get("args").get("name").asText())
        .containsExactly("transfers", "transfers #2");
    assertThat(r.flowStartNs(0)).as("the bytes move after the copy's L+o of 10 us")
        .isEqualTo(r.ops().get(0).startNs() + 10_000);
    assertThat(transfers.get(0).get("ts").asDouble()).isEqualTo(us(r.flowStartNs(0)));
  }

  /**
   * An NVTX range opened halfway through the host time between two calls lands halfway through
   * the projected host time between them: on a CPU twice as fast, 1 us into the 2 us gap.
   *
   * <pre>
   *   measured   [call 0] ... 4 us host ... [call 1, 1 us] ...
   *               range "step"     from 2 us    to the end of call 1
   *   projected  [call 0] .. 2 us .. [call 1]
   *               range "step"  from 1 us   to the end of call 1
   * </pre>
   */
  @Test
  void nvtxRangesAreSlicesPlacedAmongTheirThreadsProjectedCalls() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.hostCall(0, 0);
    f.host(0, 4_000);
    f.hostCall(0, 1_000);
    ReplayProgram p = f.build().withAnnotations(List.of(new CallLog.Range(0, "step", "", 2_000, 5_000)), List.of());
    Node fast = NodeLoader.parse("fast.yaml", """
        name: fast
        description: a CPU twice as fast as the trace's
        cpu_speed_factor: 2
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "20 GB/s"}]
        gpus:
          - {id: gpu0, model: test, memory: "16 GiB", memory_bandwidth: "100 GB/s", copy_engines: 1}
        links:
          - {between: [cpu0, gpu0], type: smp, bandwidth: "10 GB/s"}
        """, "fast.yaml");
    ReplayResult r = TimelineFixturesTest.replay(p, fast);
    ReplayResult.CallTimes second = r.calls().get(0).get(1);
    assertThat(second.startNs()).as("the host time halved").isEqualTo(2_000);

    List<ProjectedRanges.Slice> ranges = ProjectedRanges.projected(r);
    assertThat(ranges).containsExactly(new ProjectedRanges.Slice(0, "step", "", 1_000, second.endNs()));
    List<JsonNode> ev = events(List.of(r));
    List<JsonNode> slices = where(ev, e -> e.get("ph").asText().equals("X")
        && e.get("tid").asInt() == ChromeTrace.RANGES_TID);
    assertThat(slices).hasSize(1);
    assertThat(slices.get(0).get("name").asText()).isEqualTo("step");
    assertThat(slices.get(0).get("ts").asDouble()).isEqualTo(1.0);
    assertThat(slices.get(0).get("dur").asDouble()).isEqualTo(us(second.endNs() - 1_000));
    assertThat(where(ev, e -> e.get("ph").asText().equals("M") && e.get("tid") != null
        && e.get("tid").asInt() == ChromeTrace.RANGES_TID && e.get("name").asText().equals("thread_name")))
        .extracting(e -> e.get("args").get("name").asText()).containsExactly("NVTX ranges, host thread 100 (pid 1)");
  }

  @Test
  void timesAreMicrosecondsToTheNanosecondAndUtilizationsFourDecimals() {
    assertThat(ChromeTrace.micros(0)).isEqualTo("0");
    assertThat(ChromeTrace.micros(1)).isEqualTo("0.001");
    assertThat(ChromeTrace.micros(1_234_500)).isEqualTo("1234.5");
    assertThat(ChromeTrace.micros(7_000)).isEqualTo("7");
    assertThat(ChromeTrace.micros(-2_010)).isEqualTo("-2.01");
    assertThat(ChromeTrace.fraction(0)).isEqualTo("0");
    assertThat(ChromeTrace.fraction(1)).isEqualTo("1");
    assertThat(ChromeTrace.fraction(0.5)).isEqualTo("0.5");
    assertThat(ChromeTrace.fraction(1.0 / 3)).isEqualTo("0.3333");
  }

  static Node dgx1() throws Exception {
    return NodeLoader.bundled("dgx1").orElseThrow();
  }
}
