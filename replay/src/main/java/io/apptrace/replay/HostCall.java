package io.apptrace.replay;

import io.apptrace.graph.CallLog;

/**
 * What a host thread's API call does in a replay (docs/REPLAY.md, "Host threads"), one record per
 * kind: it issues an operation, waits for a stream, an event, a device or some of its streams,
 * records or waits for an event on a stream, or does host work only.
 */
public sealed interface HostCall {
  /**
   * Issues operation {@code op} (the program's index) on stream {@code stream}. {@code untilNs}
   * matters for a {@link ReplayProgram.Kind#COLLECTIVE} operation only, whose end a replay outside
   * the node decides: it ends at {@code untilNs} on the node replay's clock, or as soon as its stream
   * gets there when that has passed (an NCCL call in a job's replay: {@link JobOverlap}).
   */
  record IssueOp(int op, int stream, long untilNs) implements HostCall {
    /** Issues an operation the node prices. */
    public IssueOp(int op, int stream) {
      this(op, stream, 0);
    }

    /** The same call issuing operation {@code other}. */
    IssueOp renumbered(int other) {
      return new IssueOp(other, stream, untilNs);
    }
  }

  /** Blocks until everything issued to stream {@code stream} is done. */
  record SyncStream(int stream) implements HostCall {}

  /** Blocks until event {@code event}'s last record is done. */
  record SyncEvent(int event) implements HostCall {}

  /** Blocks until everything the process issued to trace device {@code device} is done. */
  record SyncDevice(int device) implements HostCall {}

  /**
   * Blocks until some streams of trace device {@code device} are done: an imported trace's
   * synchronization that does not name its stream (the replay waits for the streams whose work had
   * ended, as measured, when the call returned).
   */
  record SyncSomeStreams(int device) implements HostCall {}

  /** Records event {@code event} on stream {@code stream}. */
  record RecordEvent(int stream, int event) implements HostCall {}

  /** Makes stream {@code stream} wait for event {@code event}'s last record. */
  record WaitEvent(int stream, int event) implements HostCall {}

  /**
   * Launches a CUDA graph on stream {@code stream} (docs/REPLAY.md, "CUDA graphs"): issues its
   * operations {@code ops} all at once, each after the operations of {@code waitsFor} (its
   * predecessors in the graph, as operation ids); those without any after the stream's earlier
   * work, and the stream's later work after all of them. {@code whatIf}: a launch the program did
   * not make ({@link GraphLaunchWhatIf}), priced by the model whatever the trace measured.
   */
  record LaunchGraph(int stream, int[] ops, int[][] waitsFor, boolean whatIf) implements HostCall {
    /** A launch the program made. */
    public LaunchGraph(int stream, int[] ops, int[][] waitsFor) {
      this(stream, ops, waitsFor, false);
    }

    public LaunchGraph {
      if (ops.length != waitsFor.length) {
        throw new IllegalArgumentException(ops.length + " operations but " + waitsFor.length + " lists of what they wait for");
      }
    }

    /** The same launch with its operations renumbered by {@code id} (-1: dropped). */
    LaunchGraph renumbered(java.util.function.IntUnaryOperator id) {
      int[] o = java.util.Arrays.stream(ops).map(id).filter(x -> x >= 0).toArray();
      int[][] w = new int[o.length][];
      int k = 0;
      for (int i = 0; i < ops.length; i++) {
        if (id.applyAsInt(ops[i]) >= 0) {
          w[k++] = java.util.Arrays.stream(waitsFor[i]).map(id).filter(x -> x >= 0).toArray();
        }
      }
      return new LaunchGraph(stream, o, w, whatIf);
    }
  }

  /** Host time only: allocations, queries, anything else that does nothing on a GPU. */
  record HostWork() implements HostCall {}

  /**
   * A call a what-if took out of the program ({@link WhatIfs}): it costs nothing, and the time it
   * took in the trace is not host compute either (the host work before and after it stays).
   */
  record NotMade() implements HostCall {}

  /**
   * A call whose end a replay outside the node decides: the thread is held in it until
   * {@code untilNs} on the node replay's clock (not at all when that has passed), doing nothing on
   * a GPU, while the GPUs go on with the work it issued before (an MPI call in a job's replay on a
   * cluster, held until the network's replay returned from it: {@link JobOverlap}). The host work
   * before and after it stays as traced.
   */
  record Held(long untilNs) implements HostCall {}

  /** The one {@link HostWork}. */
  HostWork HOST_WORK = new HostWork();

  /** Whether the call blocks until GPU work is done (a synchronization; a synchronous copy is an {@link IssueOp}). */
  default boolean waits() {
    return this instanceof SyncStream || this instanceof SyncEvent || this instanceof SyncDevice
        || this instanceof SyncSomeStreams;
  }

  /** The call of a graph's call log, whose two arguments mean what {@link CallLog.Type} says. */
  static HostCall of(CallLog.Type type, int a, int b) {
    return switch (type) {
      case OP -> new IssueOp(a, b);
      case SYNC_STREAM -> new SyncStream(a);
      case SYNC_EVENT -> new SyncEvent(a);
      case SYNC_DEVICE -> new SyncDevice(a);
      case SYNC_SOME_STREAMS -> new SyncSomeStreams(a);
      case EVENT_RECORD -> new RecordEvent(a, b);
      case STREAM_WAIT_EVENT -> new WaitEvent(a, b);
      case HOST -> HOST_WORK;
      case GRAPH_LAUNCH -> throw new IllegalArgumentException("a graph launch needs its operations: "
          + "see ProgramBuilder");
    };
  }
}
