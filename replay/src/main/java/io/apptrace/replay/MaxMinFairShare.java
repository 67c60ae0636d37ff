package io.apptrace.replay;

/**
 * The rates of the transfers in flight, max-min fair by progressive filling (docs/REPLAY.md,
 * "Copies": transfers in flight share the links they cross). Each resource (a direction of a link,
 * or a CPU's memory) has a capacity; a direction of a link has its capacity times the link's duplex
 * factor while the other direction carries data too. On each resource a transfer uses its data rate
 * times the bytes the resource carries per data byte (Abdelhafez et al. 2019, eqs. 4-7). Every
 * transfer's rate grows by one common step until a resource it uses is full or it reaches its own
 * maximum, when it stops growing; the others go on. No transfer goes faster than it would alone.
 *
 * <p>Which transfer holds which resource is {@link Links}'s bookkeeping; this class does the
 * arithmetic. Its arrays are indexed by resource and reused from one sharing to the next (the
 * replay shares rates out again whenever a transfer that shares a link starts or ends), and only
 * the resources the transfers use are looked at.
 */
final class MaxMinFairShare {
  /** Capacity of each resource alone, bytes per ns. */
  private final double[] capacity;
  /** Each resource's factor while its other direction is busy (1 for a CPU's memory). */
  private final double[] duplex;
  /** Bytes per ns each resource carries, as of the last sharing. */
  private final double[] used;
  // scratch space of one sharing, per resource
  private final double[] cap;
  private final double[] load;
  private final double[] weight;
  private final boolean[] busy;
  private final boolean[] isTouched;
  /** The resources the transfers used at the last sharing: {@code touched[0, nTouched)}. */
  private final int[] touched;
  private int nTouched;
  /** Per transfer, whether its rate has stopped growing. */
  private boolean[] frozen = new boolean[16];

  /**
   * @param capacity each resource's capacity alone, bytes per ns
   * @param duplex each resource's duplex factor (1 where there is no other direction)
   */
  MaxMinFairShare(double[] capacity, double[] duplex) {
    int nr = capacity.length;
    this.capacity = capacity;
    this.duplex = duplex;
    this.used = new double[nr];
    this.cap = new double[nr];
    this.load = new double[nr];
    this.weight = new double[nr];
    this.busy = new boolean[nr];
    this.touched = new int[nr];
    this.isTouched = new boolean[nr];
  }

  int resources() {
    return capacity.length;
  }

  /** Resource {@code r}'s capacity alone, bytes per ns. */
  double capacity(int r) {
    return capacity[r];
  }

  /** Bytes per ns resource {@code r} carried at the last sharing. */
  double used(int r) {
    return used[r];
  }

  /** How many resources the transfers used at the last sharing. */
  int touchedCount() {
    return nTouched;
  }

  /** The {@code t}-th resource the transfers used at the last sharing. */
  int touched(int t) {
    return touched[t];
  }

  /**
   * The rate of a transfer alone on its resources: its own maximum, or the least capacity over the
   * bytes it uses there per data byte.
   */
  double aloneRate(int[] resources, double[] factors, double maxRate) {
    double rate = maxRate;
    for (int j = 0; j < resources.length; j++) {
      rate = Math.min(rate, capacity[resources[j]] / factors[j]);
    }
    return rate;
  }

  /** Sets the rate of each of {@code flows[0, count)} by progressive filling. */
  void share(LinkFlow[] flows, int count) {
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
    for (int i = 0; i < count; i++) {
      LinkFlow f = flows[i];
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
      cap[r] = busy[r ^ 1] ? capacity[r] * duplex[r] : capacity[r];
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
          LinkFlow f = flows[i];
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
          step = Math.min(step, flows[i].maxRate - flows[i].rate);
        }
      }
      if (step == Double.POSITIVE_INFINITY) {
        step = 0;
      }
      for (int i = 0; i < count; i++) {
        if (!frozen[i]) {
          LinkFlow f = flows[i];
          f.rate += step;
          for (int j = 0; j < f.resources.length; j++) {
            load[f.resources[j]] += step * f.factors[j];
          }
        }
      }
      int leftBefore = left;
      for (int i = 0; i < count; i++) {
        if (frozen[i]) {
          continue;
        }
        LinkFlow f = flows[i];
        boolean stop = f.rate >= f.maxRate * (1 - 1e-12);
        for (int r : f.resources) {
          stop |= load[r] >= cap[r] * (1 - 1e-12);
        }
        if (stop) {
          frozen[i] = true;
          left--;
        }
      }
      if (left == leftBefore) { // numerical safety: nothing saturated, so nothing more to give
        break;
      }
    }
    for (int t = 0; t < nTouched; t++) {
      used[touched[t]] = load[touched[t]];
    }
  }
}
