package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.apptrace.trace.TraceReader;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kineto fixtures cut at every event boundary and at random offsets inside the event list
 * (docs/RELIABILITY.md, "Hostile and broken input"): the import holds exactly what an import of
 * the events before the cut, properly closed, holds, and says at which byte the file ended.
 */
class KinetoTruncationTest {
  @TempDir Path tmp;

  /** The byte offsets where each element of traceEvents ends, and where the list starts. */
  private static List<Long> eventEnds(byte[] json, long[] listStart) throws Exception {
    List<Long> ends = new ArrayList<>();
    try (JsonParser p = new JsonFactory().createParser(json)) {
      int depth = 0;
      int listDepth = -1;
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (t == JsonToken.START_ARRAY && "traceEvents".equals(p.currentName()) && listDepth < 0) {
          listDepth = depth + 1;
          listStart[0] = p.currentLocation().getByteOffset();
        }
        if (t.isStructStart()) {
          depth++;
        } else if (t.isStructEnd()) {
          depth--;
          if (depth == listDepth && t == JsonToken.END_OBJECT) {
            ends.add(p.currentLocation().getByteOffset());
          } else if (depth == listDepth - 1 && listDepth > 0 && t == JsonToken.END_ARRAY) {
            listDepth = -2; // the list is over
          }
        }
      }
    }
    return ends;
  }

  private Importer.Result importFile(String name, byte[] content) throws Exception {
    Path in = tmp.resolve(name);
    Files.write(in, content);
    return Importer.run(in, tmp.resolve(name + ".apptrace"), Importer.Options.defaults().withTmpDir(tmp));
  }

  @Test
  void eachFixtureCutAtEveryEventBoundaryImportsTheEventsBefore() throws Exception {
    for (String fixture : KinetoFuzzTarget.FIXTURES) {
      byte[] json;
      try (InputStream in = KinetoTruncationTest.class.getResourceAsStream(fixture)) {
        json = in.readAllBytes();
      }
      long[] listStart = {-1};
      List<Long> ends = eventEnds(json, listStart);
      assertThat(ends).as(fixture).hasSizeGreaterThan(5);
      for (long end : ends) {
        cutAt(fixture, json, end, end);
      }
      Random random = new Random(11);
      for (int i = 0; i < 30; i++) {
        long cut = listStart[0] + random.nextInt((int) (ends.get(ends.size() - 1) - listStart[0]));
        long before = listStart[0];
        for (long end : ends) {
          before = end <= cut ? end : before;
        }
        cutAt(fixture, json, cut, before);
      }
    }
  }

  /** The file cut at {@code cut}, against the events up to {@code lastEnd} with the list closed. */
  private void cutAt(String fixture, byte[] json, long cut, long lastEnd) throws Exception {
    String at = fixture + " cut at " + cut;
    byte[] cutFile = Arrays.copyOf(json, (int) cut);
    byte[] closed = concat(Arrays.copyOf(json, (int) lastEnd), "]}".getBytes(StandardCharsets.US_ASCII));
    Importer.Result whole;
    try {
      whole = importFile("closed.json", closed);
    } catch (Importer.ImportException e) {
      // no CUDA event before the cut: the closed file is refused for it, and so is the cut one,
      // saying where it was cut
      assertThat(e).hasMessageContaining("a Chrome trace with no CUDA events");
      assertThatThrownBy(() -> importFile("cut.json", cutFile)).as(at).isInstanceOf(Importer.ImportException.class)
          .hasMessageContaining("the file ends early (at byte " + cut + " of the decompressed JSON), before any"
              + " CUDA event");
      return;
    }
    Importer.Result r = importFile("cut.json", cutFile);
    assertThat(r.truncatedAt()).as(at).isEqualTo("byte " + cut);
    assertThat(r.warnings()).as(at).containsKey("the file ends early (at byte " + cut
        + " of the decompressed JSON): the events before it were imported");
    assertThat(r.source()).as(at).isEqualTo(whole.source());
    assertThat(r.imported()).as(at).isEqualTo(whole.imported());
    assertThat(TraceReader.readAll(tmp.resolve("cut.json.apptrace")).records()).as(at)
        .isEqualTo(TraceReader.readAll(tmp.resolve("closed.json.apptrace")).records());
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
