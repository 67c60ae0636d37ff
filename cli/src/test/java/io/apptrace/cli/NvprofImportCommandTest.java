package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code apptrace import} of an nvprof profile, then stats (against a golden file), graph and
 * replay on what it wrote: one of AHEAD's Titan profiles (github.com/HazemAbdelhafez/ahead; in the
 * data folder apptrace.realdata.dir, under ahead-titan), skipped, saying so, where the folder is absent.
 */
class NvprofImportCommandTest {
  @TempDir Path tmp;

  static final String HTOD_PINNED = "ahead-titan/titan-profiler-bandwidth-output-htod-pinned.nvvp.gz";

  private static Path realdata() {
    return Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"));
  }

  @Test
  void titanProfileImportsAndStatsGraphAndReplayWork() throws Exception {
    Path in = realdata().resolve(HTOD_PINNED);
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path out = tmp.resolve("titan-htod-pinned.apptrace");
    Cli r = Cli.run("import", in.toString(), "-o", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("(nvprof-sqlite) into " + out)
        .contains("GPU 0: Tesla K20X, 14 SMs, 5.6 GiB, 2 copy engines, compute capability 3.5, 732 MHz,"
            + " 249.6 GB/s memory bandwidth, ECC on")
        .containsPattern("API calls +3352 +3352")
        .containsPattern("memcpys +2900 +2900")
        .containsPattern("synchronizations +29 +29")
        .doesNotContain("warnings:")
        .contains("next: apptrace replay " + out + " --node titan --keep-measured");

    Cli stats = Cli.run("stats", out.toString());
    assertThat(stats.exit()).as(stats.err()).isZero();
    String shown = stats.out().replace(in.toAbsolutePath().toString(), "REALDATA/" + HTOD_PINNED)
        .replace(out.toString(), out.getFileName().toString());
    Path golden = Path.of(System.getProperty("apptrace.root", "..")).resolve(
        "cli/src/test/resources/imports/titan-htod-pinned.stats.txt");
    if (Boolean.getBoolean("apptrace.golden.update")) {
      Files.createDirectories(golden.getParent());
      Files.writeString(golden, shown);
    }
    assertThat(shown.lines().map(String::strip)).as("%s (update with -Dapptrace.golden.update=true if intended)",
        golden).containsExactlyElementsOf(Files.readString(golden).lines().map(String::strip).toList());

    Cli graph = Cli.run("graph", out.toString(), "--summary");
    assertThat(graph.exit()).as(graph.err()).isZero();
    assertThat(graph.out()).contains("5,800 values in 5,800 allocations (5800 implicit), 2,900 operations (2,900"
        + " copies, 0 memsets, 0 kernels)").contains("imported from nvprof-sqlite").contains("races: 0");

    Cli replay = Cli.run("replay", out.toString(), "--node", "titan");
    assertThat(replay.exit()).as(replay.err()).isZero();
    assertThat(replay.out()).contains("2,900 operations, 3,352 API calls from 1 host thread, measured makespan"
        + " 12.156 s").contains("on titan: projected makespan").contains("pinned_h2d             2900 ops");

    Cli self = Cli.run("replay", out.toString(), "--node", "titan", "--keep-measured");
    assertThat(self.exit()).as(self.err()).isZero();
    assertThat(self.out()).contains("timeline against the measured one: operations start 0 s from their measured"
        + " start on average (0.000% of the measured makespan; worst 0 s), makespan +0.00%");
  }

  @Test
  void anNvvpThatIsNotSqliteIsOneLineAndExitOne() throws Exception {
    Path in = tmp.resolve("session.nvvp");
    Files.write(in, new byte[] {'P', 'K', 3, 4});
    Cli r = Cli.run("import", in.toString(), "-o", tmp.resolve("o.apptrace").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("apptrace import: " + in + ": not an nvprof SQLite profile (perhaps nvprof's older"
        + " binary format): expected the SQLite file nvprof writes with --export-profile (-o), found a file starting"
        + " \"PK\\x03\\x04\"; record one with: nvprof --export-profile OUT.nvvp APP [ARGS]\n");
    assertThat(tmp.resolve("o.apptrace")).doesNotExist();
  }

  @Test
  void theDefaultOutputDropsNvvpAndGz() {
    assertThat(ImportCommand.defaultName("run.nvvp.gz")).isEqualTo("run.apptrace");
    assertThat(ImportCommand.defaultName("run.nvvp")).isEqualTo("run.apptrace");
  }
}
