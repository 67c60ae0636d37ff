package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.ApiClass;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "CUDA graphs": a launch issues every node of its graph at once; a node runs
 * when the nodes it depends on are done, on the engine its kind uses; the launch is ordered
 * against its stream as one kernel (its first nodes after the stream's earlier work, the
 * stream's later work after all of its last nodes); the host pays one graph launch, not one
 * launch per node (rule classes {@code StreamRules.issueGraph}, {@code CallCosts.graphLaunchNs}).
 */
class GraphLaunchesTest {
  /**
   * <pre>
   *   stream s:  before(100) --> [ graph:   h2d copy (1 MiB) --\
   *                                         k1(100)  ----------+--> k2(100) ]  --> after(100)
   *                                         k3(300)   (a second sink)
   * </pre>
   * The copy and k1 start together when "before" is done (different engines); k2 waits for both;
   * "after" waits for k2 and for k3, the graph's other last node.
   */
  @Test
  void nodesRunWhenTheirDependenciesAreDoneAndTheStreamWaitsForEveryLastNode() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int before = f.kernel(0, s, "before", 100);
    int copy = f.graphCopy(s, TransferKind.PINNED_H2D, 1 << 20);
    int k1 = f.graphKernel(s, "k1", 100);
    int k2 = f.graphKernel(s, "k2", 100);
    int k3 = f.graphKernel(s, "k3", 300);
    f.graphLaunch(0, s, new int[] {copy, k1, k3, k2}, new int[][] {{}, {}, {}, {copy, k1}});
    int after = f.kernel(0, s, "after", 100);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    var t = r.ops();
    assertThat(t.get(copy).startNs()).isGreaterThanOrEqualTo(t.get(before).endNs());
    assertThat(t.get(k1).startNs()).isGreaterThanOrEqualTo(t.get(before).endNs());
    assertThat(t.get(copy).startNs()).isLessThan(t.get(k1).endNs()); // the two branches overlap
    assertThat(t.get(k2).startNs()).isGreaterThanOrEqualTo(Math.max(t.get(copy).endNs(), t.get(k1).endNs()));
    assertThat(t.get(after).startNs()).isGreaterThanOrEqualTo(Math.max(t.get(k2).endNs(), t.get(k3).endNs()));
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("CUDA graphs: 1 launch(es) ran 4 node operation(s)"));
  }

  /** A synchronization of the stream waits for every last node of the graph, not only one. */
  @Test
  void aStreamSynchronizationWaitsForEveryLastNode() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int a = f.graphKernel(s, "a", 100);
    int b = f.graphKernel(s, "b", 500);
    f.graphLaunch(0, s, new int[] {b, a}, new int[][] {{}, {}});
    f.syncStream(0, s);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(r.makespanNs()).isGreaterThanOrEqualTo(r.ops().get(b).endNs());
    assertThat(r.makespanNs()).isGreaterThanOrEqualTo(r.ops().get(a).endNs());
  }

  /**
   * The saving that makes people use graphs: 1,000 small kernels launched one by one pay the GPU's
   * launch overhead each (van Werkhoven et al. 2014); launched as one graph, the host pays one
   * graph launch (the host-overhead model's graph_launch, measured on an A100).
   */
  @Test
  void aGraphLaunchPaysOneLaunchOverheadInsteadOfOnePerKernel() throws Exception {
    var node = NodeLoader.resolve("dgx-a100");
    ProgramFixture loop = new ProgramFixture().simulated();
    int s = loop.blocking();
    for (int i = 0; i < 1000; i++) {
      loop.kernel(0, s, "small", 1_000);
    }
    ProgramFixture graph = new ProgramFixture().simulated();
    int g = graph.blocking();
    int[] ops = new int[1000];
    int[][] waits = new int[1000][];
    for (int i = 0; i < 1000; i++) {
      ops[i] = graph.graphKernel(g, "small", 1_000);
      waits[i] = i == 0 ? new int[0] : new int[] {ops[i - 1]};
    }
    graph.graphLaunch(0, g, ops, waits);
    ReplayResult one = Replayer.replay(loop.build(), node, Replayer.Options.defaults());
    ReplayResult launched = Replayer.replay(graph.build(), node, Replayer.Options.defaults());
    double perKernel = node.gpus().get(0).launchOverheadSeconds() * 1e9;
    double graphLaunch = node.hostOverheads().costNs(ApiClass.GRAPH_LAUNCH, 0);
    assertThat(graphLaunch).isEqualTo(27_500);
    // the kernels (1 us each) outrun their launches one by one; in the graph they run back to back
    assertThat(one.makespanNs() - launched.makespanNs()).isGreaterThan(1000 * perKernel - graphLaunch - 1000 * 1_000.0
        - 1);
    assertThat(launched.makespanNs()).isLessThan(one.makespanNs());
  }

  @Test
  void aProgramWithoutGraphsGetsNoSuchNote() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.kernel(0, f.blocking(), "k", 1_000);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(r.notes()).noneSatisfy(n -> assertThat(n).contains("CUDA graphs"));
  }

  @Test
  void aLaunchOfAGraphTheTraceDoesNotDescribeIsSaid() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.api(0, "cudaGraphLaunch", 1_000, 0);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("1 launch(es) of graphs the trace does not describe"));
  }
}
