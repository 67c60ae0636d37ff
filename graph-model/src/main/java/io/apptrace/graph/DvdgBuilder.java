package io.apptrace.graph;

import io.apptrace.proto.Event;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.GraphEvent;
import io.apptrace.trace.TimeOrderedReader;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceRecord;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Builds a {@link Dvdg} from a trace's events, which must come in time order (each thread's in
 * issue order, see {@link TimeOrderedReader}). Feed {@link #define} the trace's definitions
 * first, then every event to {@link #add}, then call {@link #build()} once.
 *
 * <p>It hands each event to the part whose job it is (docs/GRAPH.md, "For developers"):
 * {@link StreamWork} for copies, memsets, prefetches and launches (their values through
 * {@link ValueFlow}, races through {@link RaceFinder}), {@link GraphLaunchExpansion} for CUDA graph
 * launches, {@link Allocations} for allocations and frees, {@link StreamOrder} for streams, events
 * and synchronizations, and, when asked, {@link CallRecorder} for the call log.
 */
public final class DvdgBuilder {
  private final TraceHeader header;
  private final OperationTable ops = new OperationTable();
  private final ValueTable values = new ValueTable();
  private final Warnings warnings = new Warnings();
  private final KernelCoverage kernels = new KernelCoverage();
  private final Processes processes = new Processes();
  private final Allocations allocations = new Allocations(warnings);
  private final StreamOrder order = new StreamOrder(processes);
  private final RaceFinder races = new RaceFinder(ops, values);
  private final ApiNameIds apiNames = new ApiNameIds(ops);
  /** The events read ahead of the one processed, which the slices rule looks into. */
  private final FootprintTiling tiling = new FootprintTiling();
  private final StreamWork work;
  private final GraphLaunchExpansion graphs;
  /** The call log's recorder; null unless {@link #recordCalls()}. */
  private CallRecorder calls;
  private boolean built;

  public DvdgBuilder(TraceHeader header) {
    this.header = header;
    ValueFlow flow = new ValueFlow(ops, values, allocations, races);
    work = new StreamWork(ops, values, processes, allocations, flow, races, apiNames, warnings, kernels, tiling,
        isImported(header));
    graphs = new GraphLaunchExpansion(ops, allocations, work, warnings);
  }

  /** Whether a trace was imported from another profiler's format (it then has no addresses). */
  public static boolean isImported(TraceHeader h) {
    String f = h.getSourceFormat();
    return !f.isEmpty() && !f.equals("capture");
  }

  /** Keeps every API call in a {@link CallLog} too (for the replay), with the ranges the program named. */
  public void recordCalls() {
    if (calls == null) {
      graphs.forCallLog();
      calls = new CallRecorder(ops, order, apiNames, allocations, work, graphs);
    }
  }

  /** Reads a trace file and builds its graph. */
  public static Dvdg build(Path trace) throws IOException, TraceException {
    return build(trace, false);
  }

  /** Reads a trace file and builds its graph, with its {@link CallLog} when {@code withCalls}. */
  public static Dvdg build(Path trace, boolean withCalls) throws IOException, TraceException {
    try (TimeOrderedReader<GraphEvent> r = TimeOrderedReader.open(trace, GraphEvent.DECODER)) {
      DvdgBuilder b = new DvdgBuilder(r.header());
      if (withCalls) {
        b.recordCalls();
      }
      r.definitions().forEach(b::define);
      b.tiling.from(new FootprintTiling.Events() {
        @Override
        public boolean hasNext() {
          return r.hasNext();
        }

        @Override
        public GraphEvent next() throws IOException {
          return r.next();
        }
      });
      try {
        while (b.tiling.hasNext()) {
          b.process(b.tiling.next());
        }
      } catch (java.io.UncheckedIOException e) {
        throw e.getCause(); // read ahead for the slices rule
      }
      Dvdg g = b.build();
      return r.truncation().map(g::truncated).orElse(g);
    }
  }

  /** A record that must be known before events are processed (kernel layouts, modules, GPUs). */
  public void define(TraceRecord r) {
    processes.define(r);
  }

  /**
   * The next event, in time order. Events given one by one have no lookahead: the slices rule
   * ({@link FootprintTiling}) sees no later launch; {@link #build(Path)} gives it one.
   */
  public void add(GraphEvent ev) {
    process(ev);
  }

  private void process(GraphEvent ev) {
    GraphEvent.Call c = ev.call();
    if (c.tid() == 0) {
      return; // the collector's own records
    }
    ThreadState t = processes.thread(c.pid(), c.tid());
    ProcessState p = t.proc;
    int opsBefore = ops.size();
    // the kinds of nearly every event first, each read from its own small record
    if (ev instanceof GraphEvent.CopyCall k) {
      if (succeeded(c)) {
        work.copy(t, c, k, null);
      }
    } else if (ev instanceof GraphEvent.LaunchCall l) {
      if (succeeded(c)) {
        work.launch(t, c, l, null);
      }
    } else if (ev instanceof GraphEvent.MemsetCall m) {
      if (succeeded(c)) {
        work.memset(t, c, m, null);
      }
    } else if (ev instanceof GraphEvent.GpuSpan g) {
      int op = p.byCorrelation.get(g.gpuCorrelationId(), -1);
      if (op >= 0) {
        ops.gpuTimes(op, g.startNs(), g.endNs());
        if (g.resources() != null) {
          ops.resources(op, g.resources());
        }
      }
    } else if (((GraphEvent.Other) ev).record().event().hasGraphLaunch()) {
      if (succeeded(c)) {
        graphs.launch(t, c, ((GraphEvent.Other) ev).record().event().getGraphLaunch());
      }
    } else if (((GraphEvent.Other) ev).record().event().hasPrefetch()) {
      if (succeeded(c)) {
        work.prefetch(t, c, ((GraphEvent.Other) ev).record().event().getPrefetch());
      }
    } else {
      other(p, ((GraphEvent.Other) ev).record());
    }
    if (calls != null) {
      calls.record(p, ev, opsBefore);
    }
  }

  /** An event other than an operation or its GPU times. */
  private void other(ProcessState p, TraceRecord r) {
    Event e = r.event();
    boolean ok = e.getResult() == 0;
    switch (e.getBodyCase()) {
      case SET_DEVICE -> {
        if (ok) {
          processes.thread(r.pid(), r.tid()).device = e.getSetDevice().getDevice();
        }
      }
      case KERNEL_INFO -> p.kernels.putIfAbsent(e.getKernelInfo().getKernelId(), e.getKernelInfo());
      case ALLOC -> {
        if (ok && e.getAlloc().getCaptureId() == 0) { // a captured one is a graph's alloc node
          allocations.alloc(r.pid(), p, e);
        }
      }
      case FREE -> {
        if (ok && e.getFree().getCaptureId() == 0) {
          allocations.free(p, e);
          order.free(p, r, e);
        }
      }
      case SYMBOL -> allocations.symbol(r.pid(), p, e);
      case GRAPH_EXEC -> {
        if (ok) {
          p.graphs.accept(e.getGraphExec());
        }
      }
      case STREAM -> order.stream(p, e, ok);
      case EVENT -> order.event(p, r, e, ok && e.getEvent().getCaptureId() == 0);
      case SYNC -> {
        if (ok) {
          order.sync(p, r, e);
        }
      }
      default -> {
        // process and thread starts, modules and the like change nothing in the graph
      }
    }
  }

  /** Whether an operation's call succeeded; a failed one is counted, not drawn. */
  private boolean succeeded(GraphEvent.Call c) {
    if (!c.ok()) {
      warnings.add("failed call, not in the graph", c.function() + " in thread " + c.tid());
    }
    return c.ok();
  }

  /** The graph; the builder cannot be used afterwards. */
  public Dvdg build() {
    if (built) {
      throw new IllegalStateException("build() was already called");
    }
    built = true;
    if (calls != null) {
      calls.finishRanges(); // before the operation table is finished: a range may name a thread of its own
    }
    ops.finish();
    values.trim();
    CallLog callLog = calls != null ? calls.finish() : null;
    return new Dvdg(header, allocations.all(), values, ops, races.races(), warnings, processes.modules(),
        processes.gpus(), null, callLog, kernels, graphs.table(processes.describedGraphs()));
  }
}
