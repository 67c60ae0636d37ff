package io.apptrace.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Occupancy and waves, Yu et al. 2021 (Habitat) sec. 3: blocks per SM from the per-SM limits, waves
 * = ceil(blocks / (occupancy * SMs)).
 */
class WaveScalingTest {
  /**
   * The elementwise launch of the NeuSight data, 2077 blocks of 128 threads:
   *
   * <pre>
   *   Big   (100 SMs, 2048 threads, 32 blocks per SM): occupancy min(32, 2048/128 = 16) = 16
   *         1600 blocks a wave:  |1600|477 .....|          -> 2 waves
   *   Small ( 40 SMs, 1024 threads, 16 blocks per SM): occupancy min(16, 1024/128 = 8) = 8
   *          320 blocks a wave:  |320|320|320|320|320|320|157| -> 7 waves
   * </pre>
   */
  @Test
  void occupancyIsTheLeastOfThePerSmLimitsAndWavesRoundUp() {
    assertThat(WaveScaling.occupancy(TestGpus.big(), 128, OptionalInt.empty(), OptionalDouble.empty())).hasValue(16);
    assertThat(WaveScaling.occupancy(TestGpus.small(), 128, OptionalInt.empty(), OptionalDouble.empty())).hasValue(8);
    assertThat(WaveScaling.waves(2077, 16, 100)).isEqualTo(2);
    assertThat(WaveScaling.waves(2077, 8, 40)).isEqualTo(7);
    assertThat(WaveScaling.waves(1600, 16, 100)).isEqualTo(1);
    assertThat(WaveScaling.waves(1601, 16, 100)).isEqualTo(2);
  }

  @Test
  void occupancyCountsRegistersAndSharedMemoryWhenKnown() {
    // 256 threads of 128 registers: 32768 a block, 2 in 65536; 40 KiB of shared memory: 2 in 96 KiB
    assertThat(WaveScaling.occupancy(TestGpus.big(), 256, OptionalInt.of(128), OptionalDouble.empty())).hasValue(2);
    assertThat(WaveScaling.occupancy(TestGpus.big(), 256, OptionalInt.empty(), OptionalDouble.of(40 * 1024)))
        .hasValue(2);
    assertThat(WaveScaling.occupancy(TestGpus.big(), 256, OptionalInt.of(32), OptionalDouble.of(20 * 1024)))
        .as("threads allow 8, registers 8, shared memory 4").hasValue(4);
    // a block larger than an SM holds is still one block
    assertThat(WaveScaling.occupancy(TestGpus.small(), 2048, OptionalInt.empty(), OptionalDouble.empty())).hasValue(1);
  }

  @Test
  void blocksPerSmCountTheLastWaveFull() {
    KernelFacts f = KernelFacts.of("k", 1e-3).withLaunch(new Dim3(2077, 1, 1), new Dim3(128, 1, 1));
    assertThat(WaveScaling.blocksPerSm(f, TestGpus.big())).hasValue(2 * 16.0);
    assertThat(WaveScaling.blocksPerSm(f, TestGpus.small())).hasValue(7 * 8.0);
    assertThat(WaveScaling.blocksPerSm(KernelFacts.of("k", 1e-3), TestGpus.big())).isEmpty();
  }

  /**
   * Habitat's compute ratio for a compute-bound kernel (g = 0): (B_to / (P_to / SMs_to)) /
   * (B_from / (P_from / SMs_from)), floor kept. Big to Small: Small is power-capped at x / 1.4 =
   * 0.729 / 1.4 = 0.521 of 8 TFLOP/s.
   */
  @Test
  void habitatWaveScalingOfAComputeBoundKernel() {
    KernelFacts f = KernelFacts.of("volta_sgemm_128x64_nn", 102e-6).withFloorSeconds(2e-6)
        .withLaunch(new Dim3(2077, 1, 1), new Dim3(128, 1, 1));
    double capSmall = (70.0 / 8 / 12) / 1.4;
    double perSmBig = 10e12 / 100;
    double perSmSmall = 8e12 * capSmall / 40;
    double rc = (7 * 8 / perSmSmall) / (2 * 16 / perSmBig);
    assertThat(KernelAlternatives.habitatWaves(f, TestGpus.big(), TestGpus.small(), 1.4))
        .isCloseTo(2e-6 + 100e-6 * rc, org.assertj.core.data.Offset.offset(1e-12));
  }
}
