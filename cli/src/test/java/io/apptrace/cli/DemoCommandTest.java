package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code apptrace demo}: builds the bundled example with nvcc, captures and reports it. */
class DemoCommandTest {
  @TempDir Path tmp;

  @Test
  void helpSaysTheDemoAlsoReplays() {
    Cli r = Cli.run("demo", "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("replays it on two bundled nodes");
    assertThat(Cli.run("--help").out()).containsPattern("demo +Builds, captures, graphs and replays");
  }

  @Test
  void demoBuildsCapturesAndSaysWhereTheOutputWent() {
    Cli r = Cli.run("demo", "--dir", tmp.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(Files.isExecutable(tmp.resolve("pipeline"))).isTrue();
    assertThat(Files.isRegularFile(tmp.resolve("pipeline.apptrace"))).isTrue();
    assertThat(r.out()).contains("kernel launches:").contains("scale").contains("h2d")
        .contains("the trace is " + tmp.resolve("pipeline.apptrace"))
        .contains("its graph is " + tmp.resolve("pipeline.graphml"))
        .containsPattern("\\d+ values in \\d+ allocations").contains("races: 0");
    assertThat(Files.isRegularFile(tmp.resolve("pipeline.graphml"))).isTrue();
    // the replay on two nodes, with the canonical pipeline's stream-count advice
    assertThat(r.out()).contains("replaying it on two bundled nodes, ac922 and dgx1").contains("(speedup over ac922)")
        .contains("advice on ac922: copy/compute pipeline on gpu0 over 4 streams");
    assertThat(Files.isRegularFile(tmp.resolve("pipeline-replay.json"))).isTrue();
  }
}
