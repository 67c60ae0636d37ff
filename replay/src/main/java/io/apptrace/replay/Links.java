package io.apptrace.replay;

import io.apptrace.node.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Transfers in flight on a node's links, as fluids (docs/REPLAY.md, "Copies": transfers in flight
 * share the links they cross). Each direction of each link is a resource of capacity
 * {@code bandwidth * efficiency}, times the link's duplex factor while the other direction is busy
 * too. Each CPU's memory is a resource of its memory bandwidth, shared by the transfers that read
 * or write it (docs/REPLAY.md, "Copies": host memory is shared). A transfer holds every link of its route; on each it uses its data rate times the bytes the
 * link carries per data byte (Abdelhafez et al. 2019, eqs. 4-7). Rates are max-min fair (progressive
 * filling), and no transfer goes faster than it would alone. A transfer alone on its links gets its
 * rate without a reshare of the others (they are not affected).
 *
 * <p>Time is integer nanoseconds, as the replay's clock: when a transfer's rate is set, its end
 * (and milestone) is fixed to the nearest nanosecond, and it finishes when the clock reaches that
 * time, whatever floating-point residue its byte count holds then. A transfer that has bytes left
 * therefore always ends at a time the clock reaches, at any makespan.
 */
final class Links {
  private final List<Node.Link> links;
  private final List<Node.Cpu> cpus;
  private final double[] capacity;
  private final double[] used;
  /** Transfers using each resource. */
  private final int[] users;
  /** Active transfers, in the order they started. */
  private Flow[] active = new Flow[16];
  private int count;
  /** A change that touched a link other transfers use: rates must be shared out again. */
  private boolean coupled;
  /** When the next transfer ends or reaches its milestone (absolute ns), as of the last update. */
  private long nextAt = Long.MAX_VALUE;
  /** Utilization samples per resource: time (ns), fraction; appended when it changes. */
  private final List<List<double[]>> samples = new ArrayList<>();
  private final boolean keepSamples;
  private final Map<Node.Link, Integer> index = new IdentityHashMap<>();
  private int[] out = new int[16];

  /** One transfer's state. */
  static final class Flow {
    final int op;
    final int[] resources;
    final double[] factors;
    final double maxRate;
    double bytesLeft;
    double rate;
    /** Bytes left at which the transfer signals a milestone (0: none). */
    double milestone;
    /** When it ends and when it reaches its milestone at its current rate, ns (MAX_VALUE: never). */
    long doneAt = Long.MAX_VALUE;
    long milestoneAt = Long.MAX_VALUE;

    /** Sets the rate from {@code now} on, and the times of the end and the milestone at it. */
    void setRate(double r, long now) {
      rate = r;
      doneAt = r > 0 ? now + Clock.ticks(bytesLeft / r) : Long.MAX_VALUE;
      milestoneAt = r > 0 && milestone > 0 ? now + Clock.ticks(Math.max(0, bytesLeft - milestone) / r) : Long.MAX_VALUE;
    }

    Flow(int op, int[] resources, double[] factors, double maxRate, double bytes) {
      this.op = op;
      this.resources = resources;
      this.factors = factors;
      this.maxRate = maxRate;
      this.bytesLeft = bytes;
    }
  }

