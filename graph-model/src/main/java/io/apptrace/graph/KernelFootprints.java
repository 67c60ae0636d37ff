package io.apptrace.graph;

import io.apptrace.trace.GraphEvent;
import java.util.List;

/**
 * How many bytes a launch is taken to touch through each of its accesses: the footprint rules of
 * docs/GRAPH.md ("Kernel reads and writes"), in order. A kernel's arguments say where it starts
 * in an allocation, never how far it goes: each rule is a guess, and races found through them are
 * only possible ({@link Race}).
 */
final class KernelFootprints {
  private final OperationTable ops;
  private final ValueTable values;
  private final FootprintTiling tiling;
  private final FootprintTiling.Layouts layouts;
  /** The bytes taken for each access of the last launch (reused from launch to launch). */
  private long[] spans = new long[8];

  KernelFootprints(OperationTable ops, ValueTable values, FootprintTiling tiling, FootprintTiling.Layouts layouts) {
    this.ops = ops;
    this.values = values;
    this.tiling = tiling;
    this.layouts = layouts;
  }

  /**
   * The bytes a launch is taken to touch through each of its accesses (its arguments cannot say),
   * by the first rule that gives an answer (docs/GRAPH.md): the chunk (a range that is not the
   * whole allocation) a copy or memset last wrote starting exactly at the pointer (a chunked
   * pipeline hands each kernel the chunk its stream copied in); the smallest chunk the first rule
   * found at the launch's other pointers (a kernel given a chunk in works on a chunk out); up to the next
   * pointer into the allocation among the coming launches of the same shape
   * ({@link FootprintTiling}: slices); the allocation's end.
   */
  long[] of(GraphEvent.LaunchCall l, List<KernelAccesses.Access> accesses) {
    int n = accesses.size();
    if (spans.length < n) {
      spans = new long[Math.max(n, spans.length * 2)];
    }
    long chunk = Long.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      KernelAccesses.Access a = accesses.get(i);
      WriteMap w = a.allocation.writes;
      long span = w.rangeStartingAt(a.offset);
      if (span > 0 && (a.offset == 0 && span >= a.allocation.bytes()
          || !chunkEvidence(values.producer(w.valueStartingAt(a.offset))))) {
        span = 0; // a whole allocation is no chunk; another kernel's footprint was itself inferred
      }
      spans[i] = span;
      if (span > 0) {
        chunk = Math.min(chunk, span);
      }
    }
    for (int i = 0; i < n; i++) {
      if (spans[i] == 0) {
        KernelAccesses.Access a = accesses.get(i);
        long rest = a.allocation.bytes() - a.offset;
        if (chunk != Long.MAX_VALUE) {
          spans[i] = Math.min(chunk, rest);
        } else {
          long start = a.allocation.start() + a.offset;
          spans[i] = tiling.end(l, start, start + rest, layouts) - start;
        }
      }
    }
    return spans;
  }

  /**
   * Whether the range operation {@code op} wrote can be a kernel's chunk: a copy's or a memset's,
   * not another kernel's (its footprint was itself inferred) nor an MPI or NCCL receive's (in a
   * job's graph, docs/JOBS.md: a message lands where the program's exchange puts it, a halo at the
   * start of a buffer the kernel reads whole, not what a stream copied in for one kernel).
   */
  private boolean chunkEvidence(int op) {
    return ops.kind(op) != OpKind.KERNEL && !ops.isCommBufferAccess(op);
  }
}
