package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.cost.TimingConversion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The figures of the rule that converts fixed costs between GPU time and a blocking call's duration
 * (docs/COST-MODEL.md, "Timing kinds") are what {@code apptrace validate timing} measures on every
 * trace in the data folder that holds both: AHEAD's five Titan profiles (nvprof), the Kineto traces
 * of HolisticTraceAnalysis and the Nsight Systems traces of pipit (docs/REFERENCES.md). Skipped,
 * saying so, where the folder is absent.
 */
class ValidateTimingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;

  private List<String> importAll() throws IOException {
    Path data = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"));
    assumeThat(Files.isDirectory(data.resolve("ahead-titan"))).as("the real traces are in ../shared/realdata (absent"
        + " here)").isTrue();
    List<Path> sources = new ArrayList<>();
    for (String dir : List.of("ahead-titan", "hta-kineto-traces", "pipit-nsys-perlmutter")) {
      try (Stream<Path> s = Files.list(data.resolve(dir))) {
        s.filter(p -> p.toString().matches(".*\\.(nvvp|json|sqlite)\\.gz")).sorted().forEach(sources::add);
      }
    }
    assertThat(sources).hasSize(18);
    List<String> traces = new ArrayList<>();
    for (Path in : sources) {
      Path out = tmp.resolve(in.getFileName() + ".apptrace");
      Cli r = Cli.run("import", in.toString(), "-o", out.toString());
      assertThat(r.exit()).as(r.err()).isZero();
      traces.add(out.toString());
    }
    return traces;
  }

  @Test
  void theRulesFiguresAreTheMediansOfTheTracesWithBothTimes() throws Exception {
    List<String> args = new ArrayList<>(List.of("validate", "timing", "--json", "--data"));
    args.addAll(importAll());
    Cli r = Cli.run(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode m = JSON.readTree(r.out()).path("medians");
    assertThat(m.path("gpu_h2d_ns").asDouble()).isCloseTo(TimingConversion.SMALL_COPY_GPU_H2D * 1e9, within(0.5));
    assertThat(m.path("gpu_d2h_ns").asDouble()).isCloseTo(TimingConversion.SMALL_COPY_GPU_D2H * 1e9, within(0.5));
    assertThat(m.path("call_minus_gpu_ns").asDouble()).isCloseTo(TimingConversion.BLOCKING_CALL_HOST * 1e9,
        within(0.5));
    // Titan's 1-byte pageable copies: 928 ns on the GPU, 12.4 us in the call (nvprof)
    JsonNode titan = null;
    for (JsonNode t : JSON.readTree(r.out()).path("traces")) {
      if (t.path("trace").asText().startsWith("titan-profiler-bandwidth-output-htod-pageable")) {
        titan = t;
      }
    }
    assertThat(titan).isNotNull();
    assertThat(titan.path("copies").asInt()).isEqualTo(1300);
    assertThat(titan.path("median_gpu_ns").asDouble()).isEqualTo(928.0);
  }

  @Test
  void tracesWithoutSmallPageableCopiesAreRefused() throws Exception {
    Path in = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("ahead-titan/titan-profiler-bandwidth-output-htod-pinned.nvvp.gz");
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    String pinned = tmp.resolve("pinned.apptrace").toString();
    assertThat(Cli.run("import", in.toString(), "-o", pinned).exit()).isZero();
    Cli r = Cli.run("validate", "timing", "--data", pinned);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).startsWith("apptrace validate timing: no trace has small copies (4096 B or less)")
        .doesNotContain("\n");
  }
}
