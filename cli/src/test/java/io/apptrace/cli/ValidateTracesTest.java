package io.apptrace.cli;

import static io.apptrace.cli.CopyProfile.DEVICE;
import static io.apptrace.cli.CopyProfile.DTOD;
import static io.apptrace.cli.CopyProfile.DTOH;
import static io.apptrace.cli.CopyProfile.HTOD;
import static io.apptrace.cli.CopyProfile.HTOH;
import static io.apptrace.cli.CopyProfile.PAGEABLE;
import static io.apptrace.cli.CopyProfile.PINNED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code apptrace validate transfers} and {@code apptrace replay} on traces, with and without a
 * reference node's L+o (Abdelhafez et al. 2019, sec. IV-C; docs/COST-MODEL.md), as a user sees them.
 */
class ValidateTracesTest {
  @TempDir Path tmp;

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Every kind of copy once or more, on GPU 0, one after the other:
   *
   * <pre>
   *  copy                          bytes     GPU time   kind
   *  HtoD pinned -> device         1 B       1,000 ns   pinned_h2d
   *  HtoD pinned -> device         1 B       1,200 ns   pinned_h2d
   *  HtoD pinned -> device         1 B         900 ns   pinned_h2d    median of the three: 1,000 ns
   *  HtoD pinned -> device         1 MiB   180,000 ns   pinned_h2d
   *  DtoH device -> pinned         1 B       1,400 ns   pinned_d2h
   *  DtoH device -> pinned         1 B       1,500 ns   pinned_d2h    median of the two: 1,450 ns
   *  DtoH device -> pageable       4 KiB     3,000 ns   pageable_d2h  smallest size: 4 KiB
   *  DtoD device -> device         1 B       1,760 ns   d2d
   *  HtoD pageable -> device       8 KiB     4,000 ns   pageable_h2d  smallest size: 8 KiB
   *  HtoH pageable -> pageable     64 B        500 ns   (host to host: not a kind the model prices)
   * </pre>
   */
  private Path allKinds() throws Exception {
    return new CopyProfile()
        .copy(HTOD, PINNED, DEVICE, 1, 1_000)
        .copy(HTOD, PINNED, DEVICE, 1, 1_200)
        .copy(HTOD, PINNED, DEVICE, 1, 900)
        .copy(HTOD, PINNED, DEVICE, 1 << 20, 180_000)
        .copy(DTOH, DEVICE, PINNED, 1, 1_400)
        .copy(DTOH, DEVICE, PINNED, 1, 1_500)
        .copy(DTOH, DEVICE, PAGEABLE, 4096, 3_000)
        .copy(DTOD, DEVICE, DEVICE, 1, 1_760)
        .copy(HTOD, PAGEABLE, DEVICE, 8192, 4_000)
        .copy(HTOH, PAGEABLE, PAGEABLE, 64, 500)
        .import_(tmp, "all-kinds");
  }

  /** Pinned copies only: 1 B each way, 2,000 ns host to device and 2,600 ns back. */
  private Path pinnedOnly() throws Exception {
    return new CopyProfile()
        .copy(HTOD, PINNED, DEVICE, 1, 2_000)
        .copy(DTOH, DEVICE, PINNED, 1, 2_600)
        .import_(tmp, "pinned-only");
  }

