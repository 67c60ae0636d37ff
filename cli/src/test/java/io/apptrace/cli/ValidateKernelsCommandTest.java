package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.assertj.core.data.Offset.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code apptrace validate kernels}: its figures on a drawn fixture, its errors, and its real-data claims. */
class ValidateKernelsCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static Path data;
  static Path flat;

  /**
   * Two GPUs, three operations. With flat coefficients (GEMM efficiency 0.5, elementwise 0.8,
   * threshold 1.4: neither GPU is power-capped), V100 to A100:
   *
   * <pre>
   *   op   shape  V100 us  A100 us  floor (least V100 time of the op)  predicted on the A100
   *   add  n=1      30       28       30                                30 (all floor)
   *   add  n=2     130       90       30                                30 + 8e7 B / (1555 GB/s * 0.8) = 94.309 us
   *   mm   s=0      40       36       40                                40 + 1e6 / (19.5 TFLOP/s * 0.5)  = 40.103 us
   *   mm   s=1    1040      700       40                                40 + 1e10 / (19.5 TFLOP/s * 0.5) = 1065.641 us
   *   ln   r=1      50        -       50                                (no A100 row: predicted only)
   * </pre>
   */
  @BeforeAll
  static void fixtures() throws Exception {
    data = tmp.resolve("k.csv");
    Files.writeString(data, """
        op,shape,gpu,time_us,flops,bytes_min,kernel_name,grid,block
        add,n=1,Tesla V100-PCIE-32GB,30,,,"vectorized_elementwise_kernel<4, add>",1x1x1,128x1x1
        add,n=2,Tesla V100-PCIE-32GB,130,,80000000,"vectorized_elementwise_kernel<4, add>",100x1x1,128x1x1
        mm,s=0,Tesla V100-PCIE-32GB,40,1000000,,volta_sgemm_128x64_nn,1x1x1,256x1x1
        mm,s=1,Tesla V100-PCIE-32GB,1040,10000000000,,volta_sgemm_128x64_nn,80x8x1,256x1x1
        ln,r=1,Tesla V100-PCIE-32GB,50,,,,,
        add,n=1,NVIDIA A100-PCIE-40GB,28,,,"vectorized_elementwise_kernel<4, add>",1x1x1,128x1x1
        add,n=2,A100-PCIE-40GB,90,,80000000,"vectorized_elementwise_kernel<4, add>",100x1x1,128x1x1
        mm,s=0,NVIDIA A100-PCIE-40GB,36,1000000,,ampere_sgemm_128x64_nn,1x1x1,256x1x1
        mm,s=1,NVIDIA A100-PCIE-40GB,700,10000000000,,ampere_sgemm_128x64_nn,80x8x1,256x1x1
        """);
    flat = tmp.resolve("flat.yaml");
    Files.writeString(flat, """
        power_cap_threshold: 1.4
        tables:
          gemm: {feature: x, start: 0, step: 1, log_efficiency: [-0.6931471805599453], samples: [9]}
          elementwise: {feature: x, start: 0, step: 1, log_efficiency: [-0.2231435513142097], samples: [9]}
        """);
    Files.writeString(tmp.resolve("nocolumn.csv"), "op,shape,gpu,time\nadd,n=1,Tesla T4,3\n");
    Files.writeString(tmp.resolve("badtime.csv"), "op,shape,gpu,time_us\nadd,n=1,Tesla T4,fast\n");
  }

  @Test
  void thePredictionsFollowTheDrawnFixture() throws Exception {
    Path out = tmp.resolve("p.csv");
    Cli r = Cli.run("validate", "kernels", "--data", data.toString(), "--from", "tesla v100-pcie-32gb", "--to",
        "A100-PCIE-40GB", "--coefficients", flat.toString(), "--predictions", out.toString(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines).containsExactly("op,shape,kernel_name,class,from_us,measured_us,predicted_us",
        "add,n=1,\"vectorized_elementwise_kernel<4, add>\",elementwise,30.0000,28.0000,30.0000",
        "add,n=2,\"vectorized_elementwise_kernel<4, add>\",elementwise,130.0000,90.0000,94.3087",
        "mm,s=0,volta_sgemm_128x64_nn,gemm,40.0000,36.0000,40.1026",
        "mm,s=1,volta_sgemm_128x64_nn,gemm,1040.0000,700.0000,1065.6410",
        "ln,r=1,,other,50.0000,,50.0000");
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.path("from").asText()).isEqualTo("Tesla V100-PCIE-32GB");
    assertThat(j.path("to").asText()).isEqualTo("NVIDIA A100-PCIE-40GB");
    assertThat(j.path("pairs").asInt()).isEqualTo(4);
    double wmape = 100 * (2 + 4.3087 + 4.1026 + 365.6410) / (28 + 90 + 36 + 700);
    assertThat(j.path("wmape_pct").asDouble()).isCloseTo(wmape, offset(0.01));
    assertThat(j.path("by_class").path("gemm").path("pairs").asInt()).isEqualTo(2);
    assertThat(j.path("by_class").path("elementwise").path("mdape_pct").asDouble())
        .isCloseTo(100 * (2.0 / 28 + 4.3087 / 90) / 2, offset(0.01));
    double bw = 900 / 1555.0;
    double bwWmape = 100 * (Math.abs(28 - 30 * bw) + Math.abs(90 - 130 * bw) + Math.abs(36 - 40 * bw)
        + Math.abs(700 - 1040 * bw)) / 854;
    assertThat(j.path("baselines").path("bandwidth_ratio").path("wmape_pct").asDouble()).isCloseTo(bwWmape,
        offset(0.01));
    assertThat(j.path("baselines").path("fp32_ratio").path("pairs").asInt()).isEqualTo(4);
    assertThat(j.path("in_sample").asBoolean()).isFalse();
  }

  /**
   * The error by band of the target's measured time: with the flat coefficients, a GEMM of 1e12
   * FLOPs measured at 200 ms on the A100 is predicted at 40 us + 1e12 / 9.75e12 s = 102.604 ms; it
   * carries most of the WMAPE and most of the time, and the band that holds it says so.
   */
  @Test
  void theErrorIsSplitByTheTargetsMeasuredTime() throws Exception {
    Path big = tmp.resolve("big.csv");
    Files.writeString(big, Files.readString(data)
        + "mm,s=2,Tesla V100-PCIE-32GB,100040,1000000000000,,volta_sgemm_128x64_nn,80x8x1,256x1x1\n"
        + "mm,s=2,NVIDIA A100-PCIE-40GB,200000,1000000000000,,ampere_sgemm_128x64_nn,80x8x1,256x1x1\n");
    Cli r = Cli.run("validate", "kernels", "--data", big.toString(), "--from", "Tesla V100-PCIE-32GB", "--to",
        "NVIDIA A100-PCIE-40GB", "--coefficients", flat.toString(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode d = JSON.readTree(r.out()).path("by_duration");
    assertThat(d.path("lt_1ms").path("pairs").asInt()).isEqualTo(4);
    assertThat(d.path("lt_1ms").path("wmape_pct").asDouble())
        .isCloseTo(100 * (2 + 4.3087 + 4.1026 + 365.6410) / 854, offset(0.01));
    assertThat(d.path("ge_100ms").path("pairs").asInt()).isEqualTo(1);
    double predicted = 40 + 1e12 / 9.75e12 * 1e6;
    assertThat(d.path("ge_100ms").path("wmape_pct").asDouble())
        .isCloseTo(100 * (200000 - predicted) / 200000, offset(0.01));
    assertThat(d.path("ge_100ms").path("time_share_pct").asDouble())
        .isCloseTo(100 * 200000 / (200000 + 854.0), offset(0.01));
    assertThat(d.has("1_10ms")).as("a band without pairs is left out").isFalse();
    Cli text = Cli.run("validate", "kernels", "--data", big.toString(), "--from", "Tesla V100-PCIE-32GB", "--to",
        "NVIDIA A100-PCIE-40GB", "--coefficients", flat.toString());
    assertThat(text.out()).contains("WMAPE by measured time on NVIDIA A100-PCIE-40GB: < 1 ms 44.0% (4 pairs, 0.4%"
        + " of the time), >= 100 ms 48.7% (1 pairs, 99.6% of the time)");
  }

  @Test
  void aGpuWithoutMeasurementsIsOnlyPredicted() throws Exception {
    Cli r = Cli.run("validate", "kernels", "--data", data.toString(), "--from", "Tesla V100-PCIE-32GB", "--to",
        "NVIDIA H100 80GB HBM3", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.path("pairs").asInt()).isZero();
    assertThat(j.path("wmape_pct").isNull()).isTrue();
    assertThat(j.path("source_rows").asInt()).isEqualTo(5);
    Cli text = Cli.run("validate", "kernels", "--data", data.toString(), "--from", "Tesla V100-PCIE-32GB", "--to",
        "NVIDIA H100 80GB HBM3");
    assertThat(text.out()).contains("no measurements on NVIDIA H100 80GB HBM3: predictions only");
  }

  static Stream<Arguments> errors() {
    return Stream.of(
        Arguments.of("--data DATA --from Tesla-T5 --to T4", 1,
            "apptrace validate kernels: no GPU named 'Tesla-T5' in the GPU catalogue (nearest: Tesla T4"),
        Arguments.of("--data DATA --from T4 --to H1000", 1, "no GPU named 'H1000'"),
        Arguments.of("--data TMP/nocolumn.csv --from T4 --to P4", 1,
            "TMP/nocolumn.csv: no column 'time_us' (a kernel-times CSV has the columns op, shape, gpu, time_us;"),
        Arguments.of("--data TMP/badtime.csv --from T4 --to P4", 1, "TMP/badtime.csv:2: time_us 'fast' is not a number"),
        Arguments.of("--data TMP/none.csv --from T4 --to P4", 1, "TMP/none.csv: no such file"),
        Arguments.of("--data DATA --from T4 --to P4", 1, "DATA: no rows of Tesla T4 (its catalogued GPUs: Tesla"
            + " V100-PCIE-32GB, NVIDIA A100-PCIE-40GB)"),
        Arguments.of("--data DATA --from V100-PCIE-32GB --to T4 --coefficients TMP/none.yaml", 1,
            "TMP/none.yaml: no such file"),
        Arguments.of("--data DATA --from V100-PCIE-32GB", 2, "give --from GPU and --to GPU"),
        Arguments.of("--data DATA --leave-one-out --from T4 --to P4", 2, "--leave-one-out goes with --all-pairs"),
        Arguments.of("--data DATA --fit", 2, "--fit writes coefficients: give -o OUT.yaml"),
        Arguments.of("--data DATA --all-pairs --predictions TMP/p.csv", 2, "--predictions writes one pair's"),
        Arguments.of("--data DATA --from T4 --to P4 -o TMP/x.yaml", 2, "-o goes with --fit"));
  }

  @ParameterizedTest(name = "validate kernels {0} -> exit {1}")
  @MethodSource("errors")
  void badInputIsOneLineAndBadUsageShowsTheUsage(String args, int exit, String says) {
    String line = args.replace("DATA", data.toString()).replace("TMP", tmp.toString());
    String[] words = ("validate kernels " + line).split(" ");
    Cli r = Cli.run(words);
    assertThat(r.exit()).as(r.err()).isEqualTo(exit);
    assertThat(r.err().lines().findFirst().orElse("")).contains(says.replace("DATA", data.toString())
        .replace("TMP", tmp.toString()));
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
    if (exit == 1) {
      assertThat(r.err().strip().lines().count()).isEqualTo(1);
    } else {
      assertThat(r.err()).contains("Usage:");
    }
  }

  @Test
  void fitRefusesDataWithNothingToFit() {
    Cli fit = Cli.run("validate", "kernels", "--fit", "--data", data.toString(), "-o", tmp.resolve("f.yaml").toString());
    assertThat(fit.exit()).isEqualTo(1);
    assertThat(fit.err()).contains("nothing to fit: no kernel class has 5 measurements of one size");
  }

  /**
   * GEMMs timed as floor + flops / (P32 * 0.5) on two uncapped GPUs: the fit recovers the efficiency
   * 0.5 in every bin that has rows, and validate with those coefficients predicts them exactly.
   */
  @Test
  void fitRecoversAKnownEfficiencyAndValidateReadsItBack() throws Exception {
    StringBuilder csv = new StringBuilder("op,shape,gpu,time_us,flops,kernel_name\n");
    String[][] gpus = {{"Tesla V100-PCIE-32GB", "14e12"}, {"NVIDIA A100-PCIE-40GB", "19.5e12"}};
    for (String[] g : gpus) {
      csv.append("mm,s=0,").append(g[0]).append(",10,1,sgemm\n");
      for (int i = 1; i <= 40; i++) {
        double f = Math.pow(10, 9 + i / 40.0);
        csv.append("mm,s=").append(i).append(',').append(g[0]).append(',')
            .append(10 + f / (Double.parseDouble(g[1]) * 0.5) * 1e6).append(',').append(f).append(",sgemm\n");
      }
    }
    Path d = tmp.resolve("synthetic.csv");
    Files.writeString(d, csv);
    Path out = tmp.resolve("fitted.yaml");
    Cli fit = Cli.run("validate", "kernels", "--fit", "--data", d.toString(), "-o", out.toString());
    assertThat(fit.exit()).as(fit.err()).isZero();
    assertThat(fit.out()).startsWith("wrote " + out + ": coefficients fitted to synthetic.csv");
    io.apptrace.kernel.KernelCoefficients c = io.apptrace.kernel.KernelCoefficients.load(out);
    io.apptrace.kernel.EfficiencyTable t = c.tables().get(io.apptrace.kernel.KernelClass.GEMM);
    for (int b = 0; b < t.samples().length; b++) {
      if (t.samples()[b] > 0) {
        assertThat(t.logEfficiency()[b]).as("bin " + b).isCloseTo(Math.log(0.5), offset(1e-9));
      }
    }
    JsonNode j = JSON.readTree(Cli.run("validate", "kernels", "--data", d.toString(), "--from", "V100-PCIE-32GB",
        "--to", "A100-PCIE-40GB", "--coefficients", out.toString(), "--json").out());
    assertThat(j.path("in_sample").asBoolean()).isTrue();
    assertThat(j.path("pairs").asInt()).isEqualTo(41);
    assertThat(j.path("wmape_pct").asDouble()).isLessThan(0.01);
  }

  /** The figures docs/ACCURACY.md gives for the NeuSight data (skipped without ../shared/realdata). */
  @Test
  void theDocumentedFiguresOnTheNeuSightData() throws Exception {
    Path d = Path.of(System.getProperty("apptrace.realdata.dir", "../shared/realdata"))
        .resolve("neusight-kernels/kernels.csv.gz");
    assumeThat(Files.isRegularFile(d)).as("the NeuSight kernel data is in ../shared/realdata (absent here)").isTrue();
    JsonNode in = JSON.readTree(Cli.run("validate", "kernels", "--data", d.toString(), "--all-pairs", "--json").out());
    assertThat(in.path("in_sample").asBoolean()).isTrue();
    assertThat(in.path("pairs")).hasSize(20);
    assertThat(in.path("mean_wmape_pct").asDouble()).isCloseTo(30.4, offset(0.5));
    assertThat(in.path("mean_baselines_wmape_pct").path("bandwidth_ratio").asDouble()).isCloseTo(57.7, offset(0.1));
    assertThat(in.path("mean_baselines_wmape_pct").path("fp32_ratio").asDouble()).isCloseTo(78.8, offset(0.1));
    assertThat(in.path("pairs_below_both_baselines").asInt()).isEqualTo(15);
    JsonNode out = JSON.readTree(Cli.run("validate", "kernels", "--data", d.toString(), "--all-pairs",
        "--leave-one-out", "--json").out());
    assertThat(out.path("in_sample").asBoolean()).isFalse();
    assertThat(out.path("mean_wmape_pct").asDouble()).isCloseTo(34.7, offset(0.5));
    assertThat(out.path("pairs_below_both_baselines").asInt()).isEqualTo(11);
    assertThat(out.path("mean_by_class_wmape_pct").path("elementwise").path("model").asDouble())
        .isCloseTo(10.4, offset(0.5));
    // the convolutions' own power-cap threshold, fitted without the target: below both baselines
    assertThat(out.path("mean_by_class_wmape_pct").path("conv").path("model").asDouble())
        .isCloseTo(17.2, offset(0.5));
  }
}
