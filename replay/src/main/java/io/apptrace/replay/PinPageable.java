package io.apptrace.replay;

import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;

/**
 * The what-if the pageable-copy advice replays (docs/REPLAY.md, "Advice"): the same program with
 * every copy from or to pageable memory made from or to pinned memory. Those copies lose their
 * measured times, which were a pageable copy's; nothing else changes. The cost of pinning is not
 * in the program: the advice sets it against the saving.
 */
final class PinPageable {
  private PinPageable() {}

  static ReplayProgram of(ReplayProgram p) {
    List<ReplayProgram.Op> ops = new ArrayList<>(p.ops().size());
    for (ReplayProgram.Op o : p.ops()) {
      TransferKind k = o.transfer();
      if (k == TransferKind.PAGEABLE_H2D || k == TransferKind.PAGEABLE_D2H) {
        o = new ReplayProgram.Op(o.id(), o.kind(), o.name(), o.stream(), o.device(), o.peerDevice(),
            k.pinnedOfSameWay(), o.bytes(), o.numa(), -1, -1, o.touchedBytes(), o.mappedReadBytes(),
            o.mappedWriteBytes(), o.blocks(), o.synchronous(), o.launch());
      }
      ops.add(o);
    }
    return new ReplayProgram(ops, p.streams(), p.threads(), p.events(), p.provenance(), p.sourceDevices())
        .withAnnotations(p.ranges(), p.marks()).withContextsBefore(p.contextsBefore()).withManaged(p.managed());
  }
}
