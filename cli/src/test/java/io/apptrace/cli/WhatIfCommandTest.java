package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --what-if} on a captured program (tests/cuda/whatif_loop.cu: 8 iterations of two
 * half copies of one unchanged pageable input, a kernel, a copy back), as a user runs it
 * (docs/REPLAY.md, "Application what-ifs"). The timelines of each rewrite are checked on drawn
 * programs in the replay module's WhatIfsTest; here, what the command counts and prints.
 */
class WhatIfCommandTest {
  @TempDir static Path tmp;
  private static Path trace;

  @BeforeAll
  static void capture() {
    trace = tmp.resolve("loop.apptrace");
    Cli r = Cli.run("run", "--sim", "-q", "--output=" + trace, Cli.cudaTest("whatif_loop"));
    assertThat(r.exit()).as(r.err()).isZero();
  }

  private static JsonNode whatIf(String... whatIfs) throws Exception {
    String[] args = new String[6 + 2 * whatIfs.length];
    args[0] = "replay";
    args[1] = trace.toString();
    args[2] = "--node";
    args[3] = "dgx1";
    args[4] = "--skip-setup";
    args[5] = "--json";
    for (int i = 0; i < whatIfs.length; i++) {
      args[6 + 2 * i] = "--what-if";
      args[7 + 2 * i] = whatIfs[i];
    }
    Cli r = Cli.run(args);
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode w = new ObjectMapper().readTree(r.out()).get("what_if");
    assertThat(w).as("what_if in %s", r.out()).isNotNull();
    return w;
  }

  @Test
  void keepResidentDropsTheRepeatedInputCopies() throws Exception {
    JsonNode w = whatIf("keep-resident");
    // iterations 2 to 8 copy the same two halves of the unchanged input again: 14 copies
    assertThat(w.get("applied").get(0).asText()).startsWith("keep-resident: 14 copies not made (7 MiB)");
    JsonNode n = w.get("nodes").get(0);
    assertThat(n.get("changed_ops")).hasSize(14);
    assertThat(n.get("makespan_after_ns").asLong()).isLessThan(n.get("makespan_before_ns").asLong());
  }

  @Test
  void mergeCopiesJoinsTheTwoHalvesOfEachIteration() throws Exception {
    JsonNode w = whatIf("merge-copies");
    assertThat(w.get("applied").get(0).asText()).startsWith("merge-copies: 16 copies merged into 8");
    assertThat(w.get("nodes").get(0).get("changed_ops")).hasSize(16);
  }

  @Test
  void pinPageablePinsBothBuffersOnceAndChargesIt() throws Exception {
    JsonNode w = whatIf("pin-pageable", "async-copies");
    assertThat(w.get("applied").get(0).asText()).startsWith("pin-pageable: 24 copies made from or to pinned memory;"
        + " 2 buffer(s) pinned (2 MiB), charged ");
    assertThat(w.get("applied").get(1).asText()).isEqualTo("async-copies: 16 synchronous copies to a GPU made"
        + " asynchronous on a copy stream");
  }

  @Test
  void streamsSaysWhyItChangesNothingOnOneChain() throws Exception {
    JsonNode w = whatIf("streams=4");
    assertThat(w.get("applied").get(0).asText()).contains("kept as they were: stream 0 (one chain of work");
    assertThat(w.get("nodes").get(0).get("makespan_after_ns").asLong())
        .isEqualTo(w.get("nodes").get(0).get("makespan_before_ns").asLong());
  }

  @Test
  void theTextReportShowsEachNodeBeforeAndAfter() {
    Cli r = Cli.run("replay", trace.toString(), "--node", "dgx1", "--node", "dgx-a100", "--what-if", "keep-resident");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("what-if (keep-resident):").containsPattern("\\n  dgx1 +[0-9.]+ [mu]s -> [0-9.]+ [mu]s"
        + " \\(-[0-9.]+%\\), 14 operation\\(s\\) changed: #4 cudaMemcpy, #5 cudaMemcpy").contains("  dgx-a100 ");
  }

  @Test
  void aBadWhatIfIsBadUsageAndAMissingAllocationABadInput() {
    Cli bad = Cli.run("replay", trace.toString(), "--node", "dgx1", "--what-if", "faster");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err().strip()).isEqualTo("apptrace replay: --what-if 'faster' is not a what-if (known:"
        + " pin-pageable, pin=ALLOCATION, async-copies, streams=N, keep-resident, merge-copies, prefetch-managed,"
        + " graph-launch)");
    Cli missing = Cli.run("replay", trace.toString(), "--node", "dgx1", "--what-if", "pin=999");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err().strip()).startsWith("apptrace replay: --what-if pin=999: allocation 999 is no pageable"
        + " buffer a copy uses").doesNotContain("\n");
  }
}
