package io.apptrace.replay;

import io.apptrace.node.TransferKind;
import java.util.Arrays;

/**
 * Copies past their fixed part: their bytes cross the links of their route, shared with the
 * transfers in flight ({@link Links}, docs/REPLAY.md "Copies"). The link-sharing model's next due
 * time is kept in the replay's event queue. A synchronous copy from pageable memory releases its
 * thread once its last staging chunk (at most the node's {@code measured.staging_chunk}) is in the
 * driver's pinned buffer, before that chunk's DMA (Pearson 2018, sec. 2.4.1).
 */
final class Transfers {
  private final OpTable t;
  private final Links links;
  private final Clock clock;
  private final EventQueue queue;
  private OpLifecycle lifecycle;
  private HostThreads hosts;

  private final double stagingChunkBytes;

  Transfers(OpTable t, Links links, Clock clock, EventQueue queue, double stagingChunkBytes) {
    this.t = t;
    this.links = links;
    this.clock = clock;
    this.queue = queue;
    this.stagingChunkBytes = stagingChunkBytes;
  }

  private final int[] one = new int[1];

  private int[] one(int op) {
    one[0] = op;
    return one;
  }

  void connect(OpLifecycle l, HostThreads h) {
    this.lifecycle = l;
    this.hosts = h;
  }

  /** Copy {@code i}'s fixed part is over: its bytes start to move, or it is done (nothing to move). */
  void fixedPartOver(int i) {
    if (t.bytes[i] > 0 && t.maxRate[i] < Double.POSITIVE_INFINITY) {
      t.state[i] = OpState.FLOWING;
      t.flowStart[i] = clock.now();
      double milestone = t.ops[i].synchronous() && t.ops[i].transfer() == TransferKind.PAGEABLE_H2D
          ? Math.min(t.bytes[i], stagingChunkBytes) : 0;
      links.start(i, t.resources[i], t.factors[i], t.maxRate[i], t.bytes[i], milestone, clock.now());
      links.update(clock.now());
      queue.transfersDueAt(links.isEmpty() ? Long.MAX_VALUE : links.nextAt());
    } else {
      lifecycle.finish(i);
    }
  }

  /** The link-sharing model's due time has come: transfers reach their milestone or end. */
  void due() {
    long now = clock.now();
    int m = links.milestones(now);
    for (int k = 0; k < m; k++) {
      hosts.release(links.result()[k]);
    }
    int done = links.finished(now);
    if (m == 0 && done == 0) {
      int stuck = links.firstActive();
      throw new IllegalStateException("the replay made no progress at " + now + " ns: a transfer event was due"
          + " but no transfer ended (operation " + stuck + ", " + (stuck >= 0 ? t.ops[stuck].name() : "none") + ")");
    }
    // finishing frees engines and threads, which may start transfers that reuse links.result()
    int[] finished = done == 1 ? one(links.result()[0]) : Arrays.copyOf(links.result(), done);
    for (int i : finished) {
      lifecycle.finish(i);
    }
    links.update(now); // rates and the next completion change
    queue.transfersDueAt(links.isEmpty() ? Long.MAX_VALUE : links.nextAt());
  }
}
