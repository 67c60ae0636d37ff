package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.graph.DvdgBuilder;
import io.apptrace.imports.Importer;
import io.apptrace.node.NodeLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The copy figures of docs/ACCURACY.md ("Imported real traces") that are good today, as floors:
 * the modeled device-to-device copies and memsets of the Kineto traces, replayed on the node of
 * the machine each came from, may not get worse by more than a point of WMAPE, and device-to-device
 * copies stay below the Peak-BW baseline. Skipped, saying so, where ../shared/realdata is absent.
 */
class ImportedCopiesAccuracyTest {
  @TempDir Path tmp;

  @ParameterizedTest
  @CsvSource({
    "a100-sxm4-80gb_train_rank0.json.gz, dgx-a100-80gb, d2d, 13.8",
    "a100-sxm4-80gb_train_rank0.json.gz, dgx-a100-80gb, memsets, 39.2",
    "a100_nccl_data.json.gz, a100-pg509, d2d, 14.6",
    "v100-sxm2-32gb_df_index_resolver.json.gz, dgx1-v100, d2d, 10.2",
    "v100-sxm2-32gb_ns_resolution_rank0.json.gz, dgx1-v100, d2d, 27.8",
    "v100-sxm2-32gb_ns_resolution_rank0.json.gz, dgx1-v100, memsets, 22.4",
  })
  void modeledCopiesKeepTheirFigures(String file, String node, String kind, double wmape) throws Exception {
    Path in = ImportedSelfCheckTest.realdata().resolve("hta-kineto-traces").resolve(file);
    assumeThat(Files.isRegularFile(in)).as("the real traces are in ../shared/realdata (absent here)").isTrue();
    Path out = tmp.resolve("t.apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    ReplayProgram p = ProgramBuilder.of(DvdgBuilder.build(out, true));
    ReplayResult r = Replayer.replay(p, NodeLoader.bundled(node).orElseThrow(),
        Replayer.Options.defaults().withSamples(false));
    ReplayReport.ClassError e = ReplayReport.errors(r).get(kind);
    assertThat(e.model().wmapePct()).as(file + " " + kind).isLessThanOrEqualTo(wmape + 1.0);
    if (kind.equals("d2d")) {
      assertThat(e.model().wmapePct()).as(file + " against Peak BW").isLessThan(e.peakBw().wmapePct());
    }
  }
}
