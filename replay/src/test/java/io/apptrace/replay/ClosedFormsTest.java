package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The canonical pattern of docs/REPLAY.md (for each of nS streams a host-to-device chunk, a
 * kernel on it, a device-to-host chunk) replayed with van Werkhoven et al. 2014, Table I's parameters, against the
 * closed forms of van Werkhoven et al. 2014, Fig. 7.
 *
 * <p>The test node: one GPU behind a link whose host-to-device and device-to-host bandwidths are
 * 1 / G_hd and 1 / G_dh exactly (an SMP-type link carries n bytes for n, and its two directions'
 * efficiencies set G_hd and G_dh), with the measured L+o and g of Table I. The operations are
 * issued breadth-first (every host-to-device chunk, then every kernel, then every device-to-host
 * chunk), as van Werkhoven et al. 2014 issue them. Where an equation has one "L+o", the host-to-device value stands for
 * the first transfer of a direction and the device-to-host one for the other.
 */
class ClosedFormsTest {
  // van Werkhoven et al. 2014, Table I, converted to seconds
  static final double L_HD = 0.009420e-3;
  static final double L_DH = 0.009023e-3;
  static final double G_HD = 8.318392e-8 * 1e-3;
  static final double G_DH = 7.924734e-8 * 1e-3;
  static final double GAP_HD = 0.002503e-3;
  static final double GAP_DH = 0.002674e-3;
  static final long B = 64L << 20; // bytes each way
  static final double KERNEL_DOMINANT_T_E = 100e-3;
  static final double TRANSFER_DOMINANT_T_E = 2e-3;

  static Node node(int copyEngines, boolean implicitSync) throws Exception {
    return NodeLoader.parse("table1.yaml", """
        name: table1
        description: van Werkhoven et al. 2014, Table I parameters (PCIe 3.0, GTX Titan) on a device of category %s
        cpus: [{id: cpu0, model: host, cores: 8, numa_node: 0, memory_bandwidth: "50 GB/s"}]
        gpus:
          - {id: gpu0, model: test GPU, memory: "6 GiB", memory_bandwidth: "288 GB/s", copy_engines: %d,
             implicit_sync: %s, concurrent_kernels: false}
        links:
          - {between: [cpu0, gpu0], type: smp, bandwidth: "12.618720073128006 GB/s",
             efficiency: [0.9526761903021641, 1.0]}
        measured:
          timed: gpu   # the closed forms charge L+o and g on the copy engine: the replay's GPU-time view
          latency: {pinned_h2d: "9.420 us", pinned_d2h: "9.023 us"}
          gap: {h2d: "2.503 us", d2h: "2.674 us"}
        """.formatted(implicitSync ? "(a)" : copyEngines == 1 ? "(b)" : "(c)", copyEngines, implicitSync),
        "table1.yaml");
  }

  /** The canonical pattern, breadth-first, then a device synchronization. */
  static ReplayProgram pattern(int nS, double tE) {
    ProgramFixture f = new ProgramFixture();
    List<Integer> streams = new ArrayList<>();
    for (int i = 0; i < nS; i++) {
      streams.add(f.nonBlocking());
    }
    long chunk = B / nS;
    for (int s : streams) {
      f.copy(0, s, TransferKind.PINNED_H2D, chunk);
    }
    for (int s : streams) {
      f.kernel(0, s, "kernel", Math.round(tE / nS * 1e9));
    }
    for (int s : streams) {
      f.copy(0, s, TransferKind.PINNED_D2H, chunk);
    }
    f.syncDevice(0);
    return f.build();
  }

  static double replay(Node n, ReplayProgram p) throws Exception {
    return Replayer.replay(p, n, Replayer.Options.defaults().withSamples(false)).makespanNs() * 1e-9;
  }

  @Test
  void categoryAImplicitSyncOneCopyEngineMatchesEquations1And2() throws Exception {
    Node a = node(1, true);
    for (int nS = 1; nS <= 64; nS++) {
      double tE = KERNEL_DOMINANT_T_E;
      // van Werkhoven et al. 2014, Fig. 7 eq. (1), kernel dominant: L+o + B_hd/nS*G_hd + t_E + L+o + B_dh*G_dh +
      // g*(nS-1)
      double eq1 = L_HD + B / (double) nS * G_HD + tE + L_DH + B * G_DH + GAP_DH * (nS - 1);
      // Within 10%, as the issue allows: implicit synchronization makes an operation wait until every
      // thread block of every earlier kernel has started; the replay waits for those kernels to end,
      // which for kernels that fill the GPU is the same up to their last wave of blocks. The device-to-
      // host chunks then run back to back, as the equation says.
      assertThat(replay(a, pattern(nS, tE))).as("eq. (1), nS = %d", nS).isCloseTo(eq1, withPercentage(10));
      tE = TRANSFER_DOMINANT_T_E;
      // eq. (2), transfers dominant: L+o + B_hd*G_hd + g*(nS-1) + t_E/nS + L+o + B_dh*G_dh + g*(nS-1)
      double eq2 = L_HD + B * G_HD + GAP_HD * (nS - 1) + tE / nS + L_DH + B * G_DH + GAP_DH * (nS - 1);
      assertThat(replay(a, pattern(nS, tE))).as("eq. (2), nS = %d", nS).isCloseTo(eq2, withPercentage(10));
    }
  }

