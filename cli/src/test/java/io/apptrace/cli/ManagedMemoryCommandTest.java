package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Managed memory captured on the simulated device and replayed (docs/REPLAY.md, "Managed
 * memory"): tests/cuda/managed.cu prefetches to the GPU and back; tests/cuda/managed_faults.cu
 * relies on page faults and reads the result on the host after synchronizing.
 */
class ManagedMemoryCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static Path prefetched;
  static Path faults;

  @BeforeAll
  static void capture() {
    prefetched = tmp.resolve("managed.apptrace");
    faults = tmp.resolve("faults.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", prefetched.toString(), Cli.cudaTest("managed")).exit()).isZero();
    assertThat(Cli.run("run", "--sim", "-q", "-o", faults.toString(), Cli.cudaTest("managed_faults")).exit()).isZero();
  }

  /** Tried as a new user would: a program with prefetches projected "copies 0 s" on every node. */
  @Test
  void prefetchesAreCopiesOnTheNodesLinks() throws Exception {
    Path csv = tmp.resolve("ops.csv");
    Cli r = Cli.run("replay", prefetched.toString(), "--node", "ac922", "--node", "dgx1", "--json", "--ops-csv",
        csv.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> prefetches = Files.readAllLines(csv).stream().filter(l -> l.contains("cudaMemPrefetchAsync")).toList();
    assertThat(prefetches).hasSize(4); // two per node
    assertThat(prefetches).allSatisfy(l -> assertThat(l).containsPattern(",prefetch_(h2d|d2h),"));
    for (JsonNode n : JSON.readTree(r.out()).path("nodes")) {
      // the prefetch back to the host is on the critical path: the host synchronizes after it
      assertThat(n.path("breakdown_ns").path("copies_by_kind").path("prefetch_d2h").asDouble())
          .as(n.path("node").asText()).isPositive();
      assertThat(notes(n)).anySatisfy(x -> assertThat(x).contains("2 prefetch(es) priced as copies, 2 MiB moved"));
      assertThat(notes(n)).anySatisfy(x -> assertThat(x).contains("1 cudaMemAdvise call(s) not modelled"));
    }
  }

  /**
   * Without prefetches the first kernel faults the 4 MiB in, and after the synchronization the
   * host reads them back: on ac922 (Pearson 2018, Table 5.5) both are priced; with
   * --managed-host-reads none the read-back is not, and the report says what it left out.
   */
  @Test
  void faultsAndHostReadsArePricedAndSaid() throws Exception {
    JsonNode sync = node(Cli.run("replay", faults.toString(), "--node", "ac922", "--json"));
    JsonNode none = node(Cli.run("replay", faults.toString(), "--node", "ac922", "--json", "--managed-host-reads",
        "none"));
    assertThat(notes(sync)).anySatisfy(x -> assertThat(x).contains("1 operation(s) reach 4 MiB resident elsewhere")
        .contains("Pearson 2018, Table 5.5"));
    assertThat(notes(sync)).anySatisfy(x -> assertThat(x).contains("4 MiB migrate back after 1 call(s)"));
    assertThat(notes(none)).anySatisfy(x -> assertThat(x).contains("1 allocation(s) (4 MiB) end on a GPU;")
        .contains("not priced"));
    // 64 faults of 27.4 us each at least (Table 5.5, AC922, CPU <- GPU)
    assertThat(sync.path("makespan_ns").asDouble() - none.path("makespan_ns").asDouble())
        .isGreaterThan(64 * 27_400.0);
  }

  @Test
  void anUnknownAssumptionIsBadUsage() {
    Cli r = Cli.run("replay", faults.toString(), "--node", "ac922", "--managed-host-reads", "often");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--managed-host-reads: 'often' is not sync or none");
  }

  private static List<String> notes(JsonNode node) {
    List<String> out = new ArrayList<>();
    node.path("notes").forEach(n -> out.add(n.asText()));
    return out;
  }

  private static JsonNode node(Cli c) throws Exception {
    assertThat(c.exit()).as(c.err()).isZero();
    JsonNode nodes = JSON.readTree(c.out()).path("nodes");
    assertThat(nodes).hasSize(1);
    return nodes.get(0);
  }
}