  Links(Node node, boolean keepSamples) {
    this.links = node.links();
    this.cpus = node.cpus();
    this.capacity = new double[links.size() * 2 + cpus.size() * 2];
    for (int i = 0; i < links.size(); i++) {
      Node.Link l = links.get(i);
      capacity[2 * i] = l.bandwidth() * l.efficiency(true) / 1e9; // bytes per ns, from a to b
      capacity[2 * i + 1] = l.bandwidth() * l.efficiency(false) / 1e9;
      index.put(l, i);
    }
    for (int c = 0; c < cpus.size(); c++) {
      // reads and writes share a memory's bandwidth: one resource; its twin (kept so that every
      // resource has a pair, as a link's two directions) is never used
      capacity[memoryResource(c)] = cpus.get(c).memoryBandwidth() / 1e9;
      capacity[memoryResource(c) + 1] = Double.POSITIVE_INFINITY;
    }
    this.used = new double[capacity.length];
    this.users = new int[capacity.length];
    this.keepSamples = keepSamples;
    for (int i = 0; i < capacity.length; i++) {
      samples.add(new ArrayList<>());
    }
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
    Flow f = new Flow(op, resources, factors, maxRate, bytes);
    f.milestone = milestone < bytes ? milestone : 0;
    active[count++] = f;
    boolean shares = false;
    for (int r : resources) {
      shares |= users[r] > 0 || users[r ^ 1] > 0; // the other direction: the duplex factor couples them
    }
    if (shares) {
      coupled = true;
    } else {
      double rate = maxRate;
      for (int j = 0; j < resources.length; j++) {
        rate = Math.min(rate, capacity[resources[j]] / factors[j]);
      }
      f.setRate(rate, now);
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
      Flow f = active[i];
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
      Flow f = active[i];
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
      Flow f = active[i];
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
    if (coupled || keepSamples) {
      coupled = false;
      reshare(now);
    } else {
      nextAt = nextEvent();
    }
  }

  private long nextEvent() {
    long next = Long.MAX_VALUE;
    for (int i = 0; i < count; i++) {
      Flow f = active[i];
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

  // scratch space for reshare, reused
  private double[] cap = new double[0];
  private double[] load = new double[0];
  private double[] weight = new double[0];
  private boolean[] busy = new boolean[0];
  private int[] touched = new int[0];
  private boolean[] isTouched = new boolean[0];
  private int nTouched;
  private boolean[] frozen = new boolean[16];
  private double[] before = new double[16];

  // per resource: time it carried data, and that time weighted by its utilization
  private double[] busyNs = new double[0];
  private long lastReshare = -1;

  /** Adds the time since the last sharing to the resources that carried data through it. */
  private void accrue(long now) {
    if (busyNs.length != capacity.length) {
      busyNs = new double[capacity.length];
    }
    if (lastReshare >= 0 && now > lastReshare) {
      for (int t = 0; t < nTouched; t++) {
        int r = touched[t];
        if (used[r] > 0) {
          busyNs[r] += now - lastReshare;
        }
      }
    }
    lastReshare = now;
  }

  /** How long resource {@code r} (a link direction, or a CPU's memory) carried data, ns. */
  double busyNs(int r) {
    return r < busyNs.length ? busyNs[r] : 0;
  }

  /** Shares the links out again (progressive filling), and notes utilization at {@code now}. */
  private void reshare(long now) {
    accrue(now);
    int nr = capacity.length;
    if (cap.length != nr) {
      cap = new double[nr];
      load = new double[nr];
      weight = new double[nr];
      busy = new boolean[nr];
      touched = new int[nr];
      isTouched = new boolean[nr];
    }
    if (frozen.length < count) {
      frozen = new boolean[count * 2];
    }
    // only the resources the transfers use are looked at
    for (int t = 0; t < nTouched; t++) {
      int r = touched[t];
      busy[r] = false;
      load[r] = 0;
      used[r] = 0;
      isTouched[r] = false;
    }
    nTouched = 0;
    if (before.length < count) {
      before = new double[count * 2];
    }
    for (int i = 0; i < count; i++) {
      Flow f = active[i];
      before[i] = f.rate;
      f.rate = 0;
      frozen[i] = false;
      for (int r : f.resources) {
        busy[r] = true;
        if (!isTouched[r]) {
          isTouched[r] = true;
          touched[nTouched++] = r;
        }
      }
    }
    for (int t = 0; t < nTouched; t++) {
      int r = touched[t];
      cap[r] = !isMemory(r) && busy[r ^ 1] ? capacity[r] * links.get(r / 2).duplex() : capacity[r];
    }
    int left = count;
    while (left > 0) {
      // the common increment every unfrozen transfer can take before a link saturates or it
      // reaches its own maximum
      for (int t = 0; t < nTouched; t++) {
        weight[touched[t]] = 0;
      }
      for (int i = 0; i < count; i++) {
        if (!frozen[i]) {
          Flow f = active[i];
          for (int j = 0; j < f.resources.length; j++) {
            weight[f.resources[j]] += f.factors[j];
          }
        }
      }
      double step = Double.POSITIVE_INFINITY;
      for (int t = 0; t < nTouched; t++) {
        int r = touched[t];
        if (weight[r] > 0) {
          step = Math.min(step, Math.max(0, cap[r] - load[r]) / weight[r]);
        }
      }
      for (int i = 0; i < count; i++) {
        if (!frozen[i]) {
          step = Math.min(step, active[i].maxRate - active[i].rate);
        }
      }
      if (step == Double.POSITIVE_INFINITY) {
        step = 0;
      }
      for (int i = 0; i < count; i++) {
        if (!frozen[i]) {
          Flow f = active[i];
          f.rate += step;
          for (int j = 0; j < f.resources.length; j++) {
            load[f.resources[j]] += step * f.factors[j];
          }
        }
      }
      int before = left;
      for (int i = 0; i < count; i++) {
        if (frozen[i]) {
          continue;
        }
        Flow f = active[i];
        boolean stop = f.rate >= f.maxRate * (1 - 1e-12);
        for (int r : f.resources) {
          stop |= load[r] >= cap[r] * (1 - 1e-12);
        }
        if (stop) {
          frozen[i] = true;
          left--;
        }
      }
      if (left == before) { // numerical safety: nothing saturated, so nothing more to give
        break;
      }
    }
    for (int t = 0; t < nTouched; t++) {
      used[touched[t]] = load[touched[t]];
    }
    for (int i = 0; i < count; i++) {
      Flow f = active[i];
      // a transfer whose rate did not change keeps the end it was given: no rounding again
      if (f.rate != before[i] || f.doneAt == Long.MAX_VALUE) {
        f.setRate(f.rate, now);
      }
    }
    nextAt = nextEvent();
    sample(now);
  }

  private void sample(long now) {
    if (!keepSamples) {
      return;
    }
    for (int r = 0; r < capacity.length; r++) {
      double u = count == 0 ? 0 : Math.min(1, used[r] / capacity[r]);
      List<double[]> s = samples.get(r);
      if (s.isEmpty() || s.get(s.size() - 1)[1] != u) {
        if (!s.isEmpty() && s.get(s.size() - 1)[0] == now) {
          s.set(s.size() - 1, new double[] {now, u});
        } else {
          s.add(new double[] {now, u});
        }
      }
    }
  }

  /** Utilization samples of resource {@code r}. */
  List<double[]> samples(int r) {
    return samples.get(r);
  }

  int resources() {
    return capacity.length;
  }
}
