package io.apptrace.replay;

import io.apptrace.node.ApiClass;
import io.apptrace.node.Node;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The what-if {@code pin-pageable} (and {@code pin=ALLOCATION}; docs/REPLAY.md, "Application
 * what-ifs"): copies from or to pageable memory are made from or to pinned memory. Those copies
 * lose their measured times, which were a pageable copy's. Each buffer pinned pays the node's
 * {@code cudaHostRegister} cost once, on the thread that first copies it, just before that copy
 * (Abdelhafez et al. 2019, sec. VIII, lesson 1: pinning pays once amortized over the copies).
 */
final class PinPageable {
  private PinPageable() {}

  /** Every pageable copy made pinned, pinning not charged: what the advice sets against its own estimate of the cost. */
  static ReplayProgram of(ReplayProgram p) {
    ProgramEdit e = new ProgramEdit(p);
    for (ReplayProgram.Op o : p.ops()) {
      if (pageable(o)) {
        e.set(ProgramEdit.with(o, o.transfer().pinnedOfSameWay(), o.bytes(), o.stream(), o.synchronous()));
      }
    }
    return e.build();
  }

  /**
   * Pins the pageable buffers copied ({@code only}: that allocation alone), charging each its
   * pinning on {@code node}.
   *
   * @throws IllegalArgumentException when {@code only} names no pageable buffer a copy uses
   */
  static String apply(ProgramEdit e, ProgramValues values, Node node, OptionalInt only) {
    int[][] issuers = e.issuers();
    Set<Integer> pinned = new HashSet<>();
    List<long[]> charges = new ArrayList<>(); // {thread, index, bytes}
    int copies = 0;
    long pinBytes = 0;
    for (ReplayProgram.Op o : e.ops()) {
      if (!pageable(o) || e.isDropped(o.id())) {
        continue;
      }
      List<ProgramValues.Region> host = o.transfer() == TransferKind.PAGEABLE_H2D ? values.reads(o.id())
          : values.writes(o.id());
      int alloc = host.isEmpty() ? -1 : host.get(0).allocation();
      if (only.isPresent() && alloc != only.getAsInt()) {
        continue;
      }
      e.set(ProgramEdit.with(o, o.transfer().pinnedOfSameWay(), o.bytes(), o.stream(), o.synchronous()));
      copies++;
      if (alloc >= 0 && pinned.add(alloc) && issuers[o.id()] != null) {
        long bytes = values.buffer(alloc).map(ProgramValues.Buffer::bytes).orElse(o.bytes());
        pinBytes += bytes;
        charges.add(new long[] {issuers[o.id()][0], issuers[o.id()][1], bytes});
      }
    }
    if (only.isPresent() && copies == 0) {
      throw new IllegalArgumentException("--what-if pin=" + only.getAsInt() + ": allocation " + only.getAsInt()
          + " is no pageable buffer a copy uses (see 'apptrace graph --json': the 'alloc' of a copy's host value)");
    }
    // later indexes first, so earlier ones stay where they are
    charges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[1], a[1]));
    long pinNs = 0;
    for (long[] c : charges) {
      int t = (int) c[0];
      int i = (int) c[1];
      long ns = node.hostOverheads().costNs(ApiClass.HOST_REGISTER, c[2]);
      pinNs += ns;
      e.insert(t, i, new ReplayProgram.Call(HostCall.HOST_WORK, e.calls(t).get(i).entryNs(), ns, "cudaHostRegister",
          c[2], 0));
    }
    return String.format(Locale.ROOT, "%d cop%s made from or to pinned memory; %d buffer(s) pinned (%s), charged %s"
        + " of cudaHostRegister from %s's host-overhead model", copies, copies == 1 ? "y" : "ies", pinned.size(),
        Units.size(pinBytes), Units.time(pinNs * 1e-9), node.name());
  }

  private static boolean pageable(ReplayProgram.Op o) {
    return o.transfer() == TransferKind.PAGEABLE_H2D || o.transfer() == TransferKind.PAGEABLE_D2H;
  }
}
