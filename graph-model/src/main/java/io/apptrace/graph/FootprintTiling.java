package io.apptrace.graph;

import io.apptrace.trace.GraphEvent;

/**
 * The slices rule for kernel footprints (docs/GRAPH.md, "Kernel reads and writes"): a kernel's
 * extent through a pointer ends where the next pointer into the same allocation begins, among the
 * launches of the same shape (grid and block) that come next. The CUDA sample simpleStreams
 * launches one kernel per stream on {@code base + k * chunk}; without this rule each launch was
 * taken to reach the allocation's end, over the next streams' slices: false races.
 *
 * <p>The launches that come next are those of a window of the events still to be processed: the
 * graph builder holds each event here for {@link #WINDOW} events before processing it. The search
 * stops at a free in the window, after which an address may belong to another allocation.
 */
final class FootprintTiling {
  /** Events held back: enough for one round of launches over a stream's slices, and more. */
  static final int WINDOW = 128;

  /** The parameter layout of a kernel, or null when it is not known. */
  interface Layouts {
    KernelAccesses.Layout of(int pid, long kernelId);
  }

  private final GraphEvent[] ring = new GraphEvent[WINDOW];
  private int head;
  private int size;
  /** Launches among the events held (none: nothing to look for). */
  private int launches;

  /**
   * Takes the next event in time order; returns the event now due to be processed (the oldest
   * held), or null while the window fills.
   */
  GraphEvent offer(GraphEvent e) {
    if (e instanceof GraphEvent.LaunchCall) {
      launches++;
    }
    if (size < WINDOW) {
      ring[(head + size++) % WINDOW] = e;
      return null;
    }
    GraphEvent due = ring[head];
    ring[head] = e;
    head = (head + 1) % WINDOW;
    if (due instanceof GraphEvent.LaunchCall) {
      launches--;
    }
    return due;
  }

  /** The oldest event held, removed; null when none is left (at the end of the trace). */
  GraphEvent poll() {
    if (size == 0) {
      return null;
    }
    GraphEvent due = ring[head];
    ring[head] = null;
    head = (head + 1) % WINDOW;
    size--;
    if (due instanceof GraphEvent.LaunchCall) {
      launches--;
    }
    return due;
  }

  /**
   * Where the footprint of {@code launch} through {@code address} ends: the lowest pointer above
   * {@code address} and below {@code limit} (the allocation's end) that a later launch of the
   * same shape in the same process passes, or {@code limit} when none does.
   */
  long end(GraphEvent.LaunchCall launch, long address, long limit, Layouts layouts) {
    long end = limit;
    if (launches == 0) {
      return end;
    }
    int pid = launch.call().pid();
    for (int i = 0; i < size; i++) {
      GraphEvent e = ring[(head + i) % WINDOW];
      if (e instanceof GraphEvent.LaunchCall l) {
        if (l.call().pid() == pid && sameShape(l, launch) && l.call().ok()) {
          KernelAccesses.Layout layout = layouts.of(pid, l.kernelId());
          if (layout != null) {
            end = Math.min(end, layout.lowestPointerIn(l.args(), address + 1, end));
          }
        }
      } else if (e instanceof GraphEvent.Other o && o.call().pid() == pid && o.record().event().hasFree()) {
        break; // past a free, an address in the range may be another allocation's
      }
    }
    return end;
  }

  private static boolean sameShape(GraphEvent.LaunchCall a, GraphEvent.LaunchCall b) {
    return a.gridX() == b.gridX() && a.gridY() == b.gridY() && a.gridZ() == b.gridZ()
        && a.blockX() == b.blockX() && a.blockY() == b.blockY() && a.blockZ() == b.blockZ();
  }
}
