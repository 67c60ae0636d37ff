package io.apptrace.graph;

import io.apptrace.proto.Api;
import io.apptrace.proto.GraphLaunch;
import io.apptrace.proto.GraphNode;
import io.apptrace.proto.GraphNodeKind;
import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.GraphEvent;
import java.util.Arrays;

/**
 * Expands each CUDA graph launch into the operations of its graph's kernel, memcpy and memset
 * nodes (docs/GRAPH.md, "CUDA graphs"): each is issued by the launch call as the same work issued
 * to a stream would be ({@link StreamWork}), in an order that respects the graph's edges
 * ({@link GraphExecutables}); the edges order them in the replay ({@link GraphLaunchTable}) and
 * for races ({@link GraphLaunchOrder}).
 */
final class GraphLaunchExpansion {
  private final OperationTable ops;
  private final Allocations allocations;
  private final StreamWork work;
  private final Warnings warnings;
  private final GraphLaunchTable launches = new GraphLaunchTable();
  /** Whether the call log is kept: it then needs each launch's index and stream. */
  private boolean forCallLog;
  /** The launch the event being processed made, for the call log (-1: none), and its stream. */
  private int pendingLaunch = -1;
  private HappensBefore.Stream pendingStream;

  GraphLaunchExpansion(OperationTable ops, Allocations allocations, StreamWork work, Warnings warnings) {
    this.ops = ops;
    this.allocations = allocations;
    this.work = work;
    this.warnings = warnings;
  }

  /** Keeps the index and stream of each launch until the call log takes it ({@link #takeLaunch}). */
  void forCallLog() {
    forCallLog = true;
  }

  /**
   * A CUDA graph launch: each of its kernel, memcpy and memset nodes is an operation on the launch
   * stream, issued by the launch call, with the values it reads and writes as for stream work.
   * The graph's edges order them: in the replay ({@link GraphLaunchTable}) and for races
   * ({@link GraphLaunchOrder}: each on its branch, after its dependencies, the launch ordered
   * against its stream as a kernel is). A launch into a stream being captured is a node of that
   * capture, not work.
   */
  void launch(ThreadState t, GraphEvent.Call call, GraphLaunch gl) {
    pendingLaunch = -1;
    if (gl.getCaptureId() != 0) {
      return;
    }
    GraphExecutables.Plan plan = t.proc.graphs.plan(gl.getExec());
    if (plan == null) {
      launches.undescribed();
      warnings.add("launch of a CUDA graph whose nodes were not recorded", "cudaGraphLaunch(0x"
          + Long.toHexString(gl.getExec()) + ")");
      return;
    }
    int device = t.device;
    if (gl.getDevice() >= 0) {
      t.device = gl.getDevice();
    }
    // graph memory: allocated as the launch begins (each launch anew), freed as it ends
    for (GraphNode n : plan.allocs()) {
      t.proc.spaces.remove(MemoryKind.STREAM_ORDERED, n.getPtr());
      t.proc.spaces.add(allocations.add(call.pid(), MemoryKind.STREAM_ORDERED, t.device, n.getPtr(), n.getBytes(),
          false, "graph mem alloc node"));
    }
    GraphLaunchOrder order = new GraphLaunchOrder(t.proc.order, t.clock(), t.stream(call.api(), gl.getStream()),
        call.entryNs(), t.proc.graphs.serial(gl.getExec()), plan.waitsFor(), t.device, call.tid());
    int[] opIds = new int[plan.nodes().size()];
    for (int i = 0; i < opIds.length; i++) {
      HappensBefore.Stream branch = order.before(i);
      GraphNode n = plan.nodes().get(i);
      GraphEvent.Call nc = new GraphEvent.Call(call.pid(), call.tid(), Api.API_OTHER_VALUE,
          n.getKind() == GraphNodeKind.GRAPH_MEMCPY ? "graph memcpy node" : "graph memset node",
          0, call.entryNs(), call.durationNs(), 0, call.callSite());
      GraphEvent ev = GraphEvent.ofGraphNode(nc, n, gl.getStream());
      int before = ops.size();
      if (ev instanceof GraphEvent.CopyCall k) {
        work.copy(t, nc, k, branch);
      } else if (ev instanceof GraphEvent.MemsetCall m) {
        work.memset(t, nc, m, branch);
      } else if (ev instanceof GraphEvent.LaunchCall l) {
        work.launch(t, nc, l, branch);
      }
      opIds[i] = ops.size() > before ? ops.size() - 1 : -1;
      order.after(i);
    }
    order.finish();
    for (GraphNode n : plan.frees()) {
      t.proc.spaces.remove(MemoryKind.STREAM_ORDERED, n.getPtr());
    }
    t.device = device;
    int[][] waits = new int[opIds.length][];
    for (int i = 0; i < opIds.length; i++) {
      waits[i] = Arrays.stream(plan.waitsFor()[i]).map(k -> opIds[k]).filter(op -> op >= 0).toArray();
    }
    int index = launches.add(new GraphLaunchTable.Launch(gl.getExec(), opIds, waits));
    if (forCallLog) {
      pendingLaunch = index;
      pendingStream = t.stream(call.api(), gl.getStream());
    }
  }

  /** The launch the event just processed made (-1: none), for the call log; taken once. */
  int takeLaunch() {
    int l = pendingLaunch;
    pendingLaunch = -1;
    return l;
  }

  /** The stream of the launch {@link #takeLaunch} gave. */
  HappensBefore.Stream launchStream() {
    return pendingStream;
  }

  /** Every launch; {@code executables}: the executable graphs the trace describes. */
  GraphLaunchTable table(int executables) {
    launches.executables(executables);
    return launches;
  }
}
