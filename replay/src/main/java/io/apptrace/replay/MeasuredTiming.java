package io.apptrace.replay;

import java.util.Arrays;
import java.util.List;

/**
 * What a trace with measured times (imports from real GPUs, CUPTI captures) tells the replay
 * beyond its durations (docs/REPLAY.md, "Traces with measured times"): each operation's measured
 * dispatch delay under {@code --keep-measured}, and how a blocking call waited: whether it waited
 * at all, whether it returned before its work ended, and how long after that work ended it woke.
 */
final class MeasuredTiming {
  private final OpTable t;
  private final boolean keep;
  /** The trace has measured GPU times. */
  private final boolean measuredTrace;
  /** The measured time each operation became ready (its call's entry, the measured end of what it waited for). */
  private final long[] measuredReady;
  /** Its measured start minus that: NaN until known. */
  final double[] dispatchDelay;
  private final int[] delayedCause;
  private final int[] delayedCauseId;

  MeasuredTiming(ReplayProgram p, OpTable t, Replayer.Options o) {
    this.t = t;
    this.keep = o.keepMeasured() && o.keepDelays();
    this.measuredTrace = p.measuredMakespanNs() >= 0;
    measuredReady = new long[t.size];
    Arrays.fill(measuredReady, Long.MIN_VALUE);
    dispatchDelay = new double[t.size];
    Arrays.fill(dispatchDelay, Double.NaN);
    delayedCause = new int[t.size];
    delayedCauseId = new int[t.size];
  }

  /** Operation {@code i} was issued by a call entered at {@code entryNs} (measured). */
  void issued(int i, long entryNs) {
    if (keep && t.ops[i].measured()) {
      measuredReady[i] = entryNs;
    }
  }

  /** Operation {@code op} waits for {@code on}: it could not have started, as measured, before on ended. */
  void waitsFor(int op, int on) {
    if (on >= 0 && t.ops[on].measured() && measuredReady[op] != Long.MIN_VALUE) {
      measuredReady[op] = Math.max(measuredReady[op], t.ops[on].measuredEndNs());
    }
  }

  /**
   * The delay before operation {@code i}, now free to start, does start, as measured (its launch
   * latency; a pageable copy's staging before its DMA): 0 when none or not kept; else it is
   * remembered with why it became free, for {@link #cause} and {@link #causeId}.
   */
  double delay(int i, int cause, int causeId) {
    if (measuredReady[i] == Long.MIN_VALUE || !Double.isNaN(dispatchDelay[i])) {
      return 0;
    }
    dispatchDelay[i] = Math.max(0, t.ops[i].measuredStartNs() - measuredReady[i]);
    delayedCause[i] = cause;
    delayedCauseId[i] = causeId;
    return dispatchDelay[i];
  }

  int cause(int i) {
    return delayedCause[i];
  }

  int causeId(int i) {
    return delayedCauseId[i];
  }

  /** Whether, as measured, everything a blocking call waits for had ended before the call began. */
  boolean waitedForNothing(ReplayProgram.Call c, List<Integer> waited) {
    for (int target : waited) {
      if (target >= 0 && (!t.ops[target].measured() || t.ops[target].measuredEndNs() > c.entryNs())) {
        return false;
      }
    }
    return measuredTrace;
  }

  /** Whether a blocking call returned, as measured, before the work it waits for ended. */
  boolean returnedEarly(ReplayProgram.Call c, List<Integer> waited) {
    long done = Long.MIN_VALUE;
    for (int target : waited) {
      if (target < 0) {
        continue;
      }
      if (!t.ops[target].measured()) {
        return false;
      }
      done = Math.max(done, t.ops[target].measuredEndNs());
    }
    return done != Long.MIN_VALUE && done > c.entryNs() + c.durationNs();
  }

  /**
   * How long after the work it waited for ended the blocking call returned, as measured: the
   * call's measured exit minus the measured end of that work, when the trace has GPU times for
   * all of it and the call was still waiting when it ended; else 0 (docs/REPLAY.md).
   */
  long wakeLatency(ReplayProgram.Call c, int[] waited) {
    long done = Long.MIN_VALUE;
    for (int target : waited) {
      ReplayProgram.Op op = t.ops[target];
      if (!op.measured() || t.gpuOf[target] < 0) {
        return 0;
      }
      done = Math.max(done, op.measuredEndNs());
    }
    long exit = c.entryNs() + c.durationNs();
    if (done == Long.MIN_VALUE || done < c.entryNs() || done > exit) {
      return 0;
    }
    return exit - done;
  }
}
