package io.apptrace.replay;

import io.apptrace.node.Node;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Transfers in flight on a node's links, as fluids (docs/REPLAY.md, "Copies": transfers in flight
 * share the links they cross): the bookkeeping of which transfer holds which resource, and when the
 * next one ends. Each direction of each link is a resource of capacity {@code bandwidth *
 * efficiency}; each CPU's memory is a resource of its memory bandwidth, shared by the transfers
 * that read or write it (docs/REPLAY.md, "Copies": host memory is shared). A transfer holds every
 * link of its route. Their rates are shared out by {@link MaxMinFairShare}; a transfer alone on its
 * links gets its rate without a reshare of the others (they are not affected). What each resource
 * carried is kept by {@link LinkUtilization}.
 *
 * <p>Time is integer nanoseconds, as the replay's clock: when a transfer's rate is set, its end
 * (and milestone) is fixed to the nearest nanosecond, and it finishes when the clock reaches that
 * time, whatever floating-point residue its byte count holds then. A transfer that has bytes left
 * therefore always ends at a time the clock reaches, at any makespan.
 */
final class Links {
  private final List<Node.Link> links;
  private final List<Node.Cpu> cpus;
  private final MaxMinFairShare share;
  private final LinkUtilization utilization;
  /** Transfers using each resource. */
  private final int[] users;
  /** Active transfers, in the order they started. */
  private LinkFlow[] active = new LinkFlow[16];
  private int count;
  /** A change that touched a link other transfers use: rates must be shared out again. */
  private boolean coupled;
  /** When the next transfer ends or reaches its milestone (absolute ns), as of the last update. */
  private long nextAt = Long.MAX_VALUE;
  private final Map<Node.Link, Integer> index = new IdentityHashMap<>();
  private int[] out = new int[16];
  /** Each active transfer's rate before a sharing, to keep the end of those it did not change. */
  private double[] before = new double[16];

  Links(Node node, boolean keepSamples) {
    this.links = node.links();
    this.cpus = node.cpus();
    double[] capacity = new double[links.size() * 2 + cpus.size() * 2];
    double[] duplex = new double[capacity.length];
    for (int i = 0; i < links.size(); i++) {
      Node.Link l = links.get(i);
      capacity[2 * i] = l.bandwidth() * l.efficiency(true) / 1e9; // bytes per ns, from a to b
      capacity[2 * i + 1] = l.bandwidth() * l.efficiency(false) / 1e9;
      duplex[2 * i] = l.duplex();
      duplex[2 * i + 1] = l.duplex();
      index.put(l, i);
    }
    for (int c = 0; c < cpus.size(); c++) {
      // reads and writes share a memory's bandwidth: one resource; its twin (kept so that every
      // resource has a pair, as a link's two directions) is never used
      capacity[memoryResource(c)] = cpus.get(c).memoryBandwidth() / 1e9;
      capacity[memoryResource(c) + 1] = Double.POSITIVE_INFINITY;
      duplex[memoryResource(c)] = 1;
      duplex[memoryResource(c) + 1] = 1;
    }
    this.share = new MaxMinFairShare(capacity, duplex);
    this.utilization = new LinkUtilization(capacity.length, keepSamples);
    this.users = new int[capacity.length];
  }

  /** Resource id of link {@code i} crossed from its {@code a} end (forward) or from {@code b}. */
  static int resource(int link, boolean forward) {
    return 2 * link + (forward ? 0 : 1);
  }

  /** Resource id of the memory of the node's CPU {@code cpu} (its index in the node's CPUs). */
  int memoryResource(int cpu) {
    return 2 * links.size() + 2 * cpu;
  }

  /** Whether resource {@code r} is a CPU's memory (not a direction of a link). */
  boolean isMemory(int r) {
    return r >= 2 * links.size();
  }

  /** The CPU whose memory resource {@code r} is. */
  Node.Cpu memoryOf(int r) {
    return cpus.get((r - 2 * links.size()) / 2);
  }

  int linkIndex(Node.Link l) {
    return index.get(l);
  }

