package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Event;
import io.apptrace.proto.GraphExec;
import io.apptrace.proto.GraphNodeKind;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/CAPTURE.md, "CUDA graphs": programs that build, capture, change and launch CUDA graphs
 * behave under apptrace as on the bare simulated device, and their traces describe every
 * executable graph (nodes with their parameters, edges), every launch, and the calls captured
 * into graphs (flagged with the capture's id, never as work).
 */
class CaptureGraphsTest {
  @TempDir Path tmp;

  /** tests/cuda/cuda_graphs.cu: simpleCudaGraphs' reduction, captured on two streams and built with the graph API. */
  @Test
  void aCapturedAndABuiltGraphAreDescribedWithTheirLaunches() throws Exception {
    Captured c = Captured.run(tmp, "cuda_graphs");
    CaptureHarmTest.Untraced bare = CaptureHarmTest.Untraced.run("cuda_graphs");
    assertThat(c.result().exitCode()).isZero().isEqualTo(bare.exitCode());
    assertThat(c.stdout()).isEqualTo(bare.stdout()).contains("all graph launches copied their bytes");
    List<GraphExec> heads = c.events(e -> e.hasGraphExec() && !e.getGraphExec().getPart()).stream()
        .map(Event::getGraphExec).toList();
    assertThat(heads).hasSize(3).allSatisfy(h -> {
      assertThat(h.getNodeCount()).isEqualTo(8);
      assertThat(h.getEdgeCount()).isEqualTo(8);
    });
    // the captured graph: 8 nodes, each with its parameters, 8 edges (the fork and the join)
    long exec = heads.get(0).getExec();
    List<GraphExec> parts = c.events(e -> e.hasGraphExec() && e.getGraphExec().getPart()
        && e.getGraphExec().getExec() == exec).stream().map(Event::getGraphExec).toList();
    assertThat(parts.stream().mapToInt(GraphExec::getNodesCount).sum()).isEqualTo(8);
    assertThat(parts.stream().mapToInt(GraphExec::getEdgesCount).sum()).isEqualTo(8);
    assertThat(parts.stream().flatMap(p -> p.getNodesList().stream())
        .filter(n -> n.getKind() == GraphNodeKind.GRAPH_KERNEL)).hasSize(2)
        .allSatisfy(n -> assertThat(n.getLaunch().getArgs().size()).isPositive());
    assertThat(parts.stream().flatMap(p -> p.getNodesList().stream())
        .filter(n -> n.getKind() == GraphNodeKind.GRAPH_MEMCPY)).hasSize(4)
        .allSatisfy(n -> assertThat(n.getCopy().getBytes()).isPositive());
    assertThat(c.events(Event::hasGraphLaunch)).hasSize(15);
    // what the program issued while capturing: 4 copies, a memset, 2 kernels, flagged
    long captured = c.events(e -> e.getCopy().getCaptureId() != 0 || e.getMemset().getCaptureId() != 0
        || e.getLaunch().getCaptureId() != 0).size();
    assertThat(captured).isEqualTo(7);
    assertThat(c.events(e -> e.hasStreamCapture() && e.getStreamCapture().getGraph() != 0)).hasSize(1);
  }

  /**
   * tests/cuda/graph_updates.cu: a child graph is expanded (its node, its end, its kernels); a
   * disabled node, a node's new parameters and an updated executable graph are recorded.
   */
  @Test
  void updatesDisabledNodesAndChildGraphsAreRecorded() throws Exception {
    Captured c = Captured.run(tmp, "graph_updates");
    CaptureHarmTest.Untraced bare = CaptureHarmTest.Untraced.run("graph_updates");
    assertThat(c.result().exitCode()).isZero().isEqualTo(bare.exitCode());
    assertThat(c.stdout()).isEqualTo(bare.stdout()).isEqualTo("every graph update took effect\n");
    List<GraphExec> heads = c.events(e -> e.hasGraphExec() && !e.getGraphExec().getPart()).stream()
        .map(Event::getGraphExec).toList();
    // instantiated, updated, the captured loop; memset, child (and its end), 2 kernels, copy
    assertThat(heads).extracting(GraphExec::getNodeCount).containsExactly(6, 6, 100);
    assertThat(c.events(e -> e.hasGraphExec() && e.getGraphExec().getReplace() && e.getGraphExec().getNodesCount() > 0))
        .hasSize(4);
    assertThat(c.events(e -> e.hasGraphExec() && e.getGraphExec().getReplace()).stream()
        .flatMap(e -> e.getGraphExec().getNodesList().stream()).filter(n -> n.getDisabled())).hasSize(1);
    assertThat(c.events(Event::hasGraphLaunch)).hasSize(15);
    assertThat(c.events(e -> e.getLaunch().getCaptureId() != 0)).hasSize(100);
  }

  /** tests/cuda/graph_memory.cu: the captured cudaMallocAsync and cudaFreeAsync are alloc and free nodes. */
  @Test
  void graphMemoryNodesAreDescribedAndTheirCallsFlagged() throws Exception {
    Captured c = Captured.run(tmp, "graph_memory");
    CaptureHarmTest.Untraced bare = CaptureHarmTest.Untraced.run("graph_memory");
    assertThat(c.result().exitCode()).isZero().isEqualTo(bare.exitCode());
    assertThat(c.stdout()).isEqualTo(bare.stdout()).isEqualTo("3 launches, each copied back its memset\n");
    Event alloc = c.events(e -> e.hasAlloc() && e.getAlloc().getCaptureId() != 0).get(0);
    assertThat(c.events(e -> e.hasFree() && e.getFree().getCaptureId() != 0)).hasSize(1);
    assertThat(c.events(e -> e.hasGraphExec()).stream().flatMap(e -> e.getGraphExec().getNodesList().stream())
        .filter(n -> n.getKind() == GraphNodeKind.GRAPH_MEM_ALLOC)).singleElement().satisfies(n -> {
          assertThat(n.getPtr()).isEqualTo(alloc.getAlloc().getPtr());
          assertThat(n.getBytes()).isEqualTo(1024);
        });
    assertThat(c.events(Event::hasGraphLaunch)).hasSize(3);
  }
}
