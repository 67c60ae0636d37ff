package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.apptrace.cost.TransferModel;
import io.apptrace.graph.CallLog;
import io.apptrace.node.Node;
import io.apptrace.node.NodeLoader;
import io.apptrace.node.TransferKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "Managed memory": where managed allocations are resident as the program runs,
 * prefetches as copies, page-fault migration for kernels that reach data resident elsewhere
 * (Pearson 2018, sec. 5.2, Table 5.5: {@code T = ceil(n / granularity) * t_fault + n /
 * BW_eff(granularity)}), and what the trace cannot see said, not priced.
 */
class ManagedResidencyTest {
  private static final long MIB = 1 << 20;
  private static final long KERNEL_NS = 100_000;

  /**
   * Scenario "faults, then resident": a kernel reaches 1 MiB of managed memory the host wrote
   * (allocation 7), then a second kernel reaches it again.
   *
   * <pre>
   *   stream 0:  [kernel k1 100 us + faults 1 MiB h2d][kernel k2 100 us]
   *   allocation 7: host ----------------------------> gpu0 ----------->
   * </pre>
   */
  @Test
  void aKernelFaultsInWhatTheHostHoldsAndTheNextFindsItInPlace() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int k1 = f.kernel(0, s, "k1", KERNEL_NS);
    int k2 = f.kernel(0, s, "k2", KERNEL_NS);
    f.syncDevice(0);
    ReplayProgram p = f.build().withManaged(List.of(use(k1, 7, MIB), use(k2, 7, MIB)));
    Node ac922 = NodeLoader.resolve("ac922");
    ReplayResult r = Replayer.replay(p, ac922, keepKernels());
    double faults = new TransferModel(ac922).pageFaultMigration(TransferKind.Way.H2D, MIB,
        TransferModel.Endpoints.gpu(0)).seconds() * 1e9;
    // Table 5.5, AC922 CPU -> GPU: 24.1 us per fault, 16 faults of 64 KiB, plus 1 MiB over NVLink
    assertThat(faults).isGreaterThan(16 * 24_100.0).isLessThan(16 * 24_100.0 + 100_000);
    assertThat(r.ops().get(k1).durationNs()).isCloseTo(KERNEL_NS + faults, within(1.0));
    assertThat(r.ops().get(k2).durationNs()).isCloseTo(KERNEL_NS, within(1.0));
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("1 operation(s) reach 1 MiB resident elsewhere")
        .contains("Pearson 2018, Table 5.5"));
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("1 allocation(s) (1 MiB) end on a GPU")
        .contains("not priced"));
  }

  /**
   * Scenario "prefetched": a prefetch to gpu0, the kernel, a prefetch back to the host, and a
   * second prefetch back that finds the data in place.
   *
   * <pre>
   *   stream 0:  [prefetch h2d 1 MiB][kernel 100 us][prefetch d2h 1 MiB][prefetch d2h: in place]
   * </pre>
   */
  @Test
  void aPrefetchIsACopyAndSparesTheKernelItsFaults() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int in = f.copy(0, s, TransferKind.PREFETCH_H2D, MIB);
    int k = f.kernel(0, s, "k", KERNEL_NS);
    int out = f.copy(0, s, TransferKind.PREFETCH_D2H, MIB);
    int again = f.copy(0, s, TransferKind.PREFETCH_D2H, MIB);
    f.syncDevice(0);
    ReplayProgram p = f.build().withManaged(List.of(prefetch(in, 7, 0), use(k, 7, MIB), prefetch(out, 7, -1),
        prefetch(again, 7, -1)));
    Node dgx1 = NodeLoader.resolve("dgx1");
    ReplayResult r = Replayer.replay(p, dgx1, keepKernels());
    TransferModel m = new TransferModel(dgx1);
    double h2d = m.estimate(TransferKind.PREFETCH_H2D, MIB, TransferModel.Endpoints.gpu(0),
        TransferModel.Setting.MEASURED).seconds() * 1e9;
    assertThat(r.ops().get(in).durationNs()).isCloseTo(h2d, within(2.0));
    assertThat(r.ops().get(k).durationNs()).isCloseTo(KERNEL_NS, within(1.0));
    // in place: its fixed part only, far below a copy of 1 MiB
    assertThat(r.ops().get(again).durationNs()).isLessThan(r.ops().get(out).durationNs() / 10);
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("3 prefetch(es) priced as copies, 2 MiB moved; 1"
        + " found the data in place"));
    assertThat(r.notes()).noneSatisfy(n -> assertThat(n).contains("end on a GPU"));
  }

  /** A node without measured fault latencies prices the migration as a pinned copy and says it is a lower bound. */
  @Test
  void withoutFaultLatenciesTheMigrationIsALowerBoundAndSaysSo() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int k = f.kernel(0, s, "k", KERNEL_NS);
    ReplayProgram p = f.build().withManaged(List.of(use(k, 7, MIB)));
    Node h100 = NodeLoader.resolve("dgx-h100");
    assertThat(h100.measured().pageFaults().cpuToGpu()).as("the scenario needs a node without them").isEmpty();
    ReplayResult r = Replayer.replay(p, h100, keepKernels());
    double pinned = new TransferModel(h100).estimate(TransferKind.PINNED_H2D, MIB, TransferModel.Endpoints.gpu(0),
        TransferModel.Setting.MEASURED).seconds() * 1e9;
    assertThat(r.ops().get(k).durationNs()).isCloseTo(KERNEL_NS + pinned, within(1.0));
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("dgx-h100 has no measured page-fault latency")
        .contains("a lower bound"));
  }

  /**
   * A region of interest that starts after the data was prefetched: the prefetch outside the region
   * is not replayed, but the data is on the GPU when the region starts, so its kernel does not fault.
   */
  @Test
  void anAccessBeforeTheRegionStillMovesTheData() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int in = f.copy(0, s, TransferKind.PREFETCH_H2D, MIB);
    f.syncDevice(0);
    f.host(0, 10_000_000);
    int k = f.kernel(0, s, "k", KERNEL_NS);
    f.syncDevice(0);
    ReplayProgram p = f.build().withManaged(List.of(prefetch(in, 7, 0), use(k, 7, MIB)))
        .withAnnotations(List.of(new CallLog.Range(0, "step", "", 10_000_000, 20_000_000)), List.of());
    ReplayProgram cut = RegionOfInterest.range(p, "step").cut(p);
    assertThat(cut.ops()).hasSize(1);
    ReplayResult r = Replayer.replay(cut, NodeLoader.resolve("ac922"), keepKernels());
    assertThat(r.ops().get(0).durationNs()).isCloseTo(KERNEL_NS, within(1.0));
  }

  /**
   * Scenario "host reads after a synchronization": a kernel writes 1 MiB of managed memory on gpu0,
   * the host synchronizes and (assumed) reads it, so it migrates back by page faults in the
   * thread's time after the call; the next kernel faults it in again. With {@code
   * --managed-host-reads none} the host time is not added and the second kernel finds the data in
   * place.
   *
   * <pre>
   *   stream 0:  [k1 + faults in]                      [k2 + faults in]
   *   host:      launch k1 | sync ... | reads: faults back | launch k2 | sync
   * </pre>
   */
  @Test
  void theHostReadsWhatTheGpuWroteAfterASynchronization() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    int k1 = f.kernel(0, s, "k1", KERNEL_NS);
    f.syncDevice(0); // call 1 of thread 0
    int k2 = f.kernel(0, s, "k2", KERNEL_NS);
    f.syncDevice(0);
    ReplayProgram p = f.build().withManaged(List.of(use(k1, 7, MIB), new ReplayProgram.Managed.HostSync(0, 1),
        use(k2, 7, MIB), new ReplayProgram.Managed.HostSync(0, 3)));
    Node ac922 = NodeLoader.resolve("ac922");
    TransferModel m = new TransferModel(ac922);
    double in = m.pageFaultMigration(TransferKind.Way.H2D, MIB, TransferModel.Endpoints.gpu(0)).seconds() * 1e9;
    double back = m.pageFaultMigration(TransferKind.Way.D2H, MIB, TransferModel.Endpoints.gpu(0)).seconds() * 1e9;
    // Table 5.5, AC922 CPU <- GPU: 27.4 us per fault, 16 faults
    assertThat(back).isGreaterThan(16 * 27_400.0);
    ReplayResult reads = Replayer.replay(p, ac922, keepKernels());
    ReplayResult none = Replayer.replay(p, ac922, keepKernels().withManagedHostReads(ManagedHostReads.NONE));
    assertThat(reads.ops().get(k2).durationNs()).isCloseTo(KERNEL_NS + in, within(1.0));
    assertThat(none.ops().get(k2).durationNs()).isCloseTo(KERNEL_NS, within(1.0));
    // k2 starts later by the read-back after the first synchronization and its own faults; after the
    // second synchronization the thread has no call left, so nothing more is added
    assertThat(reads.makespanNs() - none.makespanNs()).isCloseTo(back + in, within(2.0));
    assertThat(reads.notes()).anySatisfy(n -> assertThat(n).contains("1 MiB migrate back after 1 call(s)"));
    assertThat(none.notes()).anySatisfy(n -> assertThat(n).contains("1 allocation(s) (1 MiB) end on a GPU;"));
  }

  /** cudaMemAdvise is recorded but not modelled: the report says so instead of ignoring it silently. */
  @Test
  void adviceIsNamedAsNotModelled() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    f.api(0, "cudaMemAdvise", 1_000, 0);
    int k = f.kernel(0, s, "k", KERNEL_NS);
    ReplayProgram p = f.build().withManaged(List.of(use(k, 7, MIB)));
    ReplayResult r = Replayer.replay(p, NodeLoader.resolve("ac922"), keepKernels());
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("1 cudaMemAdvise call(s) not modelled"));
  }

  /**
   * Under --keep-measured an operation with a measured time keeps it: it already holds its faults.
   * The kernel reaching 1 MiB the host holds takes its measured 100 us, where modelled it would add
   * the migration.
   *
   * <pre>
   *   --keep-measured:  [k1 100 us]        modelled:  [k1 100 us + faults 1 MiB h2d]
   * </pre>
   */
  @Test
  void underKeepMeasuredAnOperationKeepsItsMeasuredTimeWhichHoldsItsFaults() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int k1 = f.kernel(0, f.blocking(), "k1", KERNEL_NS);
    ReplayProgram p = f.build().withManaged(List.of(use(k1, 7, MIB)));
    Node ac922 = NodeLoader.resolve("ac922");
    ReplayResult kept = Replayer.replay(p, ac922, keepKernels().withKeepMeasured(true));
    assertThat(kept.ops().get(k1).durationNs()).isEqualTo((double) KERNEL_NS);
    ReplayResult modelled = Replayer.replay(p, ac922, keepKernels());
    assertThat(modelled.ops().get(k1).durationNs()).isGreaterThan(KERNEL_NS + 16 * 24_100.0);
  }

  private static ReplayProgram.Managed use(int op, int allocation, long bytes) {
    return new ReplayProgram.Managed.Access(op, allocation, bytes, bytes, 0, false, true);
  }

  private static ReplayProgram.Managed prefetch(int op, int allocation, int device) {
    return new ReplayProgram.Managed.Access(op, allocation, MIB, MIB, device, true, false);
  }

  /** Kernels keep their measured time, so that what the rule adds is all that changes. */
  private static Replayer.Options keepKernels() {
    return Replayer.Options.defaults().withKernelPolicy(io.apptrace.cost.KernelModel.Policy.MEASURED,
        java.util.Optional.empty());
  }
}
