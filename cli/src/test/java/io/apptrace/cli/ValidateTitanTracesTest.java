package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AHEAD's own Titan bandwidth traces (github.com/HazemAbdelhafez/ahead; ../shared/realdata/ahead-titan; nvprof
 * around the CUDA SDK bandwidthTest, 1 B to 256 MiB, 100 copies of each size, plus one
 * initializing host-to-device copy per size in the device-to-host and device-to-device runs):
 * imported, then validated with Titan as its own reference node, as Abdelhafez et al. 2019 validated their model
 * (datasheet plus the measured 1-byte times, sec. IV-C), beside the baselines of sec. VI-D. The
 * figures are docs/ACCURACY.md's. Skipped, saying so, where the folder is absent.
 */
class ValidateTitanTracesTest {
  @TempDir Path tmp;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> RUNS = List.of("htod-pinned", "dtoh-pinned", "htod-pageable", "dtoh-pageable",
      "dtod");

  private List<String> importAll() {
    Path dir = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata")).resolve("ahead-titan");
    List<String> traces = new ArrayList<>();
    for (String run : RUNS) {
      Path in = dir.resolve("titan-profiler-bandwidth-output-" + run + ".nvvp.gz");
      assumeThat(Files.isRegularFile(in)).as("AHEAD's Titan traces are in ../shared/realdata (absent here)").isTrue();
      Path out = tmp.resolve(run + ".apptrace");
      Cli r = Cli.run("import", in.toString(), "-o", out.toString());
      assertThat(r.exit()).as(r.err()).isZero();
      traces.add(out.toString());
    }
    return traces;
  }

  private static JsonNode json(Cli r) throws Exception {
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  @Test
  void titanAsItsOwnReferenceBeatsPeakBwOnPinnedCopies() throws Exception {
    List<String> traces = importAll();
    List<String> args = new ArrayList<>(List.of("validate", "transfers", "--node", "titan", "--data"));
    args.addAll(traces);
    args.addAll(List.of("--reference-node", "titan", "--reference-data"));
    args.addAll(traces);
    args.add("--json");
    JsonNode j = json(Cli.run(args.toArray(String[]::new)));

    // every copy with a GPU time is a data point: 2,900 per run, and the 29 initializing
    // host-to-device copies of each device-to-host and device-to-device run (pinned in dtoh-pinned)
    Map<String, Integer> rows = Map.of("pinned_h2d", 2929, "pinned_d2h", 2900, "pageable_h2d", 2958,
        "pageable_d2h", 2900, "d2d", 2900);
    rows.forEach((kind, n) -> assertThat(j.path("by_kind_and_route").path(kind).path("local").path("rows").asInt())
        .as(kind).isEqualTo(n));
    assertThat(j.path("rows").asInt()).isEqualTo(14587);

    // the 1-byte medians are the L+o of titan's node file: titan's own setting is AHEAD's
    Map<String, Double> titanFile = Map.of("pinned_h2d", 960.0, "pinned_d2h", 1376.0, "pageable_h2d", 928.0,
        "pageable_d2h", 1312.0, "d2d", 1760.0);
    titanFile.forEach((kind, ns) -> {
      JsonNode l = j.path("reference").path("latency").path(kind);
      assertThat(l.path("latency_ns").asDouble()).as(kind).isCloseTo(ns, within(1e-6));
      assertThat(l.path("bytes").asLong()).as(kind).isEqualTo(1);
    });
    assertThat(j.path("reference_fallback").size()).isZero();
    assertThat(j.path("settings").path("reference").path("wmape_pct"))
        .isEqualTo(j.path("settings").path("datasheet").path("wmape_pct"));

    // pinned copies: the model (PCIe packet overheads, Abdelhafez et al. 2019, eq. 4-5 and 10) well below Peak BW's
    // error
    for (String kind : List.of("pinned_h2d", "pinned_d2h")) {
      double model = j.path("wmape_pct").path(kind).asDouble();
      double peak = j.path("baselines").path("peak_bw").path(kind).asDouble();
      assertThat(model).as(kind).isLessThan(peak / 2);
      assertThat(model).as(kind).isLessThan(j.path("baselines").path("back_of_envelope").path(kind).asDouble());
    }
  }

  /** The replay of one run prices its copies as validate does (they run one at a time). */
  @Test
  void replayWithTheReferenceGivesTheValidationsFigures() throws Exception {
    List<String> traces = importAll();
    String pinned = traces.get(0);
    List<String> ref = new ArrayList<>(List.of("--reference-node", "titan", "--reference-data"));
    ref.addAll(traces);
    List<String> v = new ArrayList<>(List.of("validate", "transfers", "--node", "titan", "--data", pinned));
    v.addAll(ref);
    v.add("--json");
    JsonNode val = json(Cli.run(v.toArray(String[]::new)));
    List<String> r = new ArrayList<>(List.of("replay", pinned, "--node", "titan"));
    r.addAll(ref);
    r.add("--json");
    JsonNode e = json(Cli.run(r.toArray(String[]::new))).path("nodes").get(0).path("error").path("pinned_h2d");
    assertThat(e.path("operations").asInt()).isEqualTo(2900);
    assertThat(e.path("wmape_pct").asDouble()).isCloseTo(val.path("wmape_pct").path("pinned_h2d").asDouble(),
        within(0.011));
    assertThat(e.path("mape_pct").asDouble()).isCloseTo(val.path("mape_pct").path("pinned_h2d").asDouble(),
        within(0.011));
    assertThat(e.path("baselines").path("peak_bw").path("wmape_pct").asDouble())
        .isCloseTo(val.path("baselines").path("peak_bw").path("pinned_h2d").asDouble(), within(0.011));
  }
}
