package io.apptrace.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.util.Optional;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Fitted tables: medians per bin, gaps filled, interpolation between bin centres. */
class EfficiencyTableTest {
  /**
   * <pre>
   *   bins of width 1 from 0:   [0,1)   [1,2)   [2,3)   [3,4)
   *   samples (ln e):           5 x -1    -      2 rows  5 x -3
   *   fitted:                    -1      -2      -2.5     -3      (bin 1 filled on the line, bin 2 too)
   * </pre>
   */
  @Test
  void binsTakeTheMedianAndGapsTheLineBetweenNeighbours() {
    double[] x = {0.1, 0.2, 0.3, 0.4, 0.5, 2.5, 2.6, 3.1, 3.2, 3.3, 3.4, 9.0};
    double[] y = {-1, -1, -1, -1, -1, 0, 0, -3, -3, -3, -3, -3};
    EfficiencyTable t = EfficiencyTable.fit("x", 0, 1, 4, x, y, x.length);
    assertThat(t.logEfficiency()).containsExactly(new double[] {-1, -5.0 / 3, -7.0 / 3, -3}, offset(1e-12));
    assertThat(t.samples()).containsExactly(5, 0, 0, 5);
    assertThat(t.efficiency(0.5)).isCloseTo(Math.exp(-1), offset(1e-12));
    assertThat(t.efficiency(-7)).as("held below the first centre").isCloseTo(Math.exp(-1), offset(1e-12));
    assertThat(t.efficiency(1.0)).as("halfway between the first two centres")
        .isCloseTo(Math.exp((-1 - 5.0 / 3) / 2), offset(1e-12));
    assertThat(t.efficiency(50)).isCloseTo(Math.exp(-3), offset(1e-12));
  }

  @Test
  void aTableWithNoFullBinIsRefused() {
    assertThatThrownBy(() -> EfficiencyTable.fit("x", 0, 1, 3, new double[] {1}, new double[] {0}, 1))
        .hasMessageContaining("no bin has 5 measurements");
  }

  @Test
  void coefficientsReadBackExactlyWhatWasWritten() throws Exception {
    KernelCoefficients c = new KernelCoefficients(1.35, 1.05, Map.of(KernelClass.GEMM, EfficiencyTable.fit("log10(x)", 3,
        0.25, 3, new double[] {3.1, 3.1, 3.1, 3.1, 3.1}, new double[] {-0.123456789, -0.2, -0.3, -0.4, -0.5}, 5)),
        Optional.of(new KernelCoefficients.FittedTo("k.csv", "ab12", java.util.List.of("A \"1\"", "B"),
            java.util.List.of("C"))));
    KernelCoefficients back = KernelCoefficients.parse("c.yaml", c.toYaml("apptrace validate kernels --fit"));
    assertThat(back).isEqualTo(c);
  }

  @Test
  void aFileWithoutTheConvolutionsThresholdTakesTheGemmsOne() throws Exception {
    KernelCoefficients c = KernelCoefficients.parse("c.yaml", "power_cap_threshold: 1.3\ntables: {}\n");
    assertThat(c.convPowerCapThreshold()).isEqualTo(1.3);
    assertThatThrownBy(() -> KernelCoefficients.parse("c.yaml",
        "power_cap_threshold: 1.3\nconv_power_cap_threshold: 0\ntables: {}\n"))
        .hasMessageContaining("c.yaml: the convolutions' power-cap threshold must be more than zero");
  }

  @Test
  void aBadCoefficientsFileNamesTheKey() {
    assertThatThrownBy(() -> KernelCoefficients.parse("c.yaml", "power_cap_threshold: high\ntables: {}\n"))
        .isInstanceOf(CoefficientsException.class)
        .hasMessage("c.yaml: power_cap_threshold: expected a number, found high");
    assertThatThrownBy(() -> KernelCoefficients.parse("c.yaml", "power_cap_threshold: 1\ntables: {gem: {}}\n"))
        .hasMessageContaining("c.yaml: tables.gem: not a kernel class");
  }

  @Test
  void theBundledCoefficientsLoadAndSayWhatTheyWereFittedTo() {
    KernelCoefficients c = KernelCoefficients.bundled();
    assertThat(c.tables()).containsKeys(KernelClass.GEMM, KernelClass.ELEMENTWISE, KernelClass.REDUCTION);
    assertThat(c.fittedTo()).isPresent();
    assertThat(c.fittedTo().get().gpus()).hasSize(5);
  }
}
