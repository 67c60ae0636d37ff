package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No silent no-ops (docs/REPLAY.md, "What-if"): an option that changes nothing says so, with why. */
class NoOpWarningsTest {
  @TempDir static Path tmp;
  static Path pipeline;

  @BeforeAll
  static void capture() {
    pipeline = tmp.resolve("pipeline.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "--output=" + pipeline, Cli.cudaTest("pipeline")).exit()).isZero();
  }

  private static Cli replay(String... more) {
    String[] args = new String[more.length + 4];
    args[0] = "replay";
    args[1] = pipeline.toString();
    args[2] = "--node";
    args[3] = "dgx1";
    System.arraycopy(more, 0, args, 4, more.length);
    Cli r = Cli.run(args);
    assertThat(r.exit()).as(r.err()).isZero();
    return r;
  }

  @Test
  void keepingMeasuredTimesOfATraceWithoutAnyIsSaid() {
    assertThat(replay("--keep-measured").err()).contains("apptrace replay: warning: --keep-measured changes nothing:"
        + " the trace has no measured GPU times (a capture on the simulated device measures none)");
    assertThat(replay("--kernel-policy", "keep").err()).contains("--kernel-policy keep changes nothing");
  }

  @Test
  void aMapOfADeviceTheTraceDoesNotUseIsSaid() {
    assertThat(replay("--map", "gpu3=gpu1").err()).contains("--map gpu3=gpu1 changes nothing: the trace uses no"
        + " device 3 (it uses gpu0)");
  }

  @Test
  void aSetOnAGpuNoOperationUsesIsSaid() {
    assertThat(replay("--set", "gpus.gpu5.copy_engines=1").err()).contains("--set gpus.gpu5.copy_engines=1 changes"
        + " nothing on dgx1: no operation of the trace runs on gpu5 (it uses gpu0)");
  }

  /**
   * Tried as a new user would: on dgx1, whose measured curves price the copies, both PCIe links of
   * gpu0's route set to generation 4 gave the baseline to the nanosecond. The curves are now
   * rescaled (docs/REPLAY.md, "What-if"): the projection changes, the report says which curve was
   * rescaled, and nothing warns.
   */
  @Test
  void aLinkSetUnderMeasuredCurvesRescalesThemAndIsNoNoOp() throws Exception {
    Cli base = replay("--json");
    Cli r = replay("--set", "links.cpu0-plx0.generation=4", "--set", "links.plx0-gpu0.generation=4", "--json");
    assertThat(r.err()).doesNotContain("changed nothing");
    JsonNode with = new ObjectMapper().readTree(r.out()).path("nodes").get(0);
    JsonNode without = new ObjectMapper().readTree(base.out()).path("nodes").get(0);
    assertThat(with.path("makespan_ns").asDouble()).isLessThan(without.path("makespan_ns").asDouble());
    assertThat(with.path("notes").toString()).contains("measured curve rescaled");
  }

  /** A --set on a link no copy of the trace takes is still a no-op, and is said to be one. */
  @Test
  void aLinkSetOffEveryRouteIsSaidAndTheJsonCarriesIt() throws Exception {
    Cli r = replay("--set", "links.plx3-gpu7.generation=4", "--json");
    assertThat(r.err()).contains("--set links.plx3-gpu7.generation=4 changed nothing in the projection on dgx1: no"
        + " operation of the trace uses what it changed, or the change leaves the bandwidth of every route the"
        + " trace's copies take as it was");
    assertThat(new ObjectMapper().readTree(r.out()).path("warnings").toString()).contains("changed nothing");
  }

  /** Assumptions about managed memory on a trace without it, and --diff with one node, change nothing. */
  @Test
  void managedHostReadsWithoutManagedMemoryAndDiffWithOneNodeAreSaid() {
    assertThat(replay("--managed-host-reads", "none").err()).contains("--managed-host-reads none changes nothing: the"
        + " trace has no managed memory");
    assertThat(replay("--diff").err()).contains("--diff changes nothing: it compares the nodes with the first, and"
        + " one --node was given");
    assertThat(replay("--diff", "--node", "ac922").err()).doesNotContain("--diff changes nothing");
  }

  @Test
  void anOptionThatChangesSomethingIsNotWarnedAbout() {
    assertThat(replay("--set", "gpus.gpu0.memory_bandwidth=100 GB/s").err()).doesNotContain("warning");
  }
}
