package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden timelines: the {@code replay --ops-csv} of fixed traces on two nodes, every operation's
 * projected start, end, engine and how it was priced, compared line by line with the files under
 * cli/src/test/resources/golden/timelines. Any change to what the replay projects shows up here as
 * a difference to review. Run with {@code -Dapptrace.golden.update=true} to rewrite them from the
 * current output, then read the difference before committing it.
 *
 * <p>The fixtures of the repository always run; the real traces run where the realdata folder is
 * (docs/ACCURACY.md), and a real trace missing from a realdata folder that is there is a failure,
 * not a skip.
 */
class GoldenTimelinesTest {
  private static final Path FIXTURES = Path.of("../graph-model/src/test/resources/io/apptrace/trace"
      + "/FuzzTraceTestInputs/trace");
  private static final Path GOLDEN = Path.of("src/test/resources/golden/timelines");
  private static final Path REALDATA = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"));

  @TempDir Path tmp;

  /** A trace: a fixture of the repository, or a real trace to import from the realdata folder. */
  record Case(String name, Path fixture, String realdata) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> traces() {
    return Stream.of(
        new Case("synthetic-capture", FIXTURES.resolve("synthetic-capture.apptrace"), null),
        new Case("two-threads", FIXTURES.resolve("two-threads.apptrace"), null),
        new Case("kineto-import", FIXTURES.resolve("kineto-import.apptrace"), null),
        new Case("kineto-a100-event-sync", null, "hta-kineto-traces/a100_cuda_event_sync.json.gz"),
        new Case("kineto-a100-event-sync-multi-stream", null,
            "hta-kineto-traces/a100_cuda_event_sync_multi_stream.json.gz"),
        new Case("kineto-a100-simple-add", null, "hta-kineto-traces/a100_simple_add_trace.json.gz"),
        new Case("nsys-saxpy-perlmutter", null, "pipit-nsys-perlmutter/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz"));
  }

  @ParameterizedTest
  @MethodSource("traces")
  void theTimelineIsTheGoldenOne(Case c) throws Exception {
    Path trace = c.fixture();
    if (c.realdata() != null) {
      assumeThat(Files.isDirectory(REALDATA)).as("the realdata folder (absent here)").isTrue();
      Path data = REALDATA.resolve(c.realdata());
      assertThat(data).as("realdata is here, so its trace must be").isRegularFile();
      trace = tmp.resolve(c.name() + ".apptrace");
      Cli imp = Cli.run("import", data.toString(), "-o", trace.toString());
      assertThat(imp.exit()).as(imp.err()).isZero();
    }
    Path csv = tmp.resolve(c.name() + ".csv");
    Cli r = Cli.run("replay", trace.toString(), "--node", "dgx1", "--node", "dgx-a100", "--ops-csv", csv.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> actual = Files.readAllLines(csv);
    Path golden = GOLDEN.resolve(c.name() + ".csv");
    if (Boolean.getBoolean("apptrace.golden.update")) {
      Files.createDirectories(GOLDEN);
      Files.write(golden, actual);
    }
    assertThat(golden).as("no golden timeline yet: run with -Dapptrace.golden.update=true").isRegularFile();
    assertThat(actual).as("%s differs from %s (update with -Dapptrace.golden.update=true if the change is intended)",
        c.name(), golden).containsExactlyElementsOf(Files.readAllLines(golden));
  }
}
