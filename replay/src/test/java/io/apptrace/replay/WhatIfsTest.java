package io.apptrace.replay;

import static io.apptrace.replay.TimelineFixturesTest.MB;
import static io.apptrace.replay.TimelineFixturesTest.node;
import static io.apptrace.replay.TimelineFixturesTest.replay;
import static io.apptrace.replay.TimelineFixturesTest.times;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import io.apptrace.node.ApiClass;
import io.apptrace.node.Node;
import io.apptrace.node.TransferKind;
import io.apptrace.replay.ProgramValues.Region;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The application what-ifs (docs/REPLAY.md, "Application what-ifs"; {@link WhatIfs}), each on a
 * drawn program and the round numbers of {@link TimelineFixturesTest}: a 1 MB pinned copy takes
 * 10 + 100 us, 0.5 MB 10 + 50 us; kernels take their measured time. Allocations: 1 and 2 host
 * buffers, 10 and 20 device buffers.
 */
class WhatIfsTest {
  private static final int HOST_A = 1;
  private static final int HOST_B = 2;
  private static final int DEV_A = 10;
  private static final int DEV_B = 20;

  private static Region r(int alloc, int version, long offset, long bytes) {
    return new Region(alloc, version, offset, bytes);
  }

  private static ProgramValues values(ReplayProgram p) {
    return new ProgramValues(p.ops().size()).buffer(new ProgramValues.Buffer(HOST_A, MB, true, "malloc"))
        .buffer(new ProgramValues.Buffer(HOST_B, MB, true, "malloc"));
  }

  private static ReplayResult after(List<WhatIf> w, ReplayProgram p, ProgramValues v, Node n) throws Exception {
    return replay(WhatIfs.apply(w, p, v, n).program(), n);
  }

