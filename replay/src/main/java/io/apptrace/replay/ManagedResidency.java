package io.apptrace.replay;

import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.TransferKind;
import io.apptrace.node.Units;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The managed-memory rule of docs/REPLAY.md ("Managed memory"): where each managed allocation is
 * resident as the program runs, and what moving it costs on the node.
 *
 * <ul>
 *   <li>An allocation starts on the host: the host is assumed to have written it first (its loads
 *       and stores are not in the trace).
 *   <li>A prefetch (cudaMemPrefetchAsync) is a copy on its stream's copy engine and the route to its
 *       destination, priced as a prefetch transfer; one to where the allocation already is moves
 *       nothing and costs its fixed part only. Afterwards the allocation is at the destination.
 *   <li>A kernel or memset that reaches an allocation resident elsewhere migrates the bytes it
 *       reaches by page faults (Pearson 2018, sec. 5.2, Table 5.5: one fault per migration granule
 *       plus the bytes over the route), added to its own time, since the faulting warps wait; the
 *       allocation is then on its GPU. A node without measured fault latencies prices the bytes as
 *       a pinned copy and says it is a lower bound.
 *   <li>Residence is kept per allocation: an operation that reaches part of one moves it whole.
 *   <li>Host reads after GPU writes cannot be seen in a trace: an allocation that ends on a GPU is
 *       reported with what migrating it back would cost, not priced.
 * </ul>
 */
final class ManagedResidency {
  static final int HOST = -1;

  private final TransferModel model;
  private final OpTable t;
  private final Replayer.Options o;
  private final List<String> notes = new ArrayList<>();
  private final double[] afterCallNs;
  private final int[] callBase;

  private ManagedResidency(ReplayProgram p, TransferModel model, OpTable t, Replayer.Options o) {
    this.model = model;
    this.t = t;
    this.o = o;
    callBase = new int[p.threads().size() + 1];
    for (int i = 0; i < p.threads().size(); i++) {
      callBase[i + 1] = callBase[i] + p.threads().get(i).calls().size();
    }
    afterCallNs = new double[callBase[p.threads().size()]];
  }

  /**
   * Applies the rule to {@code t}'s priced operations: faults added to kernels' and memsets' times,
   * prefetches of data already in place reduced to their fixed part, host reads after
   * synchronizations as host time after the call.
   *
   * @return per call, in the order of the threads' calls, the host time to add after it
   */
  static ManagedResidency apply(ReplayProgram p, TransferModel model, OpTable t, Replayer.Options o)
      throws NodeFileException {
    ManagedResidency r = new ManagedResidency(p, model, t, o);
    r.run(p);
    return r;
  }

  /** What it found worth saying, one line each. */
  List<String> notes() {
    return notes;
  }

  /** Per call (the threads' calls one after the other): host time to add after it, ns. */
  double[] afterCallNs() {
    return afterCallNs;
  }

  private int gpu(int traceDevice) {
    return o.deviceMap().getOrDefault(traceDevice, traceDevice);
  }

