package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code validate transfers} on CSVs of copy times in the plain layout, gzipped or not (docs/CLI.md). */
class ValidateCsvTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;

  private Path gzip(Path plain) throws Exception {
    Path gz = tmp.resolve(plain.getFileName() + ".gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(plain));
    }
    return gz;
  }

  private static JsonNode validate(String node, Path data) throws Exception {
    Cli r = Cli.run("validate", "transfers", "--node", node, "--data", data.toString(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  /**
   * The plain layout: bytes, kind, time_ns, columns in any order, kinds by name or by direction and
   * memory. A row priced at exactly the model's own time is 0% off; one at twice it, 50%.
   */
  @Test
  void thePlainLayoutGzippedOrNot() throws Exception {
    JsonNode model = JSON.readTree(Cli.run("model", "--node", "titan", "--bytes", "1MiB", "--json").out());
    long ns = model.path("time_ns").asLong();
    Path csv = tmp.resolve("copies.csv");
    Files.writeString(csv, "kind,memory,bytes,time_ns\n"
        + "pinned_h2d,," + (1 << 20) + "," + ns + "\n"
        + "h2d,pinned," + (1 << 20) + "," + ns + "\n"
        + "h2d,," + (1 << 20) + "," + ns + "\n", StandardCharsets.UTF_8);
    JsonNode plain = validate("titan", csv);
    assertThat(plain.path("rows").asInt()).isEqualTo(3);
    assertThat(plain.path("wmape_pct").path("pinned_h2d").asDouble()).isLessThan(0.01);
    assertThat(validate("titan", gzip(csv)).path("wmape_pct")).isEqualTo(plain.path("wmape_pct"));

    Files.writeString(csv, "bytes,kind,time_ns\n" + (1 << 20) + ",pinned_h2d," + 2 * ns + "\n");
    assertThat(validate("titan", csv).path("wmape_pct").path("pinned_h2d").asDouble()).isCloseTo(50.0,
        org.assertj.core.data.Offset.offset(0.01));

    // a timed column says how each time was taken: an event-timed row is compared with the call's view
    // (docs/COST-MODEL.md, "Timing kinds"), which is the GPU time plus the blocking call's host-side 9.5 us
    long call = model.path("call_time_ns").asLong();
    assertThat(call - ns).isEqualTo(9500);
    Files.writeString(csv, "bytes,kind,time_ns,timed\n" + (1 << 20) + ",pinned_h2d," + call + ",event\n"
        + (1 << 20) + ",pinned_h2d," + ns + ",gpu\n");
    assertThat(validate("titan", csv).path("wmape_pct").path("pinned_h2d").asDouble()).isLessThan(0.01);
    Files.writeString(csv, "bytes,kind,time_ns,timed\n1024,pinned_h2d,5000,sundial\n");
    assertThat(Cli.run("validate", "transfers", "--node", "titan", "--data", csv.toString()).err())
        .contains(csv + ":2: timed 'sundial' is no way of timing: give gpu");
  }

  @Test
  void aMissingColumnIsNamed() throws Exception {
    Path csv = tmp.resolve("bad.csv");
    Files.writeString(csv, "bytes,kind,duration\n1024,pinned_h2d,5000\n");
    Cli r = Cli.run("validate", "transfers", "--node", "titan", "--data", csv.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).startsWith("apptrace validate transfers: " + csv + ":1: not a CSV of copy times: no"
        + " column time_ns for the plain layout").doesNotContain("\n");
    Path gz = gzip(csv);
    assertThat(Cli.run("validate", "transfers", "--node", "titan", "--data", gz.toString()).err())
        .contains(gz + ":1: not a CSV of copy times: no column time_ns");
    Files.writeString(csv, "bytes,kind,time_ns\n1024,sideways,5000\n");
    assertThat(Cli.run("validate", "transfers", "--node", "titan", "--data", csv.toString()).err())
        .contains(csv + ":2: kind 'sideways' with memory 'pinned' is no transfer kind");
  }

  /** Pearson's layout gzipped reads as it does plain (skipped without the real data). */
  @Test
  void pearsonsLayoutGzipped() throws Exception {
    Path data = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("pearson-ms-thesis/memcpy_summary.csv");
    org.assertj.core.api.Assumptions.assumeThat(Files.isRegularFile(data))
        .as("the real measurements are in ../shared/realdata (absent here)").isTrue();
    Path copy = Files.copy(data, tmp.resolve("memcpy_summary.csv"));
    assertThat(validate("dgx1", gzip(copy)).path("wmape_pct")).isEqualTo(validate("dgx1", copy).path("wmape_pct"));
  }
}
