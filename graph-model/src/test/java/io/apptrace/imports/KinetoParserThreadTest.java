package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Kineto tokenizer parses on a thread of its own, batches of events ahead of the reading
 * thread: events still arrive in file order, an error of the parser arrives after every event
 * before it, and a reading thread that fails stops the parser instead of leaving it behind.
 */
class KinetoParserThreadTest {
  /** A JSON array of {@code n} runtime calls, correlation ids 0 to n-1, each on its own line. */
  private static String array(int n) {
    StringBuilder b = new StringBuilder("[\n");
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",\n").append("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\",")
          .append(" \"pid\": 1, \"tid\": 1, \"ts\": ").append(1000 + i).append(", \"dur\": 1, \"args\": {\"correlation\": ")
          .append(i).append("}}");
    }
    return b.append("\n]").toString();
  }

  private static JsonParser parser(String json) throws IOException {
    JsonParser p = KinetoTokenizer.JSON.createParser(json.getBytes(StandardCharsets.UTF_8));
    p.nextToken(); // the array's start
    return p;
  }

  /** Pulls every event of the array into {@code sink}, as the Kineto reader does. */
  private static void readAll(String json, Consumer sink) throws IOException {
    try (KinetoTokenizer.Events events = new KinetoTokenizer(KinetoMapper::imported).events(parser(json))) {
      for (KinetoEvent e = events.next(); e != null; e = events.next()) {
        sink.accept(e);
      }
    }
  }

  private interface Consumer {
    void accept(KinetoEvent e) throws IOException;
  }

  private static boolean parserThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals("apptrace-kineto-parser") && t.isAlive());
  }

  @Test
  void eventsArriveInFileOrderAcrossManyBatches() throws Exception {
    List<Long> seen = new ArrayList<>();
    readAll(array(5_000), e -> seen.add(e.correlation));
    assertThat(seen).hasSize(5_000);
    for (int i = 0; i < seen.size(); i++) {
      assertThat(seen.get(i)).isEqualTo(i);
    }
    assertThat(parserThreadAlive()).isFalse();
  }

  @Test
  void aFileCutShortDeliversEveryCompleteEventThenTheError() throws Exception {
    String whole = array(3_000);
    String cut = whole.substring(0, whole.indexOf("\"correlation\": 2500}"));
    List<Long> seen = new ArrayList<>();
    assertThatThrownBy(() -> readAll(cut, e -> seen.add(e.correlation)))
        .isInstanceOfAny(EOFException.class, com.fasterxml.jackson.core.JsonProcessingException.class);
    assertThat(seen).hasSize(2_500);
    assertThat(seen.get(2_499)).isEqualTo(2_499);
    assertThat(parserThreadAlive()).isFalse();
  }

  @Test
  void aReaderThatFailsStopsTheParser() throws Exception {
    List<Long> seen = new ArrayList<>();
    assertThatThrownBy(() -> readAll(array(50_000), e -> {
      if (seen.size() == 1_000) {
        throw new IOException("no space left on device");
      }
      seen.add(e.correlation);
    })).hasMessage("no space left on device");
    assertThat(seen).hasSize(1_000);
    assertThat(parserThreadAlive()).isFalse(); // joined when the events were closed
  }
}