  List<Node.Link> links() {
    return links;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** The operation of the transfer in flight that started first, or -1. */
  int firstActive() {
    return count == 0 ? -1 : active[0].op;
  }

  /** The absolute time of the next completion or milestone, ns; valid after {@link #update}. */
  long nextAt() {
    return nextAt;
  }

  /**
   * Starts a transfer at {@code now}; call {@link #update} once the changes of this instant are
   * made.
   */
  void start(int op, int[] resources, double[] factors, double maxRate, double bytes, double milestone, long now) {
    if (count == active.length) {
      active = Arrays.copyOf(active, count * 2);
    }
    LinkFlow f = new LinkFlow(op, resources, factors, maxRate, bytes);
    f.milestone = milestone < bytes ? milestone : 0;
    active[count++] = f;
    boolean shares = false;
    for (int r : resources) {
      shares |= users[r] > 0 || users[r ^ 1] > 0; // the other direction: the duplex factor couples them
    }
    if (shares) {
      coupled = true;
    } else {
      f.setRate(share.aloneRate(resources, factors, maxRate), now);
    }
    for (int r : resources) {
      users[r]++;
    }
  }

  /** Moves every transfer on by {@code dt} ns at its current rate. */
  void advance(long dt) {
    if (dt <= 0) {
      return;
    }
    for (int i = 0; i < count; i++) {
      LinkFlow f = active[i];
      f.bytesLeft -= f.rate * dt;
    }
  }

  /** The buffer {@link #finished()} and {@link #milestones()} fill. */
  int[] result() {
    return out;
  }

  private void emit(int n, int op) {
    if (n == out.length) {
      out = Arrays.copyOf(out, n * 2);
    }
    out[n] = op;
  }

  /**
   * The transfers that have reached their milestone (each once), in start order: their operation
   * ids are then {@code result()[0, returned count)}.
   */
  int milestones(long now) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      LinkFlow f = active[i];
      if (f.milestone > 0 && f.milestoneAt <= now) {
        f.milestone = 0;
        f.milestoneAt = Long.MAX_VALUE;
        emit(n++, f.op);
      }
    }
    return n;
  }

  /**
   * Removes the transfers that have moved all their bytes; their operation ids are then
   * {@code result()[0, returned count)}, in start order.
   */
  int finished(long now) {
    int n = 0;
    int k = 0;
    for (int i = 0; i < count; i++) {
      LinkFlow f = active[i];
      if (f.doneAt <= now) {
        emit(n++, f.op);
        for (int r : f.resources) {
          users[r]--;
          // a transfer that shared a link leaves bandwidth to the others
          coupled |= users[r] > 0 || users[r ^ 1] > 0;
        }
      } else {
        active[k++] = f;
      }
    }
    Arrays.fill(active, k, count, null);
    count = k;
    return n;
  }

  /**
   * After transfers started or finished (now): shares the rates out again if a change touched a
   * link others use, else only finds the next completion.
   */
  void update(long now) {
    if (coupled || utilization.keepsSamples()) {
      coupled = false;
      reshare(now);
    } else {
      nextAt = nextEvent();
    }
  }

  private long nextEvent() {
    long next = Long.MAX_VALUE;
    for (int i = 0; i < count; i++) {
      LinkFlow f = active[i];
      next = Math.min(next, Math.min(f.doneAt, f.milestoneAt));
    }
    return next;
  }

  /** The current rate of a transfer, bytes per ns (0 when it is not moving). */
  double rate(int op) {
    for (int i = 0; i < count; i++) {
      if (active[i].op == op) {
        return active[i].rate;
      }
    }
    return 0;
  }

  /** Shares the links out again, and notes utilization at {@code now}. */
  private void reshare(long now) {
    utilization.accrue(now, share);
    if (before.length < count) {
      before = new double[count * 2];
    }
    for (int i = 0; i < count; i++) {
      before[i] = active[i].rate;
    }
    share.share(active, count);
    for (int i = 0; i < count; i++) {
      LinkFlow f = active[i];
      // a transfer whose rate did not change keeps the end it was given: no rounding again
      if (f.rate != before[i] || f.doneAt == Long.MAX_VALUE) {
        f.setRate(f.rate, now);
      }
    }
    nextAt = nextEvent();
    utilization.sample(now, count == 0, share);
  }

  /** How long resource {@code r} (a link direction, or a CPU's memory) carried data, ns. */
  double busyNs(int r) {
    return utilization.busyNs(r);
  }

  /** Utilization samples of resource {@code r}. */
  List<double[]> samples(int r) {
    return utilization.samples(r);
  }

  int resources() {
    return share.resources();
  }
}
