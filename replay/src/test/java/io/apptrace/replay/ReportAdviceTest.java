package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.Node;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the report advises (docs/REPLAY.md, "What it reports"): for copies from pageable memory the
 * saving replayed from pinned memory (rule class {@link PinPageable}) and after how many copies
 * pinning pays for itself; for copy/compute pipelines the best stream count of van Werkhoven et al.
 * 2014 (sec. VI), within the program's independent copy-kernel-copy chains ({@link
 * ReplayReport#advice}).
 */
class ReportAdviceTest {
  /**
   * A synchronous 1 MB copy to pageable memory takes 10 + 2 x 10^6 / 20,000 + 10^6 / 10,000 = 210 us
   * on the round-number node; replayed from pinned memory the program takes 110 us: 100 us less
   * (47.6%). Pinning a 1 MB buffer costs host_register's 880 us + 696 us per MiB x 0.954 MiB =
   * 1,543.8 us, so it pays for itself after 15.4 copies.
   *
   * <pre>
   *   pageable:  [cudaMemcpy 10|200]          pinned:  [cudaMemcpy 10|100]
   * </pre>
   */
  @Test
  void pinningIsAdvisedWithItsSavingReplayedAndTheCopiesAfterWhichItPays() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int legacy = f.legacy();
    f.syncCopy(0, legacy, TransferKind.PAGEABLE_D2H, TimelineFixturesTest.MB, 0);
    ReplayProgram p = f.build();
    Node n = TimelineFixturesTest.node(1, 1);
    ReplayResult r = TimelineFixturesTest.replay(p, n);
    assertThat(r.makespanNs()).isEqualTo(210_000.0);
    assertThat(TimelineFixturesTest.replay(PinPageable.of(p), n).makespanNs()).isEqualTo(110_000.0);
    assertThat(ReplayReport.advice(r)).anySatisfy(a -> assertThat(a).contains("(47.6%)")
        .contains("it pays for itself after about 15.4 copies"));
  }

  /**
   * Pinning is not advised when the replay from pinned memory does not shrink the makespan: a
   * pageable copy beside a 1 ms kernel that sets it.
   *
   * <pre>
   *   s1  [K 0-1000]
   *   s2  [pageable copy 0-210]
   * </pre>
   */
  @Test
  void pinningIsNotAdvisedWhenTheMakespanDoesNotShrink() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.kernel(0, f.nonBlocking(), "K", 1_000_000);
    f.copy(0, f.nonBlocking(), TransferKind.PAGEABLE_H2D, TimelineFixturesTest.MB);
    f.syncDevice(0);
    ReplayResult r = TimelineFixturesTest.replay(f.build(), TimelineFixturesTest.node(1, 1));
    assertThat(ReplayReport.advice(r)).anySatisfy(a -> assertThat(a).contains("so pinning is not advised"))
        .noneSatisfy(a -> assertThat(a).contains("pays for itself"));
  }

  /**
   * The canonical pattern over {@code streams} streams of {@code chainsPerStream} chains each: per
   * chain a host-to-device chunk of B / chains bytes, a kernel of t_E / chains, a device-to-host
   * chunk.
   */
  static ReplayProgram chains(int streams, int chainsPerStream, double tE) {
    ProgramFixture f = new ProgramFixture();
    List<Integer> ss = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      ss.add(f.nonBlocking());
    }
    int all = streams * chainsPerStream;
    long chunk = ClosedFormsTest.B / all;
    for (int c = 0; c < chainsPerStream; c++) {
      for (int s : ss) {
        f.copy(0, s, TransferKind.PINNED_H2D, chunk);
        f.kernel(0, s, "kernel", Math.round(tE / all * 1e9));
        f.copy(0, s, TransferKind.PINNED_D2H, chunk);
      }
    }
    f.syncDevice(0);
    return f.build();
  }

  /**
   * On a device of category (c) (two copy engines, no implicit synchronization) with transfers
   * dominating, the best stream count is about sqrt((B_hd * G_hd + t_E) / g) when B_hd = B_dh: with
   * van Werkhoven et al. 2014, Table I's G_hd and g (the smaller gap, 2.503 us), 64 MiB each way and
   * t_E = 2 ms, sqrt((67,108,864 x 8.318392e-11 + 0.002) / 2.503e-6) = 55.0: about 55 streams, within
   * the program's 64 chains; it uses 2. On category (a) with kernels dominating (t_E = 100 ms) it is
   * sqrt(B_hd * G_hd / g) = 47.2: about 47.
   *
   * <pre>
   *   s1  [h2d][K][d2h] [h2d][K][d2h] ... 32 chains
   *   s2  [h2d][K][d2h] [h2d][K][d2h] ... 32 chains
   * </pre>
   */
  @Test
  void theBestStreamCountIsVanWerkhovensEstimateWithinTheProgramsChains() throws Exception {
    double c = Math.sqrt((ClosedFormsTest.B * ClosedFormsTest.G_HD + 2e-3) / ClosedFormsTest.GAP_HD);
    assertThat(Math.round(c)).isEqualTo(55);
    ReplayResult rc = Replayer.replay(chains(2, 32, 2e-3), ClosedFormsTest.node(2, false),
        Replayer.Options.defaults().withSamples(false));
    assertThat(ReplayReport.advice(rc)).anySatisfy(a -> assertThat(a).contains("category c")
        .contains("transfers dominate").contains("about 55 streams for its 64 independent chains (you use 2"));
    double a = Math.sqrt(ClosedFormsTest.B * ClosedFormsTest.G_HD / ClosedFormsTest.GAP_HD);
    assertThat(Math.round(a)).isEqualTo(47);
    ReplayResult ra = Replayer.replay(chains(2, 32, 100e-3), ClosedFormsTest.node(1, true),
        Replayer.Options.defaults().withSamples(false));
    assertThat(ReplayReport.advice(ra)).anySatisfy(x -> assertThat(x).contains("category a")
        .contains("kernels dominate").contains("(sqrt(B_hd * G_hd / g)): about 47 streams for its 64 independent"));
  }

  /**
   * The advice never asks for more streams than the program has independent copy-kernel-copy
   * chains: four streams of one chain each, where the estimate is about 55, get none.
   *
   * <pre>
   *   s1..s4  [h2d 16 MiB][K 0.5 ms][d2h 16 MiB]
   * </pre>
   */
  @Test
  void noStreamCountIsAdvisedBeyondTheProgramsIndependentChains() throws Exception {
    ReplayResult r = Replayer.replay(chains(4, 1, 2e-3), ClosedFormsTest.node(2, false),
        Replayer.Options.defaults().withSamples(false));
    assertThat(ReplayReport.advice(r)).anySatisfy(a -> assertThat(a).contains("(about 55) needs the data split into"
        + " more pieces than the 4 independent copy-kernel-copy chains").contains("no stream count is advised"));
  }
}
