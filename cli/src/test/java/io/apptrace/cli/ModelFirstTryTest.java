package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code apptrace model} as a new user first tries it: sizes, routes, and what it refuses. */
class ModelFirstTryTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aPlainNumberOfBytesIsBytes() {
    Cli r = Cli.run("model", "--node", "dgx1", "--bytes", "4096");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("4 KiB (4096 bytes)");
    assertThat(Cli.run("model", "--node", "dgx1", "--bytes", "262144000").out()).contains("(262144000 bytes)");
    assertThat(Cli.run("model", "--node", "dgx1", "--bytes", "1B").out()).contains("1 B (1 bytes)");
  }

  @Test
  void aDeviceToHostRouteRunsFromTheGpu() {
    Cli r = Cli.run("model", "--node", "dgx1", "--copy", "d2h", "--bytes", "1MiB");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().findFirst().orElseThrow()).contains("gpu0 -> ").endsWith("-> cpu0");
    Cli h = Cli.run("model", "--node", "dgx1", "--copy", "h2d", "--bytes", "1MiB");
    assertThat(h.out().lines().findFirst().orElseThrow()).contains("cpu0 -> ").endsWith("-> gpu0");
  }

  /** Options that make no sense are bad usage, each with a line that says why. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "--node dgx1 --bytes 0 | at least 1 byte",
    "--node dgx1 --kernel --bytes 1MiB --flops -1 | --flops",
    "--node dgx1 --kernel --bytes 1MiB --flops NaN | --flops",
    "--node dgx1 --copy p2p --from 0 --to 0 --bytes 1MiB | --copy d2d",
    "--node dgx1 --csv --bytes 1MiB | --csv",
    "--node dgx1 --sweep --bytes 1MiB | --bytes",
    "--node dgx1 --bytes 99999999999999999999 | too large",
  })
  void nonsenseIsRefused(String args, String says) {
    Cli r = Cli.run(("model " + args).split(" "));
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
    assertThat(r.err()).contains(says).doesNotContain("Exception").doesNotContain("\tat ");
  }

  /** Whole nanoseconds are written as integers; no float noise in the JSON. */
  @Test
  void jsonFiguresAreRounded() throws Exception {
    for (String node : new String[] {"dgx1", "ac922", "titan", "dgx-h100"}) {
      for (String size : new String[] {"4096", "1MiB", "1GiB", "7"}) {
        Cli r = Cli.run("model", "--node", node, "--bytes", size, "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode j = JSON.readTree(r.out());
        for (String key : new String[] {"time_ns", "latency_ns", "bandwidth_bytes_per_s"}) {
          assertThat(j.get(key).isIntegralNumber()).as("%s on %s, %s: %s", key, node, size, j.get(key)).isTrue();
        }
        assertThat(j.path("baselines").get("peak_bw_ns").isIntegralNumber()).isTrue();
        assertThat(r.out()).doesNotContainPattern("\\d\\.\\d+E\\d").doesNotContainPattern("\\.\\d{9,}");
      }
    }
  }
}
