package io.apptrace.capture;

/**
 * A quick look at a serialized Batch without decoding it: its pid and how many events it holds.
 * The collector only forwards bytes; this is what it needs for progress and bookkeeping.
 */
final class BatchScan {
  final int pid;
  final int events;

  private BatchScan(int pid, int events) {
    this.pid = pid;
    this.events = events;
  }

  /** Scans {@code data[0..length)}; a malformed batch yields what was read before the damage. */
  static BatchScan of(byte[] data, int length) {
    int pos = 0;
    int pid = 0;
    int events = 0;
    while (pos < length) {
      long[] tag = varint(data, pos, length);
      if (tag == null) {
        break;
      }
      pos = (int) tag[1];
      int field = (int) (tag[0] >>> 3);
      int wire = (int) (tag[0] & 7);
      if (wire == 0) {
        long[] v = varint(data, pos, length);
        if (v == null) {
          break;
        }
        pos = (int) v[1];
        if (field == 1) {
          pid = (int) v[0];
        }
      } else if (wire == 2) {
        long[] len = varint(data, pos, length);
        if (len == null || len[0] < 0 || len[0] > length - len[1]) {
          break;
        }
        pos = (int) (len[1] + len[0]);
        if (field == 4) {
          events++;
        }
      } else {
        break;
      }
    }
    return new BatchScan(pid, events);
  }

  /** Decodes a varint at {@code pos}: {value, next position}, or null if cut short. */
  private static long[] varint(byte[] data, int pos, int length) {
    long value = 0;
    for (int shift = 0; shift < 64 && pos < length; shift += 7) {
      int b = data[pos++] & 0xff;
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return new long[] {value, pos};
      }
    }
    return null;
  }
}
