package io.apptrace.calibrate;

import io.apptrace.calibrate.CalibrationResult.CallSeries;
import io.apptrace.calibrate.CalibrationResult.MemsetSeries;
import io.apptrace.calibrate.CalibrationResult.Series;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import io.apptrace.calibrate.CalibrationResult.Skipped;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The benchmarks of a calibration, in the order they run, and what they measured. Copies run for
 * every NUMA node and GPU (and every ordered GPU pair, with peer access on and off), then memsets on
 * every GPU, then the host-overhead benchmarks (CUDA calls on GPU 0 and its local NUMA node), before
 * the gap and page-fault benchmarks, which use GPU 0 and its local NUMA node.
 */
final class Plan {
  /** A benchmark that cannot run, and why (not an error of the runtime). */
  static final class NotRun extends Exception {
    private static final long serialVersionUID = 1L;

    NotRun(String why) {
      super(why);
    }
  }

  /** A benchmark's work; it reports each size done. */
  interface Action {
    void run(CopyBenchmarks.Tick tick) throws CudaException, NotRun;
  }

  /** @param units its share of the progress (its sizes) */
  record Step(String benchmark, String where, int units, Action action) {
    String label() {
      return benchmark + " " + where;
    }
  }

  /** The copy benchmarks between host memory and a GPU, in the order they run. */
  static final List<Benchmark> HOST_GPU = List.of(Benchmark.PINNED_TO_GPU, Benchmark.GPU_TO_PINNED,
      Benchmark.HOST_TO_GPU, Benchmark.GPU_TO_HOST, Benchmark.WC_TO_GPU, Benchmark.GPU_TO_WC);

  private final CalibrationMachine machine;
  private final Sizing sizing;
  private final CopyBenchmarks copies;
  private final LatencyBenchmarks latency;
  private final HostOverheadBenchmarks calls;
  private final List<Step> steps = new ArrayList<>();
  private final List<Skipped> skippedUpFront = new ArrayList<>();
  private final List<Series> series = new ArrayList<>();
  private final List<CalibrationResult.Gap> gaps = new ArrayList<>();
  private final List<CalibrationResult.PageFault> faults = new ArrayList<>();
  private final List<MemsetSeries> memsets = new ArrayList<>();
  private final List<CallSeries> callSeries = new ArrayList<>();
  private Optional<SizeStats> jnaCall = Optional.empty();

  Plan(CalibrationMachine machine, Sizing sizing, CopyBenchmarks copies, LatencyBenchmarks latency,
      HostOverheadBenchmarks calls) {
    this.machine = machine;
    this.sizing = sizing;
    this.copies = copies;
    this.latency = latency;
    this.calls = calls;
    int gpus = machine.gpus().size();
    List<Integer> nodes = machine.numaNodes();
    for (int g = 0; g < gpus; g++) {
      for (int n : nodes) {
        Target t = Target.host(n, g);
        HOST_GPU.forEach(b -> copy(b, t, tick -> copies.hostGpu(b, t, tick)));
      }
      Target d = Target.device(g);
      copy(Benchmark.DEVICE_TO_DEVICE, d, tick -> copies.deviceToDevice(d, tick));
    }
    for (int a = 0; a < gpus; a++) {
      for (int b = 0; b < gpus; b++) {
        if (a != b) {
          gpuPair(a, b);
        }
      }
    }
    for (int g = 0; g < gpus; g++) {
      for (int n : nodes) {
        Target t = Target.host(n, g);
        copy(Benchmark.PREFETCH_TO_GPU, t, tick -> copies.prefetch(true, t, tick));
        copy(Benchmark.PREFETCH_TO_HOST, t, tick -> copies.prefetch(false, t, tick));
      }
    }
    for (int src : nodes) {
      for (int dst : nodes) {
        Target t = Target.hosts(src, dst);
        copy(Benchmark.HOST_TO_PINNED, t, tick -> copies.hostHost(t, tick));
      }
    }
    for (int g = 0; g < gpus; g++) {
      Target d = Target.device(g);
      steps.add(new Step("memset", "gpu " + g, sizing.sizes().size(), tick -> memsets.add(new MemsetSeries(d.gpu(),
          copies.memset(d, tick)))));
    }
    hostCalls(Target.host(machine.localNuma(0), 0));
    for (int g = 0; g < gpus; g++) {
      gaps(Target.host(machine.localNuma(g), g));
    }
    pageFaults();
  }

  /**
   * The host-overhead benchmarks on GPU 0 and its NUMA node: first the JNA call overhead the others are net of,
   * then the CUDA calls class by class.
   */
  private void hostCalls(Target t) {
    String where = "numa " + t.numa() + ", gpu " + t.gpu();
    steps.add(new Step("jna call " + HostOverheadBenchmarks.JNA_CALL, where, 1,
        tick -> jnaCall = Optional.of(calls.jnaCall())));
    call("device_alloc, device_free", where, 1, tick -> calls.deviceAllocFree(t));
    call("managed_alloc", where, 1, tick -> List.of(calls.managedAlloc(t)));
    call("host_alloc, host_free", where, sizing.pinSizes().size(), tick -> calls.hostAllocFree(t, tick));
    call("host_register, host_unregister", where, sizing.pinSizes().size(),
        tick -> calls.hostRegisterUnregister(t, tick));
    call("stream_create, stream_destroy", where, 1, tick -> calls.streamCreateDestroy(t));
    call("event_create, event_destroy", where, 1, tick -> calls.eventCreateDestroy(t));
    call("event_record, sync", where, 1, tick -> calls.recordAndSync(t));
    call("graph_launch", where, 1, tick -> List.of(calls.graphLaunch(t)));
    call("other", where, 1, tick -> List.of(calls.other(t)));
  }

