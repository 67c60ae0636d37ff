package io.apptrace.graph;

import io.apptrace.proto.Module;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.SourceGpu;
import io.apptrace.trace.Truncation;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jgrapht.Graph;

/**
 * The dynamic value dependence graph of a trace (Pearson 2018, sec. 6.3, Fig. 6.1): values (versions
 * of allocations, {@link #values()}) joined by operations (copies, memsets, kernel launches,
 * {@link #operations()}), which read values and produce new ones. Immutable once built.
 *
 * <p>{@link #graph()} is the JGraphT view: vertices are value ids, then one synthetic vertex for
 * each operation without inputs (its source) and each without outputs (its sink); edges are one
 * per (input, output) pair of each operation (see {@link DvdgGraph}).
 */
public final class Dvdg {
  private final TraceHeader header;
  private final List<Allocation> allocations;
  private final ValueTable values;
  private final OperationTable ops;
  private final List<Race> races;
  private final Warnings warnings;
  private final Map<Integer, List<Module>> modules;
  private final Map<Integer, Map<Integer, SourceGpu>> gpus;
  private final Truncation truncation;
  private final CallLog calls;
  private final KernelCoverage kernels;
  private final GraphLaunchTable graphLaunches;
  private DvdgGraph graph;

  Dvdg(TraceHeader header, List<Allocation> allocations, ValueTable values, OperationTable ops,
      List<Race> races, Warnings warnings, Map<Integer, List<Module>> modules,
      Map<Integer, Map<Integer, SourceGpu>> gpus, Truncation truncation, CallLog calls, KernelCoverage kernels,
      GraphLaunchTable graphLaunches) {
    this.header = Objects.requireNonNull(header, "header");
    this.allocations = List.copyOf(allocations);
    this.values = values;
    this.ops = ops;
    this.races = List.copyOf(races);
    this.warnings = warnings;
    this.modules = Map.copyOf(modules);
    Map<Integer, Map<Integer, SourceGpu>> g = new TreeMap<>();
    gpus.forEach((pid, byDevice) -> g.put(pid, Collections.unmodifiableMap(new TreeMap<>(byDevice))));
    this.gpus = Collections.unmodifiableMap(g);
    this.truncation = truncation;
    this.calls = calls;
    this.kernels = Objects.requireNonNull(kernels, "kernels");
    this.graphLaunches = Objects.requireNonNull(graphLaunches, "graphLaunches");
  }

  /** The CUDA graph launches, with the operations each ran. */
  public GraphLaunchTable graphLaunches() {
    return graphLaunches;
  }

  /** The same graph, noting that its trace was cut short. */
  Dvdg truncated(Truncation t) {
    return new Dvdg(header, allocations, values, ops, races, warnings, modules, gpus, t, calls, kernels, graphLaunches);
  }

  public TraceHeader header() {
    return header;
  }

  /** Every allocation, by id. */
  public List<Allocation> allocations() {
    return allocations;
  }

  public Allocation allocation(int id) {
    return allocations.get(id);
  }

  public ValueTable values() {
    return values;
  }

  public OperationTable operations() {
    return ops;
  }

  /** Reads of values written in another stream with nothing ordering the two. */
  public List<Race> races() {
    return races;
  }

  /** Kernels with no known memory access, and kernels whose code could not be analysed. */
  public KernelCoverage kernels() {
    return kernels;
  }

  public Warnings warnings() {
    return warnings;
  }

  /** Each process's modules, for symbolizing call sites. */
  public Map<Integer, List<Module>> modules() {
    return modules;
  }

  /**
   * The GPUs each process used as its trace describes them (DeviceInfo records: the CUDA
   * runtime's answer in a capture, the profiler's device table in an import), by pid, then by
   * device index in ascending order; a process whose trace describes none is absent.
   */
  public Map<Integer, Map<Integer, SourceGpu>> sourceGpus() {
    return gpus;
  }

  /** GPU {@code device} of process {@code pid}, as the trace describes it. */
  public Optional<SourceGpu> sourceGpu(int pid, int device) {
    return Optional.ofNullable(gpus.getOrDefault(pid, Map.of()).get(device));
  }

  /** Where the trace was cut short, if it was. */
  public Optional<Truncation> truncation() {
    return Optional.ofNullable(truncation);
  }

  /** Every API call, when the graph was built with them. */
  public Optional<CallLog> calls() {
    return Optional.ofNullable(calls);
  }

  /** The JGraphT view (built on first use, then kept). */
  public synchronized Graph<Integer, Integer> graph() {
    if (graph == null) {
      graph = new DvdgGraph(this);
    }
    return graph;
  }

  /** The JGraphT view with its vertex and edge helpers. */
  public DvdgGraph view() {
    return (DvdgGraph) graph();
  }
}