  @Test
  void categoryBOneCopyEngineMatchesEquations3And4() throws Exception {
    Node b = node(1, false);
    for (int nS = 1; nS <= 64; nS++) {
      double tE = KERNEL_DOMINANT_T_E;
      // eq. (3), kernel dominant: L+o + B_hd/nS*G_hd + t_E + L+o + B_dh/nS*G_dh
      double eq3 = L_HD + B / (double) nS * G_HD + tE + L_DH + B / (double) nS * G_DH;
      assertThat(replay(b, pattern(nS, tE))).as("eq. (3), nS = %d", nS).isCloseTo(eq3, withPercentage(1));
      tE = TRANSFER_DOMINANT_T_E;
      // eq. (4), transfers dominant: the one engine moves every host-to-device chunk, then every
      // device-to-host chunk; the last kernel or the first kernel can also set the pace
      double eq4 = Math.max(L_HD + B * G_HD + GAP_HD * (nS - 1) + L_DH + B * G_DH + GAP_DH * (nS - 1),
          Math.max(L_HD + B * G_HD + GAP_HD * (nS - 1) + tE / nS + L_DH + B / (double) nS * G_DH,
              L_HD + B / (double) nS * G_HD + tE / nS + L_DH + B * G_DH + GAP_DH * (nS - 1)));
      assertThat(replay(b, pattern(nS, tE))).as("eq. (4), nS = %d", nS).isCloseTo(eq4, withPercentage(1));
    }
  }

  @Test
  void categoryCTwoCopyEnginesMatchEquation5() throws Exception {
    Node c = node(2, false);
    for (int nS = 1; nS <= 64; nS++) {
      for (double tE : new double[] {KERNEL_DOMINANT_T_E, TRANSFER_DOMINANT_T_E}) {
        // eq. (5): max(L+o + B_hd*G_hd + g*(nS-1) + t_E/nS + L+o + B_dh/nS*G_dh,
        //               L+o + B_hd/nS*G_hd + t_E + L+o + B_dh/nS*G_dh,
        //               L+o + B_hd/nS*G_hd + t_E/nS + L+o + B_dh*G_dh + g*(nS-1))
        double eq5 = Math.max(L_HD + B * G_HD + GAP_HD * (nS - 1) + tE / nS + L_DH + B / (double) nS * G_DH,
            Math.max(L_HD + B / (double) nS * G_HD + tE + L_DH + B / (double) nS * G_DH,
                L_HD + B / (double) nS * G_HD + tE / nS + L_DH + B * G_DH + GAP_DH * (nS - 1)));
        assertThat(replay(c, pattern(nS, tE))).as("eq. (5), nS = %d, t_E = %s", nS, tE)
            .isCloseTo(eq5, withPercentage(1));
      }
    }
  }

  @Test
  void mappedMemoryMatchesEquation6() throws Exception {
    // eq. (6), a kernel that reads and writes host memory directly (zero-copy): the transfers and the
    // computation overlap, and the longest of the three sets the time, plus a fixed overhead each way.
    // (The equation has no nS: one kernel does the whole work.)
    for (int copyEngines : new int[] {1, 2}) {
      Node n = node(copyEngines, false);
      for (double tE : new double[] {KERNEL_DOMINANT_T_E, TRANSFER_DOMINANT_T_E}) {
        ProgramFixture f = new ProgramFixture();
        int s = f.nonBlocking();
        f.mappedKernel(0, s, "zero-copy kernel", Math.round(tE * 1e9), B, B);
        f.syncDevice(0);
        double eq6 = Math.max(L_HD + B * G_HD + L_DH, Math.max(L_HD + tE + L_DH, L_HD + L_DH + B * G_DH));
        assertThat(replay(n, f.build())).as("eq. (6), t_E = %s", tE).isCloseTo(eq6, withPercentage(1));
      }
    }
  }
}
