package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Abdelhafez et al. 2019's projection between two measured machines: the DGX-1 with the S822LC's L+o and the
 * other way round, on Pearson's measurements of both (github.com/cwpearson/ms-thesis; in the data folder
 * apptrace.realdata.dir, under pearson-ms-thesis), against each target's own datasheet setting:
 * docs/ACCURACY.md, "One node
 * projected from the other's L+o". Skipped, saying so, where the data is absent.
 */
class ValidateCrossNodeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void borrowingTheOtherMachinesLatencyLeavesWmapeAsItIs() throws Exception {
    Path data = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("pearson-ms-thesis/memcpy_summary.csv");
    assumeThat(Files.isRegularFile(data)).as("the real measurements are in ../shared/realdata (absent here)").isTrue();
    for (String[] pair : new String[][] {{"dgx1", "s822lc"}, {"s822lc", "dgx1"}}) {
      Cli r = Cli.run("validate", "transfers", "--node", pair[0], "--data", data.toString(), "--reference-node",
          pair[1], "--reference-data", data.toString(), "--json");
      assertThat(r.exit()).as(r.err()).isZero();
      JsonNode j = JSON.readTree(r.out());
      assertThat(j.path("reference_fallback").size()).as(pair[0]).isZero();
      assertThat(j.path("reference").path("latency").path("pinned_h2d").path("bytes").asLong()).isEqualTo(256);
      JsonNode ref = j.path("settings").path("reference").path("wmape_pct");
      JsonNode own = j.path("settings").path("datasheet").path("wmape_pct");
      for (Iterator<Map.Entry<String, JsonNode>> it = ref.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        assertThat(e.getValue().asDouble()).as(pair[0] + " " + e.getKey())
            .isCloseTo(own.path(e.getKey()).asDouble(), within(0.11));
      }
      assertThat(fields(j.path("settings"))).containsExactly("reference", "datasheet", "measured");
    }
  }

  private static List<String> fields(JsonNode o) {
    List<String> out = new ArrayList<>();
    o.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
