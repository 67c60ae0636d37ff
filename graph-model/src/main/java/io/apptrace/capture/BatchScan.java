package io.apptrace.capture;

import io.apptrace.trace.BatchWalk;

/**
 * A quick look at a serialized Batch without decoding it: its header and how many events it holds.
 * The collector only forwards bytes; this is what it needs for progress and bookkeeping.
 */
final class BatchScan implements BatchWalk.Visitor {
  int pid;
  int tid;
  long seq;
  int events;

  BatchScan() {}

  /** Scans {@code data[0..length)}; a malformed batch yields what was read before the damage. */
  static BatchScan of(byte[] data, int length) {
    BatchScan s = new BatchScan();
    BatchWalk.walk(data, length, s);
    return s;
  }

  @Override
  public void header(int pid, int tid, long seq) {
    this.pid = pid;
    this.tid = tid;
    this.seq = seq;
  }

  @Override
  public void event(byte[] data, int offset, int length) {
    events++;
  }
}