  /**
   * keep-resident: the second copy of host A (unchanged, version 0) into device A, which still holds
   * it (K only read it), is not made.
   *
   * <pre>
   *   before  [copy 0-110][K 110-160][copy 160-270][K2 270-320]
   *   after   [copy 0-110][K 110-160][K2 160-210]
   * </pre>
   */
  @Test
  void keepResidentDropsACopyOfWhatTheDestinationHolds() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.legacy();
    int c1 = f.syncCopy(0, s, TransferKind.PINNED_H2D, MB, 0);
    int k = f.kernel(0, s, "K", 50_000);
    int c2 = f.syncCopy(0, s, TransferKind.PINNED_H2D, MB, 0);
    int k2 = f.kernel(0, s, "K2", 50_000);
    f.syncDevice(0);
    ReplayProgram p = f.build();
    ProgramValues v = values(p).read(c1, r(HOST_A, 0, 0, MB)).write(c1, r(DEV_A, 1, 0, MB))
        .read(k, r(DEV_A, 1, 0, MB)).write(k, r(DEV_B, 1, 0, MB))
        .read(c2, r(HOST_A, 0, 0, MB)).write(c2, r(DEV_A, 2, 0, MB))
        .read(k2, r(DEV_A, 2, 0, MB)).write(k2, r(DEV_B, 2, 0, MB));
    Node n = node(2, 1);
    ReplayResult before = replay(p, n);
    times(before, c2, 160, 270);
    times(before, k2, 270, 320);
    WhatIfs.Applied a = WhatIfs.apply(List.of(new WhatIf.KeepResident()), p, v, n);
    assertThat(a.changed()).containsExactly(c2);
    assertThat(a.notes()).containsExactly("keep-resident: 1 copy not made (976.6 KiB): their destinations held what"
        + " they would copy, as far as the trace shows (it does not record the host's own writes to host memory)");
    ReplayResult r = replay(a.program(), n);
    times(r, k2, 160, 210);
    assertThat(r.makespanNs()).isCloseTo(210_000, offset(1.0));
  }

  /** keep-resident: when K writes device A between the copies, the second copy is needed and stays. */
  @Test
  void keepResidentKeepsACopyWhoseDestinationWasWritten() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.legacy();
    int c1 = f.syncCopy(0, s, TransferKind.PINNED_H2D, MB, 0);
    int k = f.kernel(0, s, "K", 50_000);
    int c2 = f.syncCopy(0, s, TransferKind.PINNED_H2D, MB, 0);
    ReplayProgram p = f.build();
    ProgramValues v = values(p).read(c1, r(HOST_A, 0, 0, MB)).write(c1, r(DEV_A, 1, 0, MB))
        .read(k, r(DEV_A, 1, 0, MB)).write(k, r(DEV_A, 2, 0, MB))
        .read(c2, r(HOST_A, 0, 0, MB)).write(c2, r(DEV_A, 3, 0, MB));
    assertThat(WhatIfs.apply(List.of(new WhatIf.KeepResident()), p, v, node(2, 1)).changed()).isEmpty();
  }

  /**
   * merge-copies: two back-to-back 0.5 MB copies of adjacent halves become one 1 MB copy, one
   * fixed cost instead of two (van Werkhoven et al. 2014, eq. 1).
   *
   * <pre>
   *   before  [copy 0-60][copy 60-120]
   *   after   [copy 0-110]
   * </pre>
   */
  @Test
  void mergeCopiesPaysOneFixedCostForAdjacentCopies() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.legacy();
    int c1 = f.syncCopy(0, s, TransferKind.PINNED_H2D, MB / 2, 0);
    int c2 = f.syncCopy(0, s, TransferKind.PINNED_H2D, MB / 2, 0);
    ReplayProgram p = f.build();
    ProgramValues v = values(p).read(c1, r(HOST_A, 0, 0, MB / 2)).write(c1, r(DEV_A, 1, 0, MB / 2))
        .read(c2, r(HOST_A, 0, MB / 2, MB / 2)).write(c2, r(DEV_A, 1, MB / 2, MB / 2));
    Node n = node(2, 1);
    assertThat(replay(p, n).makespanNs()).isCloseTo(120_000, offset(1.0));
    WhatIfs.Applied a = WhatIfs.apply(List.of(new WhatIf.MergeCopies()), p, v, n);
    assertThat(a.changed()).containsExactly(c1, c2);
    assertThat(a.program().ops().get(c1).bytes()).isEqualTo(MB);
    assertThat(a.notes()).containsExactly("merge-copies: 2 copies merged into 1");
    ReplayResult r = replay(a.program(), n);
    times(r, c1, 0, 110);
    assertThat(r.makespanNs()).isCloseTo(110_000, offset(1.0));
  }

  /**
   * pin-pageable: the pageable copy becomes a pinned one (10 + 100 us), after the buffer's
   * cudaHostRegister, priced from the node's host model for its 1 MB: the copy starts when
   * pinning ends.
   */
  @Test
  void pinPageablePinsEachBufferOnceAndChargesThePinning() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.legacy();
    int c1 = f.syncCopy(0, s, TransferKind.PAGEABLE_H2D, MB, 0);
    int c2 = f.syncCopy(0, s, TransferKind.PAGEABLE_H2D, MB, 0);
    ReplayProgram p = f.build();
    ProgramValues v = values(p).read(c1, r(HOST_A, 0, 0, MB)).write(c1, r(DEV_A, 1, 0, MB))
        .read(c2, r(HOST_A, 0, 0, MB)).write(c2, r(DEV_B, 1, 0, MB));
    Node n = node(2, 1);
    WhatIfs.Applied a = WhatIfs.apply(List.of(new WhatIf.PinPageable()), p, v, n);
    long pin = n.hostOverheads().costNs(ApiClass.HOST_REGISTER, MB);
    assertThat(a.program().ops().get(c1).transfer()).isEqualTo(TransferKind.PINNED_H2D);
    assertThat(a.program().threads().get(0).calls()).extracting(ReplayProgram.Call::name)
        .containsExactly("cudaHostRegister", "cudaMemcpy", "cudaMemcpy");
    ReplayResult r = replay(a.program(), n);
    times(r, c1, pin / 1e3, pin / 1e3 + 110);
    times(r, c2, pin / 1e3 + 110, pin / 1e3 + 220);
    assertThat(a.notes().get(0)).startsWith("pin-pageable: 2 copies made from or to pinned memory; 1 buffer(s) pinned");
  }

  /** pin=ALLOCATION pins that buffer alone; one no pageable copy uses is a one-line error. */
  @Test
  void pinOnePinsOnlyTheNamedAllocation() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.legacy();
    int c1 = f.syncCopy(0, s, TransferKind.PAGEABLE_H2D, MB, 0);
    int c2 = f.syncCopy(0, s, TransferKind.PAGEABLE_H2D, MB, 0);
    ReplayProgram p = f.build();
    ProgramValues v = values(p).read(c1, r(HOST_A, 0, 0, MB)).write(c1, r(DEV_A, 1, 0, MB))
        .read(c2, r(HOST_B, 0, 0, MB)).write(c2, r(DEV_B, 1, 0, MB));
    WhatIfs.Applied a = WhatIfs.apply(List.of(WhatIf.parse("pin=2")), p, v, node(2, 1));
    assertThat(a.changed()).containsExactly(c2);
    assertThatThrownBy(() -> WhatIfs.apply(List.of(WhatIf.parse("pin=10")), p, v, node(2, 1)))
        .hasMessage("--what-if pin=10: allocation 10 is no pageable buffer a copy uses (see 'apptrace graph --json':"
            + " the 'alloc' of a copy's host value)");
  }

  /**
   * async-copies: the synchronous copy goes to a copy stream and the host goes on at once; K,
   * which reads what it wrote, waits for it by an event.
   *
   * <pre>
   *   before  [copy 0-110]  host 110-210  [K 210-260]
   *   after   [copy 0-110]  host 0-100    [K 110-160]
   * </pre>
   */
  @Test
  void asyncCopiesLetTheHostGoOnAndKeepTheKernelAfterItsInput() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.legacy();
    int c = f.syncCopy(0, s, TransferKind.PINNED_H2D, MB, 0);
    f.host(0, 100_000);
    int k = f.kernel(0, s, "K", 50_000);
    f.syncDevice(0);
    ReplayProgram p = f.build();
    ProgramValues v = values(p).read(c, r(HOST_A, 0, 0, MB)).write(c, r(DEV_A, 1, 0, MB))
        .read(k, r(DEV_A, 1, 0, MB)).write(k, r(DEV_B, 1, 0, MB));
    Node n = node(2, 1);
    ReplayResult before = replay(p, n);
    times(before, k, 210, 260);
    WhatIfs.Applied a = WhatIfs.apply(List.of(new WhatIf.AsyncCopies()), p, v, n);
    assertThat(a.program().ops().get(c).synchronous()).isFalse();
    ReplayResult r = replay(a.program(), n);
    times(r, c, 0, 110);
    times(r, k, 110, 160);
    assertThat(a.notes()).containsExactly("async-copies: 1 synchronous copy to a GPU made asynchronous on a copy"
        + " stream");
  }

  /**
   * streams=2: two chains that share no memory (copy A, K_A; copy B, K_B), issued to one stream,
   * are dealt to two streams: copy B no longer waits for K_A, and K_A runs while copy B moves.
   *
   * <pre>
   *   before  [copy A 0-110][K_A 110-160][copy B 160-270][K_B 270-320]
   *   after   [copy A 0-110][K_A 110-160]
   *                         [copy B 110-220][K_B 220-270]
   * </pre>
   */
  @Test
  void streamsSpreadIndependentChains() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.nonBlocking();
    int ca = f.copy(0, s, TransferKind.PINNED_H2D, MB);
    int ka = f.kernel(0, s, "K_A", 50_000);
    int cb = f.copy(0, s, TransferKind.PINNED_H2D, MB);
    int kb = f.kernel(0, s, "K_B", 50_000);
    f.syncStream(0, s);
    ReplayProgram p = f.build();
    ProgramValues v = values(p).read(ca, r(HOST_A, 0, 0, MB)).write(ca, r(DEV_A, 1, 0, MB))
        .read(ka, r(DEV_A, 1, 0, MB)).write(ka, r(DEV_A, 2, 0, MB))
        .read(cb, r(HOST_B, 0, 0, MB)).write(cb, r(DEV_B, 1, 0, MB))
        .read(kb, r(DEV_B, 1, 0, MB)).write(kb, r(DEV_B, 2, 0, MB));
    Node n = node(2, 1);
    assertThat(replay(p, n).makespanNs()).isCloseTo(320_000, offset(1.0));
    WhatIfs.Applied a = WhatIfs.apply(List.of(WhatIf.parse("streams=2")), p, v, n);
    assertThat(a.program().ops().get(ca).stream()).isNotEqualTo(a.program().ops().get(cb).stream());
    assertThat(a.program().ops().get(ca).stream()).isEqualTo(a.program().ops().get(ka).stream());
    ReplayResult r = replay(a.program(), n);
    times(r, ca, 0, 110);
    times(r, ka, 110, 160);
    times(r, cb, 110, 220);
    times(r, kb, 220, 270);
    assertThat(a.notes()).containsExactly("streams=2: 4 operation(s) in 2 independent chain(s) dealt to 2 stream(s)");
  }

  @Test
  void anUnknownWhatIfIsOneLineListingTheKnownOnes() {
    assertThatThrownBy(() -> WhatIf.parse("faster")).hasMessage("--what-if 'faster' is not a what-if (known:"
        + " pin-pageable, pin=ALLOCATION, async-copies, streams=N, keep-resident, merge-copies, prefetch-managed,"
        + " graph-launch)");
    assertThatThrownBy(() -> WhatIf.parse("streams=0")).hasMessage("--what-if 'streams=0': '0' is not a stream count"
        + " from 1 to 1024");
  }

  /**
   * prefetch-managed: k1 would fault in 1 MiB of managed memory (allocation 7) the host holds; a
   * prefetch on its stream moves it first, as a copy priced as a prefetch, and k1 then takes its
   * own time only; k2 finds it in place and gets no prefetch. On ac922 (ManagedResidencyTest's
   * node): before, k1 is its 100 us plus the faults of Pearson 2018, Table 5.5.
   *
   * <pre>
   *   before  [k1 100 us + faults][k2 100 us]
   *   after   [prefetch 1 MiB][k1 100 us][k2 100 us]
   * </pre>
   */
  @Test
  void prefetchManagedMovesTheDataBeforeTheKernelThatWouldFaultIt() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int k1 = f.kernel(0, s, "k1", 100_000);
    int k2 = f.kernel(0, s, "k2", 100_000);
    f.syncDevice(0);
    long mib = 1 << 20;
    ReplayProgram p = f.build().withManaged(List.of(new ReplayProgram.Managed.Access(k1, 7, mib, mib, 0, false, true),
        new ReplayProgram.Managed.Access(k2, 7, mib, mib, 0, false, true)));
    Node ac922 = io.apptrace.node.NodeLoader.resolve("ac922");
    Replayer.Options keep = Replayer.Options.defaults().withKernelPolicy(io.apptrace.cost.KernelModel.Policy.MEASURED,
        java.util.Optional.empty());
    ReplayResult before = Replayer.replay(p, ac922, keep);
    assertThat(before.ops().get(k1).durationNs()).isGreaterThan(100_000 + 16 * 24_100.0);
    WhatIfs.Applied a = WhatIfs.apply(List.of(WhatIf.parse("prefetch-managed")), p, new ProgramValues(2), ac922);
    assertThat(a.program().ops()).hasSize(3);
    ReplayProgram.Op prefetch = a.program().ops().get(2);
    assertThat(prefetch.transfer()).isEqualTo(TransferKind.PREFETCH_H2D);
    assertThat(prefetch.bytes()).isEqualTo(mib);
    assertThat(a.program().threads().get(0).calls()).extracting(ReplayProgram.Call::name)
        .startsWith("cudaMemPrefetchAsync", "cudaLaunchKernel", "cudaLaunchKernel");
    assertThat(a.notes()).containsExactly("prefetch-managed: 1 prefetch(es) of managed memory (1 MiB) issued before the"
        + " kernels that would fault it in");
    ReplayResult r = Replayer.replay(a.program(), ac922, keep);
    double copy = r.ops().get(2).durationNs();
    assertThat(r.ops().get(k1).startNs()).isCloseTo(copy, offset(1.0));
    assertThat(r.ops().get(k1).durationNs()).isCloseTo(100_000, offset(1.0));
    assertThat(r.makespanNs()).isLessThan(before.makespanNs());
  }
}
