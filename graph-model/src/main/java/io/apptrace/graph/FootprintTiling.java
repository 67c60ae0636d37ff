package io.apptrace.graph;

import io.apptrace.trace.GraphEvent;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The slices rule for kernel footprints (docs/GRAPH.md, "Kernel reads and writes"): a kernel's
 * extent through a pointer ends where the next pointer into the same allocation begins, among the
 * launches of the same shape (grid and block) that come next. The CUDA sample simpleStreams
 * launches one kernel per stream on {@code base + k * chunk}; without this rule each launch was
 * taken to reach the allocation's end, over the next streams' slices: false races.
 *
 * <p>The launches that come next are those among the next {@link #WINDOW} events, read ahead
 * from the trace only when a launch needs them: the builder takes its events from here
 * ({@link #next()}), which hands out the events read ahead first and otherwise reads straight
 * from the trace. The search stops at a free, after which an address may belong to another
 * allocation. Events given to the builder one by one (not from a trace) have no window.
 */
final class FootprintTiling {
  /** Events looked ahead at most: enough for one round of launches over a stream's slices, and more. */
  static final int WINDOW = 128;

  /** The parameter layout of a kernel, or null when it is not known. */
  interface Layouts {
    KernelAccesses.Layout of(int pid, long kernelId);
  }

  /** Where the events come from, in time order. */
  interface Events {
    boolean hasNext();

    GraphEvent next() throws IOException;
  }

  private final GraphEvent[] ring = new GraphEvent[WINDOW];
  private int head;
  private int size;
  private Events source;

  /** Takes events from {@code source} from now on. */
  void from(Events source) {
    this.source = source;
  }

  boolean hasNext() {
    return size > 0 || source.hasNext();
  }

  /** The next event: one read ahead, else the next in the trace. */
  GraphEvent next() throws IOException {
    if (size == 0) {
      return source.next();
    }
    GraphEvent e = ring[head];
    ring[head] = null;
    head = (head + 1) & (WINDOW - 1);
    size--;
    return e;
  }

  /** The {@code i}-th event after the one being processed, read ahead as needed; null past the end. */
  private GraphEvent ahead(int i) {
    while (size <= i && source != null && source.hasNext()) {
      try {
        ring[(head + size) & (WINDOW - 1)] = source.next();
      } catch (IOException e) {
        throw new UncheckedIOException(e); // DvdgBuilder.build(Path) throws it as it was
      }
      size++;
    }
    return i < size ? ring[(head + i) & (WINDOW - 1)] : null;
  }

  /**
   * Where the footprint of {@code launch} through {@code address} ends: the lowest pointer above
   * {@code address} and below {@code limit} (the allocation's end) that a later launch of the
   * same shape in the same process passes, or {@code limit} when none does.
   */
  long end(GraphEvent.LaunchCall launch, long address, long limit, Layouts layouts) {
    long end = limit;
    int pid = launch.call().pid();
    for (int i = 0; i < WINDOW; i++) {
      GraphEvent e = ahead(i);
      if (e == null) {
        break;
      }
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