  private static JsonNode json(Cli r) throws Exception {
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  @Test
  void everyCopyWithAGpuTimeIsAMeasurement() throws Exception {
    Path trace = allKinds();
    JsonNode j = json(Cli.run("validate", "transfers", "--node", "titan", "--data", trace.toString(), "--json"));
    assertThat(j.path("rows").asInt()).isEqualTo(9);
    JsonNode k = j.path("by_kind_and_route");
    assertThat(k.path("pinned_h2d").path("local").path("rows").asInt()).isEqualTo(4);
    assertThat(k.path("pinned_d2h").path("local").path("rows").asInt()).isEqualTo(2);
    assertThat(k.path("pageable_h2d").path("local").path("rows").asInt()).isEqualTo(1);
    assertThat(k.path("pageable_d2h").path("local").path("rows").asInt()).isEqualTo(1);
    assertThat(k.path("d2d").path("local").path("rows").asInt()).isEqualTo(1);
    assertThat(j.path("skipped").path("host-to-host copies (not a transfer kind the model prices)").asInt())
        .isEqualTo(1);
    assertThat(j.path("machine").asText()).isEqualTo("all-kinds.apptrace");
    assertThat(j.path("data_files").get(0).asText()).isEqualTo(trace.toString());
    // titan's d2d L+o is 1.76 us (its node file); a 1-byte copy adds 1 B / 250 GB/s: the copy's
    // measured 1,760 ns GPU time is what the model projects, to 0.01%
    assertThat(j.path("wmape_pct").path("d2d").asDouble()).isZero();
    // the default setting is model's and replay's: measured
    assertThat(j.path("setting").asText()).isEqualTo("measured");
    assertThat(j.path("in_sample").asBoolean()).isFalse();
    assertThat(j.path("reference").isNull()).isTrue();
    assertThat(j.path("reference_fallback").size()).isZero();
    assertThat(j.path("settings").has("datasheet")).isTrue();

    Cli text = Cli.run("validate", "transfers", "--node", "titan", "--data", trace.toString());
    assertThat(text.out()).startsWith("titan against " + trace + " (trace), measured setting: 9 measurements")
        .contains("left out: 1 host-to-host copies");
  }

  @Test
  void aCsvAndATraceTogether() throws Exception {
    Path csv = tmp.resolve("m.csv");
    Files.writeString(csv, "machine,benchmark,src_mem,dst_mem,peer,numa,src_numa,dst_numa,gpu,src_gpu,dst_gpu,"
        + "bytes,log2_bytes,reps,iterations_per_rep,median_ns,mean_ns,stddev_ns,min_ns,max_ns,median_GBps,source_file\n"
        + "titan,NUMA_Memcpy_PinnedToGPU,pinned,device,,0,,,0,,,1048576,20,5,1,200000,0,0,0,0,0,x\n");
    JsonNode j = json(Cli.run("validate", "transfers", "--node", "titan", "--data", csv.toString(),
        allKinds().toString(), "--json"));
    assertThat(j.path("rows").asInt()).isEqualTo(10);
    assertThat(j.path("by_kind_and_route").path("pinned_h2d").path("local").path("rows").asInt()).isEqualTo(5);
    assertThat(j.path("machine").asText()).isEqualTo("titan, all-kinds.apptrace");
  }

  /**
   * L+o per kind is the median GPU time of its smallest copies (Abdelhafez et al. 2019, sec. IV-C: the 1-byte
   * time).
   */
  @Test
  void theReferenceLatencyIsTheMedianOfTheSmallestCopies() throws Exception {
    Path trace = allKinds();
    JsonNode j = json(Cli.run("validate", "transfers", "--node", "summit", "--data", trace.toString(),
        "--reference-node", "titan", "--reference-data", trace.toString(), "--json"));
    assertThat(j.path("setting").asText()).isEqualTo("reference");
    JsonNode lat = j.path("reference").path("latency");
    assertThat(j.path("reference").path("node").asText()).isEqualTo("titan");
    assertThat(lat.path("pinned_h2d").path("latency_ns").asDouble()).isCloseTo(1_000, within(1e-6));
    assertThat(lat.path("pinned_h2d").path("copies").asInt()).isEqualTo(3);
    assertThat(lat.path("pinned_d2h").path("latency_ns").asDouble()).isCloseTo(1_450, within(1e-6));
    assertThat(lat.path("pinned_d2h").path("copies").asInt()).isEqualTo(2);
    assertThat(lat.path("pageable_d2h").path("latency_ns").asDouble()).isCloseTo(3_000, within(1e-6));
    assertThat(lat.path("pageable_d2h").path("bytes").asLong()).isEqualTo(4096);
    assertThat(lat.path("pageable_h2d").path("bytes").asLong()).isEqualTo(8192);
    assertThat(lat.path("d2d").path("latency_ns").asDouble()).isCloseTo(1_760, within(1e-6));
    assertThat(j.path("reference_fallback").size()).isZero();
    // summit's d2d with titan's L+o: 1,760 ns + 1 B / 900 GB/s, the measured time to 0.01%
    assertThat(j.path("settings").path("reference").path("wmape_pct").path("d2d").asDouble()).isZero();
    assertThat(j.path("wmape_pct").path("d2d").asDouble()).isZero();
    assertThat(fieldNames(j.path("settings"))).containsExactly("reference", "datasheet");

    Cli text = Cli.run("validate", "transfers", "--node", "summit", "--data", trace.toString(),
        "--reference-node", "titan", "--reference-data", trace.toString());
    assertThat(text.out()).contains("reference setting").contains("settings side by side")
        .contains("L+o from reference node titan")
        .containsPattern("pinned_d2h +1\\.45 us \\(median of 2 copies of 1 B\\)")
        .containsPattern("pageable_d2h +3\\.00 us \\(median of 1 copy of 4 KiB\\)");
    assertThat(text.err()).isEmpty();
  }

  @Test
  void aKindTheReferenceDidNotMeasureKeepsTheTargetsOwnLatencyAndIsNamed() throws Exception {
    Path trace = allKinds();
    Path ref = pinnedOnly();
    Cli r = Cli.run("validate", "transfers", "--node", "titan", "--data", trace.toString(), "--reference-node", "titan",
        "--reference-data", ref.toString(), "--json");
    JsonNode j = json(r);
    assertThat(j.path("reference_fallback")).extracting(JsonNode::asText)
        .containsExactly("pageable_h2d", "pageable_d2h", "d2d");
    assertThat(r.err().lines()).containsExactly(
        "apptrace validate transfers: warning: the reference data of titan has no pageable_h2d copies: pageable_h2d"
            + " keeps titan's own L+o (its node file)",
        "apptrace validate transfers: warning: the reference data of titan has no pageable_d2h copies: pageable_d2h"
            + " keeps titan's own L+o (its node file)",
        "apptrace validate transfers: warning: the reference data of titan has no d2d copies: d2d keeps titan's own"
            + " L+o (its node file)");
    JsonNode ws = j.path("settings");
    for (String kind : List.of("pageable_h2d", "pageable_d2h", "d2d")) {
      assertThat(ws.path("reference").path("wmape_pct").path(kind).asDouble()).as(kind)
          .isEqualTo(ws.path("datasheet").path("wmape_pct").path(kind).asDouble());
    }
    // the reference's pinned L+o (2 us, 2.6 us) are not titan's (0.96 us, 1.376 us)
    assertThat(ws.path("reference").path("wmape_pct").path("pinned_h2d").asDouble())
        .isNotEqualTo(ws.path("datasheet").path("wmape_pct").path("pinned_h2d").asDouble());

    Cli text = Cli.run("validate", "transfers", "--node", "titan", "--data", trace.toString(), "--reference-node",
        "titan", "--reference-data", ref.toString());
    assertThat(text.out()).containsPattern("(?m)^d2d \\* ")
        .contains("  * the reference data of titan has no d2d copies: d2d keeps titan's own L+o (its node file)");
  }

  @Test
  void oneReferenceOptionWithoutTheOtherIsBadUsage() throws Exception {
    Path trace = pinnedOnly();
    Cli noNode = Cli.run("validate", "transfers", "--node", "titan", "--data", trace.toString(), "--reference-data",
        trace.toString());
    assertThat(noNode.exit()).isEqualTo(2);
    assertThat(noNode.err()).isEqualTo("apptrace validate transfers: --reference-data needs --reference-node: name the"
        + " node the reference data was measured on\n");
    Cli noData = Cli.run("validate", "transfers", "--node", "titan", "--data", trace.toString(), "--reference-node",
        "titan");
    assertThat(noData.exit()).isEqualTo(2);
    assertThat(noData.err().lines()).hasSize(1).first().asString().contains("--reference-node titan needs"
        + " --reference-data");
    Cli setting = Cli.run("validate", "transfers", "--node", "titan", "--data", trace.toString(), "--setting",
        "reference");
    assertThat(setting.exit()).isEqualTo(2);
    assertThat(setting.err().lines()).hasSize(1);
    Cli replay = Cli.run("replay", trace.toString(), "--node", "titan", "--reference-node", "titan");
    assertThat(replay.exit()).isEqualTo(2);
    assertThat(replay.err().lines()).hasSize(1).first().asString().startsWith("apptrace replay: --reference-node titan"
        + " needs --reference-data");
    Cli replayNoNode = Cli.run("replay", trace.toString(), "--node", "titan", "--reference-data", trace.toString());
    assertThat(replayNoNode.exit()).isEqualTo(2);
    assertThat(replayNoNode.err().lines()).hasSize(1);
  }

  @Test
  void badReferenceDataIsOneLineAndExitOne() throws Exception {
    Path csv = tmp.resolve("ref.csv");
    Files.writeString(csv, "machine,benchmark,numa,gpu,src_gpu,dst_gpu,bytes,median_ns\n"
        + "dgx-1,NUMA_Memcpy_PinnedToGPU,0,0,,,256,10000\n");
    Cli r = Cli.run("validate", "transfers", "--node", "titan", "--data", pinnedOnly().toString(), "--reference-node",
        "titan", "--reference-data", csv.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().lines()).hasSize(1).first().asString().contains(csv + " holds no rows of reference node titan;"
        + " its machines: dgx-1");
    Cli missing = Cli.run("validate", "transfers", "--node", "titan", "--data", tmp.resolve("no.apptrace").toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).contains("no.apptrace: no such file");
    Path profile = new CopyProfile().copy(HTOD, PINNED, DEVICE, 1, 1_000).write(tmp.resolve("run.nvvp"));
    Cli notImported = Cli.run("validate", "transfers", "--node", "titan", "--data", profile.toString());
    assertThat(notImported.exit()).isEqualTo(1);
    assertThat(notImported.err()).isEqualTo("apptrace validate transfers: " + profile + ": a profile (SQLite), not a"
        + " CSV of copy times nor an apptrace trace; import it first: apptrace import " + profile
        + " -o OUT.apptrace\n");
  }

  /**
   * Abdelhafez et al. 2019, sec. VI-D: the application's copies projected with the reference L+o, beside the
   * two baselines.
   */
  @Test
  void replayWithAReferenceReportsTheCopyErrorsAndTheFallback() throws Exception {
    Path trace = allKinds();
    Path ref = pinnedOnly();
    Cli r = Cli.run("replay", trace.toString(), "--node", "titan", "--reference-node", "titan", "--reference-data",
        ref.toString(), "--json");
    JsonNode n = json(r).path("nodes").get(0);
    assertThat(n.path("node").asText()).isEqualTo("titan");
    assertThat(n.path("node_source").asText()).isEqualTo("titan (with L+o from titan)");
    assertThat(n.path("reference").path("latency").path("pinned_h2d").path("latency_ns").asDouble())
        .isCloseTo(2_000, within(1e-6));
    assertThat(n.path("reference_fallback")).extracting(JsonNode::asText)
        .containsExactly("pageable_h2d", "pageable_d2h", "d2d");
    assertThat(r.err()).contains("warning: the reference data of titan has no d2d copies");
    JsonNode e = n.path("error");
    assertThat(e.path("pinned_h2d").path("operations").asInt()).isEqualTo(4);
    assertThat(e.path("pinned_h2d").path("baselines").path("peak_bw").has("mape_pct")).isTrue();
    assertThat(e.path("pinned_h2d").path("baselines").path("back_of_envelope").has("wmape_pct")).isTrue();
    assertThat(n.has("makespan_ns")).isTrue();
    assertThat(n.has("timeline_error")).isTrue();

    JsonNode plain = json(Cli.run("replay", trace.toString(), "--node", "titan", "--json")).path("nodes").get(0);
    assertThat(plain.path("reference").isNull()).isTrue();
    assertThat(plain.path("reference_fallback").size()).isZero();
    assertThat(plain.path("node_source").asText()).isEqualTo("titan");

    Cli text = Cli.run("replay", trace.toString(), "--node", "titan", "--reference-node", "titan", "--reference-data",
        ref.toString());
    assertThat(text.out()).contains("on titan (with L+o from titan): projected makespan")
        .contains("L+o from reference node titan")
        .contains("* the reference data of titan has no d2d copies")
        .containsPattern("pinned_h2d +4 ops .*\\(Peak BW [0-9.]+% / [0-9.]+%, back-of-envelope [0-9.]+% / [0-9.]+%\\)");
  }

  private static List<String> fieldNames(JsonNode o) {
    return StreamSupport.stream(((Iterable<String>) o::fieldNames).spliterator(), false).toList();
  }
}
