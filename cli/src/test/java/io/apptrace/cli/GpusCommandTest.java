package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code apptrace gpus}: the catalogue as a table, as JSON with stable keys, and one model in full. */
class GpusCommandTest {
  @Test
  void listsEveryCataloguedGpu() {
    Cli r = Cli.run("gpus");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("Tesla T4", "NVIDIA H100 80GB HBM3", "NVIDIA A100-PG509-200")
        .containsPattern("Tesla V100-PCIE-32GB +volta +7\\.0 +80 +14\\.00 TFLOP/s +900\\.00 GB/s");
  }

  @Test
  void jsonHasTheDocumentedKeysOnEveryEntry() throws Exception {
    Cli r = Cli.run("gpus", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode a = new ObjectMapper().readTree(r.out());
    assertThat(a.size()).isGreaterThan(40);
    for (JsonNode g : a) {
      List<String> keys = new ArrayList<>();
      g.fieldNames().forEachRemaining(keys::add);
      assertThat(keys).containsExactly("name", "aliases", "architecture", "compute_capability", "sms",
          "boost_clock_hz", "memory_bytes", "memory_bandwidth_bytes_per_s", "l2_cache_bytes", "peak_flops", "per_sm",
          "tdp_watts", "sources");
    }
    JsonNode t4 = a.findParents("name").stream().filter(n -> n.path("name").asText().equals("Tesla T4")).findFirst()
        .orElseThrow();
    assertThat(t4.path("memory_bandwidth_bytes_per_s").isIntegralNumber()).isTrue();
    assertThat(t4.path("memory_bandwidth_bytes_per_s").asLong()).isEqualTo(320_000_000_000L);
    assertThat(t4.path("peak_flops").path("fp32").asLong()).isEqualTo(8_100_000_000_000L);
    assertThat(t4.path("peak_flops").path("tensor_tf32").isNull()).isTrue();
    assertThat(t4.path("tdp_watts").asInt()).isEqualTo(70);
  }

  @Test
  void showPrintsOneModelWithItsSourcesAndAnUnknownNameItsNearest() {
    Cli r = Cli.run("gpus", "--show", "nvidia t4");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("Tesla T4 (also: ").contains("board power (TDP)   70 W", "sources:");
    Cli u = Cli.run("gpus", "--show", "Tesla V10");
    assertThat(u.exit()).isEqualTo(1);
    assertThat(u.err()).startsWith("apptrace gpus: no GPU named 'Tesla V10' in the GPU catalogue (nearest: ");
    assertThat(u.err().strip().lines().count()).isEqualTo(1);
  }
}
