package io.apptrace.validate;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.graph.DvdgBuilder;
import io.apptrace.imports.Importer;
import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import io.apptrace.replay.ProgramBuilder;
import io.apptrace.replay.ReplayProgram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace's copies as measurements for {@code validate transfers}: each copy with a GPU time is one
 * row, of the transfer kind, GPUs, size and time the replay gives the same copy, so a validation
 * on a trace scores the model on the copies a replay of it prices.
 */
class TraceCopiesTest {
  @TempDir Path tmp;

  /** A PyTorch profile of four copies, one of each kind, on GPU 1; the host-to-host one has no kind. */
  private Path trace() throws Exception {
    StringBuilder events = new StringBuilder();
    String[] names = {"Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pinned -> Device)",
        "Memcpy DtoH (Device -> Pinned)", "Memcpy DtoD (Device -> Device)", "Memcpy HtoH (Pinned -> Pageable)"};
    for (int i = 0; i < names.length; i++) {
      int corr = 10 + i;
      long ts = 1000 + 100L * i;
      events.append("""
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 7, "tid": 7, "ts": %d, "dur": 5,
             "args": {"correlation": %d}},
            {"ph": "X", "cat": "gpu_memcpy", "name": "%s", "pid": 1, "tid": 20, "ts": %d, "dur": %d,
             "args": {"device": 1, "stream": 20, "correlation": %d, "bytes": %d}},
          """.formatted(ts, corr, names[i], ts + 10, 20 + i, corr, 4096L << i));
    }
    String json = "{\"traceEvents\": [" + events.substring(0, events.lastIndexOf(",")) + "]}";
    Path in = Files.writeString(tmp.resolve("copies.json"), json);
    Path out = tmp.resolve("copies.apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    return out;
  }

  @Test
  void aTracesCopiesAreTheCopiesItsReplayPrices() throws Exception {
    Path trace = trace();
    MemcpyData.Data data = TraceCopies.read(trace);
    ReplayProgram program = ProgramBuilder.of(DvdgBuilder.build(trace, true));
    List<MemcpyData.Measurement> priced = program.ops().stream()
        .filter(op -> op.kind() == ReplayProgram.Kind.COPY && op.transfer() != null)
        .map(op -> new MemcpyData.Measurement("copies.apptrace", TraceCopies.BENCHMARK, op.transfer(), op.numa(),
            op.device(), op.peerDevice() >= 0 ? op.peerDevice() : op.device(), op.bytes(),
            op.measuredDurationNs() * 1e-9, Timing.GPU))
        .toList();
    assertThat(data.rows()).isEqualTo(priced);
    assertThat(data.rows()).extracting(MemcpyData.Measurement::kind).containsExactly(TransferKind.PAGEABLE_H2D,
        TransferKind.PINNED_H2D, TransferKind.PINNED_D2H, TransferKind.D2D);
    assertThat(data.rows()).allSatisfy(r -> assertThat(r.srcGpu()).isEqualTo(1));
    assertThat(data.skipped()).containsEntry("host-to-host copies (not a transfer kind the model prices)", 1);
  }
}
