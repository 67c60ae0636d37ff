package io.apptrace.replay;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The chain of operations and host time that sets the makespan: from whatever ends last, back
 * through what made each link of the chain start when it did (the call that issued it, the
 * operation it waited for, the operation that held its engine; for a call, the operation it
 * waited for, or the previous call and the host time between them).
 */
final class CriticalPath {
  private final ReplayProgram p;
  private final double[] start;
  private final double[] end;
  private final double[] dispatchDelay;
  private final int[] causeType;
  private final int[] causeId;
  private final int[] issuedBy;
  private final int[] callBase;
  private final double[] callStart;
  private final double[] callEnd;
  private final int[] callEndCause;
  private final int[] threadOfCall;

  CriticalPath(ReplayProgram p, double[] start, double[] end, double[] dispatchDelay, int[] causeType, int[] causeId, int[] issuedBy,
      int[] callBase, double[] callStart, double[] callEnd, int[] callEndCause) {
    this.p = p;
    this.start = start;
    this.end = end;
    this.dispatchDelay = dispatchDelay;
    this.causeType = causeType;
    this.causeId = causeId;
    this.issuedBy = issuedBy;
    this.callBase = callBase;
    this.callStart = callStart;
    this.callEnd = callEnd;
    this.callEndCause = callEndCause;
    this.threadOfCall = new int[callStart.length];
    for (int t = 0; t + 1 < callBase.length; t++) {
      for (int c = callBase[t]; c < callBase[t + 1]; c++) {
        threadOfCall[c] = t;
      }
    }
  }

  private static final int OP = 0;
  private static final int CALL_END = 1;
  private static final int CALL_START = 2;

  List<ReplayResult.Segment> walk(double makespan) {
    List<ReplayResult.Segment> out = new ArrayList<>();
    int kind = -1;
    int id = -1;
    double best = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < end.length; i++) {
      if (!Double.isNaN(end[i]) && end[i] > best && p.ops().get(i).kind() != null && !Double.isNaN(start[i])) {
        best = end[i];
        kind = OP;
        id = i;
      }
    }
    for (int c = 0; c < callEnd.length; c++) {
      if (callEnd[c] > best) {
        best = callEnd[c];
        kind = CALL_END;
        id = c;
      }
    }
    double t = makespan;
    boolean fromCallEnd = false; // the operation was reached from a blocking call that waited for it
    int guard = 4 * (end.length + callEnd.length) + 16;
    while (kind >= 0 && guard-- > 0) {
      switch (kind) {
        case OP -> {
          ReplayProgram.Op op = p.ops().get(id);
          if (end[id] < t) {
            out.add(fromCallEnd ? new ReplayResult.Segment("host", "waking after the synchronization", end[id], t, -1,
                "calls sync") : new ReplayResult.Segment("idle", "waiting", end[id], t, -1, "idle"));
          }
          fromCallEnd = false;
          String what = switch (op.kind()) {
            case KERNEL -> "kernel";
            case MEMSET -> "memset";
            case COPY -> "copy";
            case COLLECTIVE -> "communication";
          };
          String klass = switch (op.kind()) {
            case KERNEL -> "kernels";
            case MEMSET -> "memsets";
            case COLLECTIVE -> "communication";
            case COPY -> op.transfer() == null ? "host" : "copies " + op.transfer().key();
          };
          out.add(new ReplayResult.Segment(what, op.name(), start[id], end[id], id, klass));
          t = start[id];
          double delay = Double.isNaN(dispatchDelay[id]) ? 0 : dispatchDelay[id];
          if (delay > 0 && causeType[id] != Cause.ENGINE) { // --keep-measured's dispatch delay
            out.add(new ReplayResult.Segment("host", op.kind() == ReplayProgram.Kind.COPY
                ? "before the copy's DMA, as measured (staging, driver)" : "launch latency, as measured",
                start[id] - delay, start[id], id, "calls launch"));
            t = start[id] - delay;
          }
          if (causeType[id] == Cause.ISSUE || causeId[id] < 0) {
            kind = issuedBy[id] >= 0 ? CALL_START : -1;
            id = issuedBy[id];
          } else {
            id = causeId[id];
            kind = OP;
          }
        }
        case CALL_END -> {
          if (callEnd[id] < t) {
            out.add(new ReplayResult.Segment("idle", "waiting", callEnd[id], t, -1, "idle"));
          }
          t = callEnd[id];
          if (callEndCause[id] >= 0) {
            kind = OP;
            id = callEndCause[id];
            fromCallEnd = true;
          } else {
            out.add(new ReplayResult.Segment("host", call(id).name(), callStart[id], callEnd[id], -1,
                callClass(call(id))));
            t = callStart[id];
            kind = CALL_START;
          }
        }
        default -> { // CALL_START: the call started after the previous one and the host time between
          int thread = threadOfCall[id];
          if (id == callBase[thread]) {
            if (callStart[id] > 0) {
              out.add(new ReplayResult.Segment("host", "before the thread's first call", 0, callStart[id], -1, "host"));
            }
            kind = -1;
          } else {
            int prev = id - 1;
            if (callStart[id] > callEnd[prev]) {
              out.add(new ReplayResult.Segment("host", "host code between calls", callEnd[prev], callStart[id], -1,
                  "host"));
            }
            t = callEnd[prev];
            kind = CALL_END;
            id = prev;
          }
        }
      }
    }
    Collections.reverse(out);
    return out;
  }

  /** A call's own time on the path: {@code calls launch} (issues work), {@code calls sync} (waits), else {@code calls other}. */
  private static String callClass(ReplayProgram.Call c) {
    if (c.what() instanceof HostCall.IssueOp) {
      return "calls launch";
    }
    return c.what().waits() ? "calls sync" : "calls other";
  }

  private ReplayProgram.Call call(int id) {
    int t = threadOfCall[id];
    return p.threads().get(t).calls().get(id - callBase[t]);
  }
}
