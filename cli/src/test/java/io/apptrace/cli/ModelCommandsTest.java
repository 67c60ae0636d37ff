package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code apptrace nodes}, {@code model} and {@code validate transfers} as a user sees them. */
class ModelCommandsTest {
  @TempDir Path tmp;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void nodesListsEveryBundledNodeOnALine() throws Exception {
    Cli r = Cli.run("nodes");
    assertThat(r.exit()).isZero();
    assertThat(r.out().lines()).anySatisfy(l -> assertThat(l).startsWith("ac922 ").contains("4 x Tesla V100")
        .contains("nvlink2"));
    assertThat(r.out().lines()).anySatisfy(l -> assertThat(l).startsWith("dgx1 ").contains("8 x").contains("pcie gen3"));
    JsonNode j = JSON.readTree(Cli.run("nodes", "--json").out());
    assertThat(j.size()).isEqualTo(r.out().lines().count());
    assertThat(j.get(0).path("name").asText()).isEqualTo("titan");
  }

  @Test
  void modelJsonHasTheDocumentedKeys() throws Exception {
    Cli r = Cli.run("model", "--node", "ac922", "--copy", "h2d", "--memory", "pinned", "--bytes", "1GiB", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    // Abdelhafez et al. 2019, eq. 10 over 3 bonded NVLink 2.0 lanes (75 GB/s), eq. 6 packets: 16 + ceil(n/256)*16 +
    // n bytes
    double n = 1L << 30;
    double expected = j.path("latency_ns").asDouble() + (16 + Math.ceil(n / 256) * 16 + n) / 75e9 * 1e9;
    assertThat(j.path("time_ns").asDouble()).isCloseTo(expected, org.assertj.core.data.Offset.offset(1.0));
    assertThat(j.path("bandwidth_bytes_per_s").asDouble()).isCloseTo(n / (expected * 1e-9),
        org.assertj.core.data.Offset.offset(1e6));
    assertThat(j.path("bottleneck_link").asText()).startsWith("cpu0-gpu0 (nvlink2");
    assertThat(j.path("baselines").path("peak_bw_ns").asDouble()).isLessThan(j.path("time_ns").asDouble());
    assertThat(j.path("baselines").path("back_of_envelope_ns").asDouble()).isCloseTo(n / 75e9 * 1e9,
        org.assertj.core.data.Offset.offset(1.0));
    assertThat(j.path("latency_source").asText()).isEqualTo("reused from titan (pinned_h2d)");
    // titan's L+o are GPU times (nvprof): the call's view adds the host-side overhead of a blocking call
    // (docs/COST-MODEL.md, "Timing kinds": 9.5 us), and the copy's data part is the same in both views
    assertThat(j.path("latency_timed").asText()).isEqualTo("gpu");
    assertThat(j.path("latency_call_ns").asDouble() - j.path("latency_ns").asDouble()).isCloseTo(9500,
        org.assertj.core.data.Offset.offset(1.0));
    assertThat(j.path("call_time_ns").asDouble() - j.path("time_ns").asDouble()).isCloseTo(9500,
        org.assertj.core.data.Offset.offset(1.0));
    assertThat(j.path("latency_conversion").asText()).isEqualTo("call duration converted from 960.0 ns GPU time (docs/COST-MODEL.md,"
        + " \"Timing kinds\")");
  }

  /** An event-timed L+o is printed with its GPU-time view, saying it was converted. */
  @Test
  void modelSaysHowEachFixedCostWasTimed() throws Exception {
    Cli r = Cli.run("model", "--node", "dgx1", "--bytes", "4KiB");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("  L+o            1.34 us GPU time, 10.91 us call; measured on dgx1 (pinned_h2d),"
        + " event-timed; GPU time converted from 10.91 us event-timed (docs/COST-MODEL.md, \"Timing kinds\")");
    assertThat(r.out().lines()).anySatisfy(l -> assertThat(l).startsWith("  time  ").contains("GPU time"));
    assertThat(r.out().lines()).anySatisfy(l -> assertThat(l).startsWith("  call  "));
  }

  /** Golden sweep tables (Abdelhafez et al. 2019, Fig. 9; Pearson 2018, Fig. 4.2 style), one per transfer family. */
  @ParameterizedTest
  @CsvSource({
    "ac922-pinned-h2d, --node ac922 --copy h2d --memory pinned",
    "dgx1-pageable-d2h-datasheet, --node dgx1 --copy d2h --memory pageable --setting datasheet",
    "s822lc-pinned-h2d-remote, --node s822lc --copy h2d --from 1 --to 0",
    "dgx1-peer, --node dgx1 --copy p2p --from 0 --to 1",
    "titan-d2d, --node titan --copy d2d",
  })
  void sweepsMatchTheirGoldenTables(String name, String args) throws Exception {
    String[] argv = ("model " + args + " --sweep").split(" ");
    Cli r = Cli.run(argv);
    assertThat(r.exit()).as(r.err()).isZero();
    Path golden = Path.of(System.getProperty("apptrace.root")).resolve("cli/src/test/resources/sweeps/" + name + ".txt");
    if (Boolean.getBoolean("apptrace.golden.update")) {
      Files.createDirectories(golden.getParent());
      Files.writeString(golden, r.out());
    }
    assertThat(r.out().lines()).as("%s (update with -Dapptrace.golden.update=true if intended)", golden)
        .containsExactlyElementsOf(Files.readString(golden).lines().toList());
    Cli csv = Cli.run((String.join(" ", argv) + " --csv").split(" "));
    assertThat(csv.out().lines()).hasSize(27).first()
        .isEqualTo("bytes,time_ns,bandwidth_gbps,peak_bw_ns,back_of_envelope_ns,call_time_ns");
  }

  @Test
  void badNodesAndValuesAreOneLineErrors() throws Exception {
    Cli unknown = Cli.run("model", "--node", "cray-1", "--bytes", "1MiB");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err().strip()).startsWith("apptrace model: no bundled node named 'cray-1'; bundled: titan,")
        .doesNotContain("\n");
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, "name: bad\ndescription: x\ncpus: []\n");
    Cli file = Cli.run("model", "--node", bad.toString(), "--bytes", "1MiB");
    assertThat(file.exit()).isEqualTo(1);
    assertThat(file.err().strip()).isEqualTo("apptrace model: " + bad + ":3:7: cpus: a node needs at least one CPU");
    Cli gpu = Cli.run("model", "--node", "titan", "--copy", "h2d", "--to", "3", "--bytes", "1MiB");
    assertThat(gpu.exit()).isEqualTo(1);
    assertThat(gpu.err()).contains("'3' is not a GPU of titan (its GPUs: gpu0");
    Cli size = Cli.run("model", "--node", "titan", "--bytes", "lots");
    assertThat(size.exit()).isEqualTo(2);
    assertThat(size.err()).contains("--bytes 'lots' is not a size");
    Cli copy = Cli.run("model", "--node", "titan", "--copy", "sideways", "--bytes", "1");
    assertThat(copy.exit()).isEqualTo(2);
    assertThat(Cli.run("model", "--bytes", "1").exit()).isEqualTo(2); // --node is required
    Cli precision = Cli.run("model", "--node", "dgx1", "--kernel", "--bytes", "1MiB", "--flops", "1e9",
        "--precision", "fp17");
    assertThat(precision.exit()).isEqualTo(2);
    assertThat(precision.err().strip()).isEqualTo("apptrace model: --precision: unknown precision 'fp17' (known:"
        + " bf16, fp16, fp32, fp64, fp8, int8, tf32)");
    Cli absent = Cli.run("model", "--node", "titan", "--kernel", "--bytes", "1MiB", "--flops", "1e9",
        "--precision", "tf32");
    assertThat(absent.exit()).isEqualTo(1);
    assertThat(absent.err()).contains("has no peak tf32 FLOP/s in its node file (it has: fp64, fp32");
  }

  /** {@code --kernel --flops}: the roofline on the node's peak of the precision asked for (Choi et al. 2020). */
  @Test
  void aKernelIsPricedOnThePeakOfItsPrecision() throws Exception {
    Cli fp32 = Cli.run("model", "--node", "dgx-a100", "--kernel", "--bytes", "1KiB", "--flops", "1e12", "--json");
    Cli tf32 = Cli.run("model", "--node", "dgx-a100", "--kernel", "--bytes", "1KiB", "--flops", "1e12", "--json",
        "--precision", "tf32");
    assertThat(fp32.exit()).as(fp32.err()).isZero();
    assertThat(tf32.exit()).as(tf32.err()).isZero();
    double a = new com.fasterxml.jackson.databind.ObjectMapper().readTree(fp32.out()).get("time_ns").asDouble();
    double b = new com.fasterxml.jackson.databind.ObjectMapper().readTree(tf32.out()).get("time_ns").asDouble();
    // A100: 19.5 TFLOP/s FP32 on the CUDA cores, 156 TFLOP/s TF32 on the tensor cores (datasheet)
    assertThat(a / b).isCloseTo(156.0 / 19.5, org.assertj.core.data.Offset.offset(0.01));
  }

  @Test
  void validateComparesMeasuredTimesPerKindAndRoute() throws Exception {
    Path csv = tmp.resolve("m.csv");
    // one pinned H2D measurement on titan's local route: 1 MiB in 200 us
    Files.writeString(csv, "machine,benchmark,src_mem,dst_mem,peer,numa,src_numa,dst_numa,gpu,src_gpu,dst_gpu,"
        + "bytes,log2_bytes,reps,iterations_per_rep,median_ns,mean_ns,stddev_ns,min_ns,max_ns,median_GBps,source_file\n"
        + "titan,NUMA_Memcpy_PinnedToGPU,pinned,device,,0,,,0,,,1048576,20,5,1,200000,0,0,0,0,0,x\n"
        + "titan,NUMA_Memcpy_HostToPinned,pageable,pinned,,,,,,,,1048576,20,5,1,200000,0,0,0,0,0,x\n");
    Cli r = Cli.run("validate", "transfers", "--node", "titan", "--data", csv.toString(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    Cli m = Cli.run("model", "--node", "titan", "--bytes", "1MiB", "--setting", "datasheet", "--json");
    // rows in Pearson's layout are synchronous calls timed by CUDA events: compared with the call's view
    double p = JSON.readTree(m.out()).path("call_time_ns").asDouble();
    // docs/COST-MODEL.md: WMAPE = 100 * |A - P| / A for one measurement
    assertThat(j.path("wmape_pct").path("pinned_h2d").asDouble()).isCloseTo(
        Math.round(100 * Math.abs(200000 - p) / 200000 * 100) / 100.0, org.assertj.core.data.Offset.offset(0.011));
    assertThat(j.path("wmape_pct").path("overall").asDouble()).isEqualTo(j.path("wmape_pct").path("pinned_h2d").asDouble());
    assertThat(j.path("baselines").path("peak_bw").has("pinned_h2d")).isTrue();
    assertThat(j.path("baselines").path("back_of_envelope").has("overall")).isTrue();
    assertThat(j.path("skipped").path("NUMA_Memcpy_HostToPinned (not a transfer kind the model prices)").asInt())
        .isEqualTo(1);
    Cli none = Cli.run("validate", "transfers", "--node", "ac922", "--data", csv.toString());
    assertThat(none.exit()).isEqualTo(1);
    assertThat(none.err()).contains("holds no rows of ac922").contains("its machines: titan");
    assertThat(Cli.run("validate", "transfers", "--node", "titan", "--data", tmp.resolve("no.csv").toString()).err())
        .contains("no.csv: no such file");
  }

  /** The accuracy claims of docs/ACCURACY.md, on Pearson's measurements (skipped without the data). */
  @Test
  void theTransferModelBeatsItsBaselinesOnRealMeasurements() throws Exception {
    Path data = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("pearson-ms-thesis/memcpy_summary.csv");
    assumeThat(Files.isRegularFile(data)).as("the real measurements are in ../shared/realdata (absent here)").isTrue();
    for (String node : new String[] {"s822lc", "dgx1"}) {
      JsonNode j = JSON.readTree(Cli.run("validate", "transfers", "--node", node, "--data", data.toString(),
          "--setting", "datasheet", "--json").out());
      JsonNode dma = j.path("by_group").path("dma");
      assertThat(dma.path("wmape_pct").asDouble()).as(node + " DMA kinds, datasheet").isLessThan(19.0)
          .isLessThan(dma.path("peak_bw_wmape_pct").asDouble() / 2);
      for (String kind : new String[] {"pinned_h2d", "pinned_d2h", "write_combined_h2d", "write_combined_d2h"}) {
        assertThat(j.path("wmape_pct").path(kind).asDouble()).as(node + " " + kind)
            .isLessThan(j.path("baselines").path("peak_bw").path(kind).asDouble());
      }
      JsonNode measured = JSON.readTree(Cli.run("validate", "transfers", "--node", node, "--data", data.toString(),
          "--setting", "measured", "--json").out());
      assertThat(measured.path("wmape_pct").path("overall").asDouble()).as(node + " measured curves")
          .isLessThan(j.path("wmape_pct").path("overall").asDouble());
      // the bundled curves were fitted to these measurements: the figure says it is in-sample
      assertThat(measured.path("in_sample").asBoolean()).as(node + " in-sample").isTrue();
      assertThat(measured.path("setting").asText()).isEqualTo("measured");
      JsonNode byDefault = JSON.readTree(Cli.run("validate", "transfers", "--node", node, "--data", data.toString(),
          "--json").out());
      assertThat(byDefault.path("setting").asText()).as("the default setting, as model's and replay's").isEqualTo(
          "measured");
    }
  }
}
