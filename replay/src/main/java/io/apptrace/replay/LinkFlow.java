package io.apptrace.replay;

/**
 * One transfer in flight on a node's links ({@link Links}): the resources it holds, the bytes it
 * uses of each per data byte, its own maximum rate, the bytes it has left, and the times of its end
 * and milestone at its current rate, fixed to the nanosecond when the rate is set.
 */
final class LinkFlow {
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

  LinkFlow(int op, int[] resources, double[] factors, double maxRate, double bytes) {
    this.op = op;
    this.resources = resources;
    this.factors = factors;
    this.maxRate = maxRate;
    this.bytesLeft = bytes;
  }

  /** Sets the rate from {@code now} on, and the times of the end and the milestone at it. */
  void setRate(double r, long now) {
    rate = r;
    doneAt = r > 0 ? now + Clock.ticks(bytesLeft / r) : Long.MAX_VALUE;
    milestoneAt = r > 0 && milestone > 0 ? now + Clock.ticks(Math.max(0, bytesLeft - milestone) / r) : Long.MAX_VALUE;
  }
}