  private void run(ReplayProgram p) throws NodeFileException {
    if (p.managed().isEmpty()) {
      return;
    }
    Map<Integer, Integer> at = new HashMap<>(); // allocation -> node GPU, or HOST
    Map<Integer, Long> sizes = new HashMap<>();
    Map<Integer, Long> written = new HashMap<>(); // allocation -> bytes the GPU wrote since it came there
    int prefetches = 0;
    int inPlace = 0;
    long prefetchedBytes = 0;
    int faulting = 0;
    long faultedBytes = 0;
    double faultNs = 0;
    int readBacks = 0;
    long readBytes = 0;
    double readNs = 0;
    boolean lowerBound = false;
    double lastCallReads = 0;
    for (ReplayProgram.Managed e : p.managed()) {
      if (e instanceof ReplayProgram.Managed.HostSync h) {
        if (o.managedHostReads() == ManagedHostReads.NONE || written.isEmpty()) {
          continue;
        }
        double ns = 0;
        long bytes = 0;
        for (Map.Entry<Integer, Long> w : written.entrySet()) {
          TransferEstimate back = migration(at.get(w.getKey()), HOST, w.getValue());
          lowerBound |= !back.kind().startsWith("fault_");
          ns += back.seconds() * 1e9;
          bytes += w.getValue();
          at.put(w.getKey(), HOST);
        }
        written.clear();
        if (h.call() >= 0 && h.call() == p.threads().get(h.thread()).calls().size() - 1) {
          lastCallReads += ns; // no call follows to wait for it: said, not priced
        } else if (h.call() >= 0) {
          afterCallNs[callBase[h.thread()] + h.call()] += ns;
          readBytes += bytes;
          readBacks++;
          readNs += ns;
        }
        continue;
      }
      ReplayProgram.Managed.Access m = (ReplayProgram.Managed.Access) e;
      sizes.put(m.allocation(), m.allocationBytes());
      int where = at.getOrDefault(m.allocation(), HOST);
      int to = m.device() < 0 ? HOST : gpu(m.device());
      at.put(m.allocation(), to);
      if (where != to) {
        written.remove(m.allocation());
      }
      if (m.writes() && to != HOST) {
        written.merge(m.allocation(), m.bytes(), (a, b) -> Math.min(m.allocationBytes(), a + b));
      }
      if (m.op() < 0 || o.keepMeasured() && t.ops[m.op()].measured()) {
        continue; // outside the replay, or its measured time already holds the migration
      }
      int i = m.op();
      if (m.prefetch()) {
        prefetches++;
        if (where == to) {
          inPlace++;
          t.bytes[i] = 0; // nothing to move: the call's fixed part only
        } else {
          prefetchedBytes += m.bytes();
        }
        continue;
      }
      if (where == to) {
        continue;
      }
      TransferEstimate mig = migration(where, to, m.bytes());
      lowerBound |= !mig.kind().startsWith("fault_");
      double ns = mig.seconds() * 1e9;
      t.phase[i] += ns;
      t.modelled[i] = true;
      faulting++;
      faultedBytes += m.bytes();
      faultNs += ns;
    }
    String node = model.node().name();
    String how = lowerBound ? node + " has no measured page-fault latency (measured.page_fault): priced as pinned"
        + " copies without it, a lower bound" : "Pearson 2018, Table 5.5";
    if (prefetches > 0) {
      notes.add("managed memory: " + prefetches + " prefetch(es) priced as copies, " + Units.size(prefetchedBytes)
          + " moved" + (inPlace > 0 ? "; " + inPlace + " found the data in place and move nothing" : ""));
    }
    if (faulting > 0) {
      notes.add("managed memory: " + faulting + " operation(s) reach " + Units.size(faultedBytes)
          + " resident elsewhere: " + Units.time(faultNs * 1e-9) + " of page-fault migration added to their times ("
          + how + ")");
    }
    if (readBacks > 0) {
      notes.add("managed memory: the host is assumed to read what the GPU wrote after each synchronization (the trace"
          + " cannot see host loads and stores; --managed-host-reads none assumes it reads nothing): "
          + Units.size(readBytes) + " migrate back after " + readBacks + " call(s), " + Units.time(readNs * 1e-9)
          + " of host time (" + how + ")");
    }
    if (lastCallReads > 0) {
      notes.add("managed memory: reads after a thread's last call would take " + Units.time(lastCallReads * 1e-9)
          + " more; no call of the program follows them, so they are not in the makespan");
    }
    long endOnGpu = 0;
    int allocations = 0;
    double back = 0;
    for (Map.Entry<Integer, Integer> e : at.entrySet()) {
      if (e.getValue() != HOST) {
        allocations++;
        long n = sizes.get(e.getKey());
        endOnGpu += n;
        back += migration(e.getValue(), HOST, n).seconds();
      }
    }
    if (allocations > 0) {
      notes.add("managed memory: " + allocations + " allocation(s) (" + Units.size(endOnGpu) + ") end on a GPU"
          + (o.managedHostReads() == ManagedHostReads.NONE ? "" : " with no synchronization after their last write")
          + "; host reads of them are not in the trace (it cannot see host loads and stores) and are not priced:"
          + " migrating them back by page faults would take " + Units.time(back) + " on " + node);
    }
    long advice = p.threads().stream().flatMap(th -> th.calls().stream())
        .filter(c -> c.name().startsWith("cudaMemAdvise")).count();
    if (advice > 0) {
      notes.add("managed memory: " + advice + " cudaMemAdvise call(s) not modelled: data moves where it is"
          + " prefetched or used");
    }
  }

  /** Moving {@code bytes} of managed memory from {@code from} to {@code to} (node GPUs, or HOST) by page faults. */
  private TransferEstimate migration(int from, int to, long bytes) throws NodeFileException {
    TransferKind.Way way = from == HOST ? TransferKind.Way.H2D : to == HOST ? TransferKind.Way.D2H
        : TransferKind.Way.P2P;
    int gpu = from == HOST ? to : from;
    TransferModel.Endpoints where = new TransferModel.Endpoints(-1, gpu, to == HOST ? gpu : to);
    if (model.node().measured().pageFaults().cpuToGpu().isPresent()) {
      try {
        return model.pageFaultMigration(way, bytes, where);
      } catch (NodeFileException missingOne) {
        // this direction's latency is missing: the lower bound below
      }
    }
    TransferKind pinned = switch (way) {
      case H2D -> TransferKind.PINNED_H2D;
      case D2H -> TransferKind.PINNED_D2H;
      default -> TransferKind.PEER;
    };
    return model.estimate(pinned, bytes, where, o.setting());
  }
}
