package io.apptrace.replay;

import java.util.Arrays;

/**
 * How much of the host time between a thread's calls the thread spent off the CPU in the trace
 * (docs/REPLAY.md, "Host threads"): descheduled by a loaded capturing machine, sleeping, waiting
 * for I/O. The collector reads the thread's CPU time at a call's entry after a gap of more than
 * 100 us, and at its exit when the call took more than 100 us (trace format: {@code
 * Event.thread_cpu_ns}, {@code thread_cpu_exit_ns}). Between two readings, the wall time beyond
 * the CPU time is time off the CPU; it is charged to the gap that ends at the later reading (the
 * long gap that made the collector read), never more than that gap. Calls are given in each
 * thread's order. The collector's own time in a gap (sending its buffer: {@code
 * Event.collector_ns}) is left out too; where it overlaps time off the CPU (a send that blocked),
 * both are counted, never more than the gap.
 */
final class OffCpuTime {
  /** Per thread: the last CPU time read, and when (wall); -1 before any. */
  private final long[] lastCpu;
  private final long[] lastWall;
  /** Per thread: the previous call's exit (wall), -1 before any. */
  private final long[] prevExit;

  OffCpuTime(int threads) {
    lastCpu = new long[threads];
    lastWall = new long[threads];
    prevExit = new long[threads];
    Arrays.fill(lastCpu, -1);
    Arrays.fill(prevExit, -1);
  }

  /**
   * The time thread {@code t} was off the CPU in the gap before this call; 0 when its CPU times do
   * not tell.
   *
   * @param cpuEntry the thread's CPU time at entry, 0 when not read
   * @param cpuExit its CPU time at exit, 0 when not read
   */
  long next(int t, long entry, long duration, long cpuEntry, long cpuExit) {
    return next(t, entry, duration, cpuEntry, cpuExit, 0);
  }

  /**
   * As {@link #next(int, long, long, long, long)}, with the collector's own time in the gap
   * ({@code Event.collector_ns}: sending its buffer), which is not the program's either.
   */
  long next(int t, long entry, long duration, long cpuEntry, long cpuExit, long collector) {
    long off = 0;
    long gap = prevExit[t] >= 0 ? Math.max(0, entry - prevExit[t]) : 0;
    if (cpuEntry > 0 && lastCpu[t] >= 0 && prevExit[t] >= 0) {
      long wall = entry - lastWall[t];
      long cpu = cpuEntry - lastCpu[t];
      off = Math.max(0, wall - cpu);
    }
    off = Math.min(gap, off + collector);
    if (cpuEntry > 0) {
      lastCpu[t] = cpuEntry;
      lastWall[t] = entry;
    }
    if (cpuExit > 0) {
      lastCpu[t] = cpuExit;
      lastWall[t] = entry + duration;
    }
    prevExit[t] = entry + duration;
    return off;
  }

  /** What the report says of the time left out, if any. */
  static java.util.Optional<String> note(ReplayProgram p) {
    long off = 0;
    int gaps = 0;
    for (ReplayProgram.HostThread t : p.threads()) {
      for (ReplayProgram.Call c : t.calls()) {
        if (c.offCpuNs() > 0) {
          off += c.offCpuNs();
          gaps++;
        }
      }
    }
    if (off == 0) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(io.apptrace.node.Units.time(off * 1e-9) + " of the host time between calls ("
        + gaps + " gap(s)) the threads spent off the CPU in the trace (descheduled, sleeping or waiting) or in the"
        + " collector: left out; the host compute between calls is the program's CPU time");
  }
}
