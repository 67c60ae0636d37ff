package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CUDA graphs end to end (docs/CAPTURE.md, "CUDA graphs"): tests/cuda/cuda_graphs.cu, in the
 * manner of the CUDA sample simpleCudaGraphs, builds one graph by stream capture and one with the
 * graph API, clones the second, and launches each executable graph five times. Captured on the
 * simulated device (CaptureGraphsTest checks it behaves as untraced), every launch becomes its
 * nodes' work.
 */
class CudaGraphsCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static Path trace;
  static Cli run;

  @BeforeAll
  static void capture() {
    trace = tmp.resolve("graphs.apptrace");
    run = Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("cuda_graphs"));
  }

  @Test
  void theCaptureSucceeds() {
    assertThat(run.exit()).as(run.err()).isZero();
  }

  /** Three executable graphs of 8 nodes, 15 launches; the 7 copies, memsets and kernels captured are not work. */
  @Test
  void statsCountGraphsNodesAndLaunchesExactly() throws Exception {
    JsonNode g = JSON.readTree(Cli.run("stats", trace.toString(), "--json").out()).path("totals").path("cuda_graphs");
    assertThat(g.path("executable_graphs").asLong()).isEqualTo(3);
    assertThat(g.path("launches").asLong()).isEqualTo(15);
    // 4 copies, a memset, 2 kernels, 2 event records, 2 waits and a host function, all nodes
    assertThat(g.path("captured_calls").asLong()).isEqualTo(12);
    JsonNode nodes = g.path("nodes");
    assertThat(nodes.path("kernel").asLong()).isEqualTo(6);
    assertThat(nodes.path("memcpy").asLong()).isEqualTo(12);
    assertThat(nodes.path("memset").asLong()).isEqualTo(3);
    assertThat(nodes.path("host").asLong()).isEqualTo(3);
    assertThat(Cli.run("stats", trace.toString()).out()).contains("CUDA graphs: 3 executable graphs, 24 nodes"
        + " (3 host, 6 kernel, 12 memcpy, 3 memset), 15 launches");
  }

  /** Each launch runs its 7 copies, memsets and kernels: 105 operations, and no captured call among them. */
  @Test
  void everyLaunchIsItsNodesOperationsInTheGraph() throws Exception {
    Cli r = Cli.run("graph", trace.toString(), "--summary", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode s = JSON.readTree(r.out());
    assertThat(s.path("cuda_graphs").path("launches").asLong()).isEqualTo(15);
    assertThat(s.path("cuda_graphs").path("node_operations").asLong()).isEqualTo(105);
    assertThat(s.path("operations").path("kernel").asLong()).isEqualTo(30);
    assertThat(s.path("operations").path("copy").asLong()).isEqualTo(60);
    assertThat(s.path("operations").path("memset").asLong()).isEqualTo(15);
  }

  @Test
  void theReplaySaysWhatItRanOfTheGraphs() throws Exception {
    Cli r = Cli.run("replay", trace.toString(), "--node", "dgx-a100");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("CUDA graphs: 15 launch(es) ran 105 node operation(s), each after its predecessors"
        + " in its graph");
  }

  /** tests/cuda/graph_updates.cu launches 100 small kernels one by one, then the same captured once. */
  @Test
  void theGraphLaunchWhatIfLaunchesTheLoopOfKernelsAsOneGraph() throws Exception {
    Path updates = tmp.resolve("updates.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", updates.toString(), Cli.cudaTest("graph_updates")).exit()).isZero();
    Cli r = Cli.run("replay", updates.toString(), "--node", "dgx-a100", "--what-if", "graph-launch");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("graph-launch: 1 repeated run(s) of stream work (100 operations) each launched as one"
        + " CUDA graph").containsPattern("\\n  dgx-a100 +[0-9.]+ [mu]s -> [0-9.]+ [mu]s \\(-[0-9.]+%\\), 100"
            + " operation\\(s\\) changed");
    JsonNode g = JSON.readTree(Cli.run("stats", updates.toString(), "--json").out()).path("totals").path("cuda_graphs");
    assertThat(g.path("executable_graphs").asLong()).isEqualTo(3);
    assertThat(g.path("launches").asLong()).isEqualTo(15);
    assertThat(g.path("nodes").path("child graph").asLong()).isEqualTo(2);
    assertThat(g.path("nodes").path("kernel").asLong()).isEqualTo(104);
  }

  /**
   * tests/cuda/graph_memory.cu: a captured cudaMallocAsync/cudaFreeAsync are the graph's alloc and
   * free nodes; each launch allocates the memory anew, so its memset, kernel and copy reach it.
   */
  @Test
  void graphMemoryIsAllocatedByEachLaunch() throws Exception {
    Path memory = tmp.resolve("memory.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", memory.toString(), Cli.cudaTest("graph_memory")).exit()).isZero();
    JsonNode s = JSON.readTree(Cli.run("graph", memory.toString(), "--summary", "--json").out());
    assertThat(s.path("cuda_graphs").path("node_operations").asLong()).isEqualTo(9);
    assertThat(s.path("warnings").size()).as(s.path("warnings").toString()).isZero();
    assertThat(s.path("kernels_without_access").size()).isZero();
    assertThat(s.path("bytes_moved").toString()).contains("stream_ordered->pinned");
    JsonNode g = JSON.readTree(Cli.run("stats", memory.toString(), "--json").out()).path("totals").path("cuda_graphs");
    assertThat(g.path("nodes").path("mem alloc").asLong()).isEqualTo(1);
    assertThat(g.path("nodes").path("mem free").asLong()).isEqualTo(1);
    assertThat(g.path("captured_calls").asLong()).isEqualTo(5);
  }

  /**
   * tests/cuda/graph_race.cu: a graph whose memset and copy of one buffer have no edge between them
   * races (launched twice: two races, certain: both extents are known); the same nodes with an edge
   * do not, and neither do launches one after another on a stream.
   */
  @Test
  void parallelBranchesOfAGraphRaceAndAnEdgeOrdersThem() throws Exception {
    Path race = tmp.resolve("race.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", race.toString(), Cli.cudaTest("graph_race")).exit()).isZero();
    JsonNode races = JSON.readTree(Cli.run("graph", race.toString(), "--summary", "--json").out()).path("races");
    assertThat(races.path("certain").asInt()).isEqualTo(2);
    assertThat(races.path("possible").asInt()).isZero();
    for (JsonNode r : races.path("list")) {
      assertThat(r.path("writer").path("name").asText()).isEqualTo("graph memset node");
      assertThat(r.path("reader").path("name").asText()).isEqualTo("graph memcpy node");
    }
  }

  @Test
  void anUnknownWhatIfIsBadUsage() {
    Cli r = Cli.run("replay", trace.toString(), "--node", "dgx-a100", "--what-if", "often");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--what-if 'often' is not a what-if (known: pin-pageable, pin=ALLOCATION,"
        + " async-copies, streams=N, keep-resident, merge-copies, prefetch-managed, graph-launch)");
  }
}
