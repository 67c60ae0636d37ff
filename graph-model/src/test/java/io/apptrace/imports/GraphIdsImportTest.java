package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Event;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.GpuActivityKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/IMPORT.md, "CUDA graphs": the graph and graph node ids a profiler gives the work of a
 * CUDA graph launch (Kineto's "graph id" / "graph node id" args, Nsight Systems' graphId /
 * graphNodeId columns) are on the imported GPU activity. The real traces at hand have none (their
 * Kineto version predates the fields; the A100 training trace's 70 cudaGraphLaunch calls ran
 * kernels and memsets without them), so these are drawn fixtures.
 */
class GraphIdsImportTest {
  @TempDir Path tmp;

  /**
   * One cudaGraphLaunch that ran a memset and a kernel (graph 3, nodes 11 and 12), then a kernel
   * launched on its own.
   */
  private static final String KINETO = """
      {"traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 5, "tid": 5, "ts": 100, "dur": 20,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 130, "dur": 1,
         "args": {"device": 0, "stream": 7, "correlation": 1, "bytes": 1408, "graph id": 3, "graph node id": 11}},
        {"ph": "X", "cat": "kernel", "name": "step", "pid": 0, "tid": 7, "ts": 135, "dur": 4,
         "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [1, 1, 1], "block": [32, 1, 1],
          "graph id": 3, "graph node id": 12}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 200, "dur": 5,
         "args": {"correlation": 2}},
        {"ph": "X", "cat": "kernel", "name": "alone", "pid": 0, "tid": 7, "ts": 210, "dur": 3,
         "args": {"device": 0, "stream": 7, "correlation": 2, "grid": [1, 1, 1], "block": [32, 1, 1]}}]}
      """;

  @Test
  void kinetoGraphIdsAreOnTheGpuActivity() throws Exception {
    List<GpuActivity> gpu = gpu(importFile(Files.writeString(tmp.resolve("graph.json"), KINETO)));
    assertThat(gpu).extracting(GpuActivity::getKind, GpuActivity::getGraphId, GpuActivity::getGraphNodeId)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(GpuActivityKind.GPU_MEMSET, 3L, 11L),
            org.assertj.core.groups.Tuple.tuple(GpuActivityKind.GPU_KERNEL, 3L, 12L),
            org.assertj.core.groups.Tuple.tuple(GpuActivityKind.GPU_KERNEL, 0L, 0L));
  }

  /** NsysFixture's recent export with its first kernel marked as node 77 of graph 5 (graphId added). */
  @Test
  void nsightSystemsGraphIdsAreOnTheGpuActivity() throws Exception {
    Path db = tmp.resolve("graph.sqlite");
    NsysFixture.recent(db);
    long first;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN graphId INTEGER");
      try (var rs = s.executeQuery("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL")) {
        first = rs.getLong(1);
      }
      s.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphId = 5, graphNodeId = 77 WHERE start = " + first);
    }
    List<GpuActivity> kernels = gpu(importFile(db)).stream()
        .filter(g -> g.getKind() == GpuActivityKind.GPU_KERNEL).toList();
    assertThat(kernels).hasSizeGreaterThan(1);
    assertThat(kernels).filteredOn(g -> g.getGraphId() != 0).singleElement().satisfies(g -> {
      assertThat(g.getGraphId()).isEqualTo(5);
      assertThat(g.getGraphNodeId()).isEqualTo(77);
    });
  }

  private Path importFile(Path in) throws Exception {
    Path out = tmp.resolve(in.getFileName() + ".apptrace");
    Importer.run(in, out, Importer.Options.defaults().withTmpDir(tmp));
    return out;
  }

  private static List<GpuActivity> gpu(Path trace) throws Exception {
    return ImportedTrace.read(trace).all(Event.BodyCase.GPU).stream().map(Event::getGpu).toList();
  }
}
