package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every bundled node loads, routes every pair of endpoints, and says what the seeds say of it. */
class BundledNodesTest {
  private static final Path FOLDER = Path.of(System.getProperty("apptrace.root", "..")).resolve(
      "replay/src/main/resources/io/apptrace/nodes");

  /** The index lists each node's aliases as its file does: names resolve without loading every file. */
  @Test
  void theIndexListsEveryFilesAliases() throws Exception {
    for (Node n : BundledNodes.all()) {
      assertThat(BundledNodes.aliases(n.name())).as(n.name()).isEqualTo(n.aliases());
      for (String alias : n.aliases()) {
        assertThat(BundledNodes.canonical(alias.toUpperCase(java.util.Locale.ROOT))).contains(n.name());
      }
    }
  }

  @Test
  void theIndexListsExactlyTheFilesInTheFolder() throws Exception {
    List<String> files;
    try (Stream<Path> s = Files.list(FOLDER)) {
      files = s.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".yaml"))
          .map(f -> f.substring(0, f.length() - 5)).sorted().toList();
    }
    assertThat(BundledNodes.names()).containsExactlyInAnyOrderElementsOf(files);
    assertThat(BundledNodes.names()).contains("titan", "summit", "ac922", "s822lc", "dgx1", "node1", "node2",
        "gtx680", "gtxtitan", "k20m", "dgx-a100", "dgx-h100", "gh200", "h100-pcie5");
  }

  @Test
  void everyNodeLoadsAndRoutesEveryPairOfEndpoints() throws Exception {
    List<String> checked = new ArrayList<>();
    for (Node n : BundledNodes.all()) {
      assertThat(n.description()).as(n.name()).isNotBlank();
      TransferModel m = new TransferModel(n);
      for (Node.Cpu c : n.cpus()) {
        for (Node.Gpu g : n.gpus()) {
          for (TransferKind k : List.of(TransferKind.PINNED_H2D, TransferKind.PINNED_D2H, TransferKind.PAGEABLE_H2D,
              TransferKind.PAGEABLE_D2H, TransferKind.WRITE_COMBINED_H2D, TransferKind.WRITE_COMBINED_D2H)) {
            TransferEstimate e = m.estimate(k, 1 << 20, new TransferModel.Endpoints(c.numaNode(), g.index(),
                g.index()), TransferModel.Setting.MEASURED);
            assertThat(e.seconds()).as("%s %s numa %d gpu %d", n.name(), k.key(), c.numaNode(), g.index())
                .isPositive().isFinite();
            assertThat(e.peakBwSeconds()).isLessThanOrEqualTo(e.seconds() * 1.0000001 + 1e-12);
          }
        }
      }
      for (Node.Gpu a : n.gpus()) {
        assertThat(m.estimate(TransferKind.D2D, 1 << 20, TransferModel.Endpoints.gpu(a.index()),
            TransferModel.Setting.MEASURED).seconds()).isPositive();
        for (Node.Gpu b : n.gpus()) {
          if (a != b) {
            TransferEstimate e = m.estimate(TransferKind.PEER, 1 << 20, new TransferModel.Endpoints(-1, a.index(),
                b.index()), TransferModel.Setting.MEASURED);
            assertThat(e.seconds()).as("%s peer %d -> %d", n.name(), a.index(), b.index()).isPositive().isFinite();
          }
        }
      }
      // every node has a measured L+o, its own or another's (docs/COST-MODEL.md, 'A node never measured')
      assertThat(m.latency(TransferKind.PINNED_H2D).measured()).as(n.name() + " L+o").isTrue();
      checked.add(n.name());
    }
    assertThat(checked).hasSameSizeAs(BundledNodes.names());
  }

  @Test
  void peerAccessFollowsTable25() throws Exception {
    // Pearson 2018, Table 2.5: DGX-1 peer access under a shared PCIe switch or over NVLink, not otherwise
    Topology dgx1 = Topology.of(NodeLoader.bundled("dgx1").orElseThrow());
    assertThat(dgx1.peerAccess("gpu0", "gpu1")).isTrue();
    int peers = 0;
    for (Node.Gpu g : dgx1.node().gpus()) {
      peers += !g.id().equals("gpu0") && dgx1.peerAccess("gpu0", g.id()) ? 1 : 0;
    }
    assertThat(peers).as("GPU 0 reaches its 3 neighbours and one GPU of the other group").isEqualTo(4);
    // S822LC: only GPUs with a direct NVLink
    Topology s822lc = Topology.of(NodeLoader.bundled("s822lc").orElseThrow());
    assertThat(s822lc.peerAccess("gpu0", "gpu1")).isTrue();
    assertThat(s822lc.peerAccess("gpu0", "gpu2")).isFalse();
    // AC922: every pair, through the X-bus where no NVLink joins them
    Topology ac922 = Topology.of(NodeLoader.bundled("ac922").orElseThrow());
    assertThat(ac922.peerAccess("gpu0", "gpu2")).isTrue();
    assertThat(ac922.route("gpu0", "gpu2").orElseThrow().remote()).isTrue();
  }

  @Test
  void theSeedsNodesHaveTheirLinks() throws Exception {
    // Pearson 2018, sec. 2.9.3: AC922 triads of 3 bonded NVLink 2.0 lanes (75 GB/s each way)
    Topology ac922 = Topology.of(NodeLoader.bundled("ac922").orElseThrow());
    Topology.Route r = ac922.hostRoute(ac922.localNuma("gpu0"), "gpu0").orElseThrow();
    assertThat(r.links()).singleElement().satisfies(l -> {
      assertThat(l.type()).isEqualTo(LinkType.NVLINK);
      assertThat(l.bandwidth()).isEqualTo(75e9);
    });
    // Titan: PCIe gen 2 x16, 8 GB/s (Abdelhafez et al. 2019, sec. VI-B)
    Topology titan = Topology.of(NodeLoader.bundled("titan").orElseThrow());
    Node.Link l = titan.hostRoute(titan.localNuma("gpu0"), "gpu0").orElseThrow().bottleneck();
    assertThat(l.type()).isEqualTo(LinkType.PCIE);
    assertThat(l.bandwidth()).isEqualTo(8e9);
    // DGX-1: CPU to GPU over PCIe 3.0 x16 through a switch (Pearson 2018, sec. 2.9.1)
    Topology dgx1 = Topology.of(NodeLoader.bundled("dgx1").orElseThrow());
    Topology.Route d = dgx1.hostRoute(0, "gpu0").orElseThrow();
    assertThat(d.vertices()).hasSize(3);
    assertThat(d.links()).allSatisfy(x -> assertThat(x.type()).isEqualTo(LinkType.PCIE));
    // The DAS-4 GPUs of van Werkhoven et al. 2014, Table III: copy engines and implicit synchronization
    assertThat(NodeLoader.bundled("gtx680").orElseThrow().gpus().get(0)).satisfies(g -> {
      assertThat(g.copyEngines()).isEqualTo(1);
      assertThat(g.implicitSync()).isTrue();
    });
    assertThat(NodeLoader.bundled("gtxtitan").orElseThrow().gpus().get(0).copyEngines()).isEqualTo(1);
    assertThat(NodeLoader.bundled("k20m").orElseThrow().gpus().get(0).copyEngines()).isEqualTo(2);
  }
}
