package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.job.Job;
import io.apptrace.node.Cluster;
import io.apptrace.node.ClusterLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The weak-scaling shape Choi, Bhatele and Richards (2020) report for MiniFE: the same work per
 * rank on 1 to 16 nodes (one rank per node; {@link SyntheticJob}'s halo exchange and dot-product
 * allreduce, traces written and read back), its kernels replayed on the cluster's node: the
 * kernels take the same time on every size, the communication grows with the nodes.
 */
class JobWeakScalingTest {
  @TempDir Path tmp;

  private static Cluster cluster(int nodes) throws Exception {
    return ClusterLoader.parse("weak.yaml", """
        name: weak
        node: dgx-a100
        nodes: %d
        ranks_per_node: 1
        network:
          nic: {bandwidth: "25 GB/s", latency: "1 us"}
          loggp: {o: "0.5 us", g: "0.1 us"}
          topology: {class: fat-tree, oversubscription: 2, nodes_per_switch: 4}
        """.formatted(nodes));
  }

  @Test
  void kernelsStayFlatAndCommunicationGrowsFromOneToSixteenNodes() throws Exception {
    List<Double> kernels = new ArrayList<>();
    List<Double> communication = new ArrayList<>();
    for (int nodes : new int[] {1, 2, 4, 8, 16}) {
      Path dir = Files.createDirectory(tmp.resolve("n" + nodes));
      Job job = Job.read(SyntheticJob.write(dir, nodes, 10));
      Cluster c = cluster(nodes);
      JobReplayResult r = JobOverlap.replay(job, c, Replayer.Options.defaults());
      assertThat(r.ranks()).hasSize(nodes);
      assertThat(r.coupling().converged()).as("%d nodes: the node and network replays agree", nodes).isTrue();
      assertThat(r.coupling().iterations()).as("%d nodes: nothing in flight at an MPI call", nodes).isLessThanOrEqualTo(2);
      kernels.add(r.ranks().stream().mapToDouble(JobReplayResult.RankTime::kernels).max().orElseThrow());
      communication.add(r.ranks().stream().mapToDouble(t -> t.pointToPoint() + t.collective()).max().orElseThrow());
    }
    for (double k : kernels) {
      assertThat(k).as("every size: 10 kernels over 64 MiB on an A100").isCloseTo(kernels.get(0), within(1e-9));
    }
    for (int i = 1; i < communication.size(); i++) {
      assertThat(communication.get(i)).as("communication on %d nodes", 1 << i)
          .isGreaterThanOrEqualTo(communication.get(i - 1));
    }
    assertThat(communication.get(4)).as("16 nodes against 2").isGreaterThan(communication.get(1));
  }
}
