package io.apptrace.calibrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.node.Curve;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import io.apptrace.validate.MemcpyData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link LogGpFit} on Pearson's cudaMemcpy measurements of an S822LC ({@code minsky1}) and a DGX-1
 * ({@code dgx-1}) in ../shared/realdata/pearson-ms-thesis/memcpy_summary.csv (skipped, saying so,
 * where that folder is absent), read with the reader {@code apptrace validate transfers} uses.
 * docs/ACCURACY.md states no L+o or G of its own for them; the figures compared with are those of the
 * bundled {@code s822lc} and {@code dgx1} node files' {@code measured} sections, taken from the same
 * rows (NUMA node 0 with GPU 0; GPU 0 to GPU 1): L+o as the 256-byte time, the bandwidth curve as
 * bytes / median time of every size.
 */
class PearsonFitTest {
  static Path data() {
    return Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("pearson-ms-thesis/memcpy_summary.csv");
  }

  private static List<MemcpyData.Measurement> rows(MemcpyData.Data d, String machine, TransferKind kind) {
    int dst = kind.way() == TransferKind.Way.P2P ? 1 : 0;
    return d.rows().stream().filter(r -> r.machine().equals(machine) && r.kind() == kind && r.srcGpu() == 0
        && r.dstGpu() == dst && r.numa() <= 0).toList();
  }

  private static LogGpFit.Fit fit(List<MemcpyData.Measurement> rows) {
    return LogGpFit.fit(rows.stream().map(r -> new LogGpFit.Point(r.bytes(), r.medianSeconds())).toList());
  }

  /**
   * L+o (docs/COST-MODEL.md: the time of the smallest copy; this data starts at 256 B) equals the node
   * file's measured latency of every kind, which the file rounds to 1 ns ("10.913 us").
   */
  @ParameterizedTest
  @CsvSource({"dgx-1, dgx1", "minsky1, s822lc"})
  void latencyIsTheNodeFilesMeasuredLatency(String machine, String node) throws Exception {
    assumeThat(Files.isRegularFile(data())).as("Pearson's data is in ../shared/realdata (absent here)").isTrue();
    MemcpyData.Data d = MemcpyData.read(data());
    Node n = NodeLoader.bundled(node).orElseThrow();
    for (TransferKind k : List.of(TransferKind.PINNED_H2D, TransferKind.PINNED_D2H, TransferKind.PAGEABLE_H2D,
        TransferKind.PAGEABLE_D2H, TransferKind.WRITE_COMBINED_H2D, TransferKind.WRITE_COMBINED_D2H, TransferKind.PEER,
        TransferKind.STAGED_P2P)) {
      LogGpFit.Fit f = fit(rows(d, machine, k));
      assertThat(f.latencyBytes()).isEqualTo(256);
      assertThat(f.latencySeconds()).as("%s %s", node, k.key()).isCloseTo(n.measured().latency().get(k), within(0.5e-9));
    }
  }

  /**
   * 1/G (van Werkhoven et al. 2014, sec. V-A over the sizes above 1 MiB) of the pinned and write-combined copies
   * lies on
   * the node file's curve where it is flat: between the least and the greatest of the curve's
   * bandwidths at 1 GiB to 8 GiB, the sizes that carry 15/16 of G's weight (sum of k), widened by
   * 0.05% for the file's four significant digits. The fits (GB/s): DGX-1 11.05, 12.43, 11.05,
   * 12.50; S822LC 31.90, 33.71, 31.91, 33.53 (pinned_h2d, pinned_d2h, write_combined_h2d, _d2h).
   */
  @ParameterizedTest
  @CsvSource({"dgx-1, dgx1", "minsky1, s822lc"})
  void bandwidthIsTheNodeFilesLargeCopyBandwidth(String machine, String node) throws Exception {
    assumeThat(Files.isRegularFile(data())).as("Pearson's data is in ../shared/realdata (absent here)").isTrue();
    MemcpyData.Data d = MemcpyData.read(data());
    Node n = NodeLoader.bundled(node).orElseThrow();
    for (TransferKind k : List.of(TransferKind.PINNED_H2D, TransferKind.PINNED_D2H, TransferKind.WRITE_COMBINED_H2D,
        TransferKind.WRITE_COMBINED_D2H)) {
      LogGpFit.Fit f = fit(rows(d, machine, k));
      assertThat(f.fittedSizes()).isEqualTo(13); // 2 MiB .. 8 GiB
      Curve c = n.measured().curves().get(k);
      double lo = Double.POSITIVE_INFINITY;
      double hi = 0;
      for (long size = 1L << 30; size <= 8L << 30; size *= 2) {
        double bw = size / c.seconds(size);
        lo = Math.min(lo, bw);
        hi = Math.max(hi, bw);
      }
      assertThat(f.bandwidthBytesPerSec()).as("%s %s", node, k.key()).isBetween(lo * 0.9995, hi * 1.0005);
    }
  }

