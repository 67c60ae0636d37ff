package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.graph.CallLog;
import io.apptrace.node.NodeLoader;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A timeline of a long run stays a file one can keep and move: a program of one million
 * operations (the replay benchmark's, docs/BENCHMARKS.md: pinned copies and kernels over eight
 * streams and four threads, with an NVTX range around every 32 iterations) replayed on dgx1 and
 * written as {@code --timeline x.json.gz} writes it (gzip at zlib's fastest level, as the cli's
 * ExportFile), calls, flow arrows, ranges, transfer tracks and link counters included, is under
 * 200 MB. A test of size, not of time; the plain JSON's size is printed (docs/REPLAY.md says it).
 */
class ChromeTraceSizeTest {
  static final long LIMIT_BYTES = 200L << 20;

  /** Counts what is written to it, and passes it on to {@code next} when there is one. */
  private static final class Counter extends OutputStream {
    final OutputStream next;
    long bytes;

    Counter(OutputStream next) {
      this.next = next;
    }

    @Override
    public void write(int b) throws java.io.IOException {
      bytes++;
      if (next != null) {
        next.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      bytes += len;
      if (next != null) {
        next.write(b, off, len);
      }
    }
  }

  /** gzip at zlib's fastest level. */
  private static final class FastGzip extends GZIPOutputStream {
    FastGzip(OutputStream out) throws java.io.IOException {
      super(out, 1 << 16);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }

  @Test
  void aOneMillionOperationTimelineGzippedStaysUnder200MB() throws Exception {
    ReplayProgram p = ReplayBench.program(1_000_002);
    List<CallLog.Range> ranges = new ArrayList<>();
    for (int t = 0; t < p.threads().size(); t++) {
      List<ReplayProgram.Call> calls = p.threads().get(t).calls();
      for (int c = 0; c + 96 <= calls.size(); c += 96) {
        ranges.add(new CallLog.Range(t, "iteration", "", calls.get(c).entryNs(),
            calls.get(c + 95).entryNs() + calls.get(c + 95).durationNs()));
      }
    }
    p = p.withAnnotations(ranges, List.of());
    ReplayResult r = Replayer.replay(p, NodeLoader.bundled("dgx1").orElseThrow(), Replayer.Options.defaults());
    Counter gz = new Counter(null);
    Counter plain;
    try (FastGzip z = new FastGzip(gz)) {
      plain = new Counter(z);
      ChromeTrace.write(List.of(r), plain);
    }
    System.out.printf("one-million-operation timeline: %,d bytes of JSON, %,d gzipped%n", plain.bytes, gz.bytes);
    assertThat(p.ops()).hasSize(1_000_002);
    assertThat(gz.bytes).as("the .json.gz").isLessThan(LIMIT_BYTES);
  }
}
