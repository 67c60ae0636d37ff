package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** --keep-measured reproduces a measured timeline; the same inputs give the same bytes. */
class SelfCheckTest {
  /** Two threads, four streams, events between them, a pageable copy and a synchronization. */
  static ReplayProgram program() {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    List<Integer> streams = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      streams.add(f.nonBlocking());
    }
    int e = f.event();
    for (int i = 0; i < 4; i++) {
      int t = i % 2;
      int s = streams.get(i);
      f.copy(t, s, TransferKind.PINNED_H2D, 4L << 20);
      f.host(t, 3_000);
      f.kernel(t, s, "work", 200_000 + 10_000 * i);
      f.copy(t, s, TransferKind.PINNED_D2H, 4L << 20);
      if (i == 1) {
        f.record(t, s, e);
      }
      if (i == 3) {
        f.waitEvent(t, s, e);
        f.kernel(t, s, "after", 50_000);
      }
    }
    f.syncCopy(0, legacy, TransferKind.PAGEABLE_H2D, 8L << 20, 0);
    f.syncDevice(0);
    f.syncDevice(1);
    return f.build();
  }

  /** The same program, with the times a replay gave as its measured GPU times. */
  static ReplayProgram withMeasured(ReplayProgram p, ReplayResult r) {
    List<ReplayProgram.Op> ops = new ArrayList<>();
    for (ReplayProgram.Op op : p.ops()) {
      ReplayResult.OpTimes t = r.ops().get(op.id());
      ops.add(new ReplayProgram.Op(op.id(), op.kind(), op.name(), op.stream(), op.device(), op.peerDevice(),
          op.transfer(), op.bytes(), op.numa(), Math.round(t.startNs()), Math.round(t.endNs()), op.touchedBytes(),
          op.mappedReadBytes(), op.mappedWriteBytes(), op.blocks(), op.synchronous()));
    }
    return new ReplayProgram(ops, p.streams(), p.threads(), p.events());
  }

  @Test
  void keepMeasuredReproducesTheMeasuredTimeline() throws Exception {
    Node node = NodeLoader.bundled("dgx1").orElseThrow();
    ReplayProgram p = program();
    ReplayResult first = Replayer.replay(p, node, Replayer.Options.defaults());
    ReplayProgram measured = withMeasured(p, first);
    ReplayResult again = Replayer.replay(measured, node, Replayer.Options.defaults().withKeepMeasured(true));
    // every operation starts and ends when it was measured to, to the nanosecond it was rounded to
    for (ReplayResult.OpTimes t : again.ops()) {
      ReplayProgram.Op op = measured.ops().get(t.op());
      assertThat(t.startNs()).as("start of %d %s", t.op(), op.name()).isCloseTo(op.measuredStartNs(), offset(2.0));
      assertThat(t.endNs()).as("end of %d %s", t.op(), op.name()).isCloseTo(op.measuredEndNs(), offset(2.0));
    }
    assertThat(again.makespanNs()).isCloseTo(first.makespanNs(), offset(2.0));
    // the report's error against the measured times is nil
    Map<String, ReplayReport.ClassError> errors = ReplayReport.errors(again);
    assertThat(errors).containsKeys("kernels", "pinned_h2d", "overall");
    assertThat(errors.get("overall").model().wmapePct()).isLessThan(0.01);
    // a node with other links does not reproduce it, and the error says so
    ReplayResult elsewhere = Replayer.replay(measured, NodeLoader.bundled("ac922").orElseThrow(),
        Replayer.Options.defaults());
    assertThat(ReplayReport.errors(elsewhere).get("pinned_h2d").model().wmapePct()).isGreaterThan(10);
  }

  private static String outputs(ReplayProgram p, Node node) throws Exception {
    ReplayResult r = Replayer.replay(p, node, Replayer.Options.defaults());
    StringWriter csv = new StringWriter();
    OpsCsv.write(List.of(r), csv);
    ByteArrayOutputStream timeline = new ByteArrayOutputStream();
    ChromeTrace.write(List.of(r), timeline);
    String json = new ObjectMapper().writeValueAsString(ReplayJson.of(List.of(r), "x.apptrace"));
    return csv + "\n" + timeline.toString(java.nio.charset.StandardCharsets.UTF_8) + "\n" + json;
  }

  @Test
  void theSameInputsGiveByteIdenticalOutputs() throws Exception {
    Node node = NodeLoader.bundled("dgx1").orElseThrow();
    String a = outputs(program(), node);
    String b = outputs(program(), node);
    assertThat(b).isEqualTo(a);
    assertThat(a).contains("op_id,kind,name,thread,stream,bytes,start_ns,end_ns,duration_ns,engine");
  }
}
