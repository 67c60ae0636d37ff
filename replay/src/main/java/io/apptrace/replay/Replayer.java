package io.apptrace.replay;

import io.apptrace.cost.KernelModel;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.GpuSpec;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import java.util.Map;
import java.util.Optional;

/**
 * Replays a program on a node: a discrete-event simulation, single-threaded and deterministic,
 * with CUDA's stream, event, synchronization and copy-engine rules (docs/REPLAY.md;
 * docs/REPLAY.md says each rule and choice).
 *
 * <p>Host threads run their calls in order, keeping the measured host time between calls (divided
 * by the node's {@code cpu_speed_factor}) and each call's measured duration (its API overhead);
 * a call that blocks (a synchronization, a synchronous copy) ends when what it waits for is done.
 * Operations run in their stream's order, after the events their stream waits for, with the
 * legacy default stream's rules, on an engine of their GPU: kernels and memsets on the compute
 * engine, copies on a copy engine (one engine: every copy in turn; two or more: host-to-device on
 * the even ones, device-to-host on the odd ones, others on any). Copies pay their fixed overhead
 * (L+o, or the gap g back to back in the same direction) and then move their bytes over the links
 * of their route, shared with the transfers in flight ({@link Links}).
 *
 * <p>The replay is a small loop ({@link ReplayLoop}) over an event queue ({@link EventQueue}) and
 * one component per rule of docs/REPLAY.md: {@link PricedOps} (what each operation costs),
 * {@link StreamRules} and {@link Dependencies} (what it waits for), {@link Engines},
 * {@link ComputeEngine} and {@link CopyEngines} (where it runs), {@link Transfers} and
 * {@link Links} (link sharing), {@link HostThreads} (the calls), {@link MeasuredTiming} (what a
 * trace with measured times adds) and {@link OpLifecycle} (the operation's states,
 * {@link OpState}).
 */
public final class Replayer {
  /**
   * How the program is priced.
   *
   * @param keepMeasured operations with measured GPU times keep them
   * @param keepDelays with {@code keepMeasured}: each operation also starts as long after it could
   *     have as it did in the trace (its measured dispatch delay: launch latency, a pageable copy's
   *     staging, dependencies the trace does not record)
   * @param sourceGpu the GPU the trace's kernels were measured on, when the user names it (else the
   *     trace's own record of its GPUs, else {@code sourceNode}'s)
   */
  public record Options(boolean keepMeasured, KernelModel.Policy kernelPolicy, Optional<Node> sourceNode,
      double scaleKernels, Map<Integer, Integer> deviceMap, TransferModel.Setting setting, boolean samples,
      boolean keepDelays, Optional<GpuSpec> sourceGpu, CallCosts.Policy callCosts, ManagedHostReads managedHostReads,
      boolean slack) {
    public Options {
      deviceMap = Map.copyOf(deviceMap);
    }

    /** What the host is assumed to read of managed memory (--managed-host-reads). */
    public Options withManagedHostReads(ManagedHostReads r) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, keepDelays,
          sourceGpu, callCosts, r, slack);
    }

    public static Options defaults() {
      return new Options(false, KernelModel.Policy.MODEL, Optional.empty(), 1.0, Map.of(),
          TransferModel.Setting.MEASURED, true, true, Optional.empty(), CallCosts.Policy.AUTO,
          ManagedHostReads.AFTER_SYNC, false);
    }

    /**
     * Whether the replay computes each operation's slack ({@link Slack}; {@code --ops-csv}): it
     * keeps every dependency it meets, which costs memory and time a replay without it spares.
     */
    public Options withSlack(boolean s) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, keepDelays,
          sourceGpu, callCosts, managedHostReads, s);
    }

    public Options withKeepMeasured(boolean k) {
      return new Options(k, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, keepDelays, sourceGpu, callCosts, managedHostReads, slack);
    }

    /** Keeps measured durations but not measured dispatch delays (--keep-measured=durations). */
    public Options withKeepDelays(boolean d) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, d, sourceGpu, callCosts, managedHostReads, slack);
    }

    public Options withScaleKernels(double f) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, f, deviceMap, setting, samples, keepDelays, sourceGpu, callCosts, managedHostReads, slack);
    }

    public Options withDeviceMap(Map<Integer, Integer> m) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, m, setting, samples, keepDelays, sourceGpu, callCosts, managedHostReads, slack);
    }

    public Options withKernelPolicy(KernelModel.Policy p, Optional<Node> source) {
      return new Options(keepMeasured, p, source, scaleKernels, deviceMap, setting, samples, keepDelays, sourceGpu, callCosts, managedHostReads, slack);
    }

    public Options withSourceGpu(Optional<GpuSpec> g) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, keepDelays,
          g, callCosts, managedHostReads, slack);
    }

    /** Which durations the calls get (--call-costs). */
    public Options withCallCosts(CallCosts.Policy c) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, keepDelays,
          sourceGpu, c, managedHostReads, slack);
    }

    public Options withSamples(boolean s) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, s, keepDelays, sourceGpu, callCosts, managedHostReads, slack);
    }
  }

  /** A blocking call's own overhead, at most: the rest of its measured time was waiting. */
  static final long BLOCKING_OVERHEAD_NS = 5_000;

  private Replayer() {}

  private static java.util.List<String> notes(java.util.List<String> a, java.util.List<String> b) {
    java.util.List<String> out = new java.util.ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static java.util.List<String> notes(java.util.List<String> a, java.util.List<String> b,
      java.util.Optional<String> c) {
    java.util.List<String> out = notes(a, b);
    c.ifPresent(out::add);
    return out;
  }

  /**
   * Replays {@code p} on {@code node}.
   *
   * @throws ReplayException when the program cannot run on the node (a device it lacks)
   * @throws NodeFileException when the node's own parameters are inconsistent
   */

  public static ReplayResult replay(ReplayProgram p, Node node, Options o) throws ReplayException, NodeFileException {
    OpTable t = new OpTable(p);
    Links links = new Links(node, o.samples());
    PricedOps priced = new PricedOps(p, node, o, links, t);
    Clock clock = new Clock();
    EventQueue queue = new EventQueue();
    MeasuredTiming measured = new MeasuredTiming(p, t, o);
    Dependencies deps = new Dependencies(t, measured, o.slack());
    StreamRules streams = new StreamRules(p, node, t, deps, o.deviceMap());
    Engines engines = new Engines(node, t, clock, queue, priced, o.keepMeasured());
    CallCosts costs = new CallCosts(p, node, o.callCosts());
    HostThreads hosts = new HostThreads(p, node, o, t, clock, queue, streams, measured, costs, priced.afterCallNs());
    OpLifecycle lifecycle = new OpLifecycle(t, clock, queue, deps, streams, measured, engines, hosts);
    Transfers transfers = new Transfers(t, links, clock, queue, node.measured().stagingChunkBytes());
    hosts.issuesThrough(lifecycle);
    transfers.connect(lifecycle, hosts);
    long events = new ReplayLoop(clock, queue, links, hosts, lifecycle, transfers, engines, t).run();
    return ReplayResult.of(new Timeline(p, t, engines.names(), hosts.callBase, hosts.callStart, hosts.callEnd,
        hosts.callEndCause, measured.dispatchDelay, links, notes(notes(priced.notes(), costs.notes(), OffCpuTime.note(p)), java.util.List.of(),
        GraphLaunches.note(p)), events, deps, hosts.callTargets, hosts.callOwnEnd), node, o);
  }
}