  /**
   * GPU-to-GPU copies, which the node files hold no curve of: 1/G is within 0.1% of the LogGP
   * bandwidth of the largest copy the data holds, {@code n / (t - (L + o))}. The copies of 1 GiB
   * and more carry three quarters of G's weight (sum of k) and lie within 0.01% of it; those from 2
   * MiB to 512 MiB carry the rest and lie within 0.3% of it, apart from the few MiB ones (up to 3%
   * off, 0.3% of the weight): together less than 0.1%. The peer bandwidth also matches the spot
   * values of Pearson's thesis data (github.com/cwpearson/ms-thesis) (GPU 0 to GPU 1 at 1 GiB: 35.5 GB/s on the
   * S822LC, 18.5 on
   * the DGX-1; three digits, so within 0.15 GB/s).
   */
  @ParameterizedTest
  @CsvSource({"dgx-1, 18.5", "minsky1, 35.5"})
  void gpuToGpuBandwidthIsThatOfTheLargestCopy(String machine, double peerGbps) throws Exception {
    assumeThat(Files.isRegularFile(data())).as("Pearson's data is in ../shared/realdata (absent here)").isTrue();
    MemcpyData.Data d = MemcpyData.read(data());
    for (TransferKind k : List.of(TransferKind.PEER, TransferKind.STAGED_P2P)) {
      List<MemcpyData.Measurement> rows = rows(d, machine, k);
      LogGpFit.Fit f = fit(rows);
      MemcpyData.Measurement largest = rows.stream().max(java.util.Comparator.comparingLong(
          MemcpyData.Measurement::bytes)).orElseThrow();
      double logGpBandwidth = largest.bytes() / (largest.medianSeconds() - f.latencySeconds());
      assertThat(f.bandwidthBytesPerSec()).as("%s %s", machine, k.key()).isCloseTo(logGpBandwidth,
          within(logGpBandwidth * 1e-3));
      if (k == TransferKind.PEER) {
        assertThat(f.bandwidthBytesPerSec() / 1e9).isCloseTo(peerGbps, within(0.15));
      }
    }
  }

  /**
   * The node files' {@code measured.memcpy_bandwidth} (docs/COST-MODEL.md, "Pageable host memory"):
   * per CPU, 1/G of one thread's cudaMemcpy from pageable to pinned memory within its own NUMA node
   * (NUMA_Memcpy_HostToPinned, a benchmark the model does not price), fitted as {@code apptrace
   * calibrate} fits it (van Werkhoven et al. 2014, sec. V-A, over the sizes above 1 MiB), to the
   * file's four significant digits.
   */
  @ParameterizedTest
  @CsvSource({"dgx-1, dgx1", "minsky1, s822lc"})
  void memcpyBandwidthIsTheFitOfTheHostToPinnedCopies(String machine, String node) throws Exception {
    assumeThat(Files.isRegularFile(data())).as("Pearson's data is in ../shared/realdata (absent here)").isTrue();
    List<String> lines = Files.readAllLines(data());
    List<String> header = List.of(lines.get(0).split(","));
    Node n = NodeLoader.bundled(node).orElseThrow();
    for (Node.Cpu cpu : n.cpus()) {
      String numa = Integer.toString(cpu.numaNode());
      List<LogGpFit.Point> points = lines.stream().skip(1).map(l -> l.split(",", -1))
          .filter(f -> f[header.indexOf("machine")].equals(machine)
              && f[header.indexOf("benchmark")].equals("NUMA_Memcpy_HostToPinned")
              && f[header.indexOf("src_numa")].equals(numa) && f[header.indexOf("dst_numa")].equals(numa))
          .map(f -> new LogGpFit.Point(Long.parseLong(f[header.indexOf("bytes")]),
              Double.parseDouble(f[header.indexOf("median_ns")]) * 1e-9))
          .toList();
      double fitted = LogGpFit.fit(points).bandwidthBytesPerSec();
      assertThat(n.measured().memcpyBandwidth().get(cpu.id())).as("%s %s", node, cpu.id())
          .isCloseTo(fitted, within(fitted * 5e-4));
    }
  }

  /**
   * The S822LC's X-bus efficiencies: the highest bandwidth (bytes / median time, over all sizes) of
   * remote pinned copies, NUMA node 1 with GPU 0, over the bus's 38.4 GB/s: a GPU reading memory
   * across it (host to device) and writing it (device to host), to the file's three digits. These
   * rows are scored in docs/ACCURACY.md: the remote figures there are in-sample.
   */
  @org.junit.jupiter.api.Test
  void theXbusEfficienciesAreTheRemotePinnedPeaks() throws Exception {
    assumeThat(Files.isRegularFile(data())).as("Pearson's data is in ../shared/realdata (absent here)").isTrue();
    MemcpyData.Data d = MemcpyData.read(data());
    Node.Link xbus = NodeLoader.bundled("s822lc").orElseThrow().links().stream()
        .filter(l -> l.id().equals("cpu0-cpu1")).findFirst().orElseThrow();
    for (TransferKind k : List.of(TransferKind.PINNED_H2D, TransferKind.PINNED_D2H)) {
      double peak = d.rows().stream().filter(r -> r.machine().equals("minsky1") && r.kind() == k && r.numa() == 1
          && r.srcGpu() == 0).mapToDouble(r -> r.bytes() / r.medianSeconds()).max().orElseThrow();
      double efficiency = xbus.accessEfficiency(k == TransferKind.PINNED_H2D);
      assertThat(efficiency).as(k.key()).isCloseTo(peak / xbus.bandwidth(), within(5e-4));
    }
  }
}
