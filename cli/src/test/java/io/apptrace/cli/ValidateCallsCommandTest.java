package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code apptrace validate calls}: the host-overhead model against the CUDA calls of a trace taken
 * on a real GPU (docs/ACCURACY.md, "CUDA calls").
 */
class ValidateCallsCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;

  /**
   * The Nsight Systems SAXPY of Perlmutter: its launches are compared with the node GPU's launch
   * overhead, its cudaMalloc calls with the model's device_alloc, the waiting calls left out.
   */
  @Test
  void aRealTracesCallsAreComparedByClass() throws Exception {
    Path data = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("pipit-nsys-perlmutter/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz");
    assumeThat(Files.isDirectory(data.getParent().getParent())).as("the realdata folder (absent here)").isTrue();
    Path trace = tmp.resolve("saxpy.apptrace");
    assertThat(Cli.run("import", data.toString(), "-o", trace.toString()).exit()).isZero();
    Cli r = Cli.run("validate", "calls", "--node", "perlmutter-a100", "--data", trace.toString(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode t = JSON.readTree(r.out()).path("traces").get(0);
    JsonNode launch = t.path("by_class").path("launch");
    assertThat(launch.path("calls").asInt()).isPositive();
    // every launch priced at the A100's launch overhead of the node file
    assertThat(launch.path("model_ns").asDouble() / launch.path("calls").asInt()).isCloseTo(5_000, within(1.0));
    assertThat(t.path("by_class").path("device_alloc").path("model_ns").asDouble()
        / t.path("by_class").path("device_alloc").path("calls").asInt()).isCloseTo(7_600, within(1.0));
    assertThat(t.path("left_out_waiting").asInt()).isPositive();
    assertThat(t.path("left_out_first_calls").asInt()).isEqualTo(1);
    // the model knows the classes; the class-blind baseline does worse
    assertThat(t.path("overall").path("wmape_pct").asDouble())
        .isLessThan(t.path("overall").path("baseline_wmape_pct").asDouble());
  }

  /** A trace from the simulated device has the capturing machine's call durations: refused, saying why. */
  @Test
  void aSimulatedTraceIsRefused() {
    Path trace = tmp.resolve("vecadd.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("vecadd")).exit()).isZero();
    Cli r = Cli.run("validate", "calls", "--node", "dgx1", "--data", trace.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("vecadd.apptrace: taken on the simulated device, whose call durations are the"
        + " capturing machine's");
  }

  @Test
  void aMissingTraceIsNamed() {
    Cli r = Cli.run("validate", "calls", "--node", "dgx1", "--data", tmp.resolve("none.apptrace").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("none.apptrace: no such file");
  }
}