  /** A host-overhead benchmark's work. */
  private interface CallsAction {
    List<CallSeries> run(CopyBenchmarks.Tick tick) throws CudaException;
  }

  private void call(String classes, String where, int units, CallsAction a) {
    steps.add(new Step("calls " + classes, where, units, tick -> callSeries.addAll(a.run(tick))));
  }

  /** The gap benchmarks of a pair, after its pinned copies, whose G they need. */
  private void gaps(Target t) {
    for (TransferKind.Way way : List.of(TransferKind.Way.H2D, TransferKind.Way.D2H)) {
      Benchmark pinned = Calibration.pinned(way);
      steps.add(new Step("gap " + way.name().toLowerCase(java.util.Locale.ROOT), t.describe(pinned), 1, tick -> {
        Series p = series.stream().filter(s -> s.benchmark() == pinned && s.target().equals(t)).findFirst()
            .orElseThrow(() -> new NotRun("needs the " + pinned.label() + " copies of this pair, which did not run"));
        gaps.add(latency.gap(way, t, p.fit().secondsPerByte()));
      }));
    }
  }

  private void copy(Benchmark b, Target t, SeriesAction a) {
    steps.add(new Step(b.label(), t.describe(b), sizing.sizes().size(), tick -> series.add(new Series(b, t,
        a.run(tick)))));
  }

  /** A copy benchmark's work. */
  private interface SeriesAction {
    List<CalibrationResult.SizeStats> run(CopyBenchmarks.Tick tick) throws CudaException;
  }

  private void gpuPair(int a, int b) {
    Target peer = Target.gpus(-1, a, b);
    if (machine.peer(a, b) && machine.peer(b, a)) {
      copy(Benchmark.GPU_TO_GPU_PEER, peer, tick -> copies.gpuGpu(true, peer, tick));
    } else {
      skippedUpFront.add(new Skipped(Benchmark.GPU_TO_GPU_PEER.label(), peer.describe(Benchmark.GPU_TO_GPU_PEER),
          "the two GPUs have no peer access to each other (cudaDeviceCanAccessPeer)"));
    }
    for (int n : machine.numaNodes()) {
      Target staged = Target.gpus(n, a, b);
      copy(Benchmark.GPU_TO_GPU_STAGED, staged, tick -> copies.gpuGpu(false, staged, tick));
    }
  }

  /**
   * Pearson 2018, sec. 5.2 for GPU 0 and its local NUMA node. <b>Choice</b>: a local GPU pair is one with peer
   * access, a remote pair one without (Pearson 2018, Table 5.5's local pairs share an NVLink triad).
   */
  private void pageFaults() {
    Target t = Target.host(machine.localNuma(0), 0);
    String gpu0 = "gpu 0";
    if (machine.simulated()) {
      skippedUpFront.add(new Skipped("page fault gpu_to_cpu", gpu0 + " -> numa " + t.numa(), "the simulated runtime"
          + " has no page faults: its managed memory is host memory, so a walk by the CPU would time host loads only"));
    } else {
      steps.add(new Step("page fault gpu_to_cpu", gpu0 + " -> numa " + t.numa(), 1,
          tick -> faults.add(latency.faultsOnCpu(t))));
    }
    steps.add(new Step("page fault cpu_to_gpu", "numa " + t.numa() + " -> " + gpu0, 1,
        tick -> faults.add(latency.faultsOnGpu("cpu_to_gpu", -1, t))));
    for (boolean local : List.of(true, false)) {
      String key = local ? "gpu_gpu_local" : "gpu_gpu_remote";
      int other = -1;
      for (int b = 1; b < machine.gpus().size() && other < 0; b++) {
        if (machine.peer(0, b) == local) {
          other = b;
        }
      }
      if (other < 0) {
        skippedUpFront.add(new Skipped("page fault " + key, gpu0, machine.gpus().size() == 1 ? "one GPU"
            : "no GPU " + (local ? "with" : "without") + " peer access to gpu 0"));
        continue;
      }
      int from = other;
      steps.add(new Step("page fault " + key, "gpu " + from + " -> " + gpu0, 1,
          tick -> faults.add(latency.faultsOnGpu(key, from, t))));
    }
  }

  List<Step> steps() {
    return steps;
  }

  List<Skipped> skippedUpFront() {
    return skippedUpFront;
  }

  List<Series> series() {
    return series;
  }

  List<CalibrationResult.Gap> gaps() {
    return gaps;
  }

  List<CalibrationResult.PageFault> faults() {
    return faults;
  }

  List<MemsetSeries> memsets() {
    return memsets;
  }

  Optional<SizeStats> jnaCall() {
    return jnaCall;
  }

  List<CallSeries> calls() {
    return callSeries;
  }
}
