package io.apptrace.trace;

/**
 * Walks a serialized Batch without decoding it: its header fields and where each Event is, and
 * an Event's entry time and body field. For the collector (counting) and the index (finding the
 * few records needed up front) on millions of events, where decoding them all would be waste.
 * A malformed batch is walked up to the damage.
 */
public final class BatchWalk {
  /** What a walk reports. */
  public interface Visitor {
    void header(int pid, int tid, long seq);

    /** An Event occupies {@code data[offset, offset + length)}. */
    void event(byte[] data, int offset, int length);

    /**
     * The walk is over: the header fields as the parser reads them, the last of each in the
     * batch (they differ from {@link #header}'s only when one follows the first event).
     */
    default void end(int pid, int tid, long seq) {}
  }

  private BatchWalk() {}

  /** Walks {@code data[0, length)}; returns the bytes walked (less than length at damage). */
  public static int walk(byte[] data, int length, Visitor v) {
    int pos = 0;
    int pid = 0;
    int tid = 0;
    long seq = 0;
    boolean headerSent = false;
    while (pos < length) {
      long tag = varint(data, pos, length);
      if (tag < 0) {
        break;
      }
      int p = pos + varintSize(data, pos);
      int field = (int) tag >>> 3; // the parser reads a tag as 32 bits
      int wire = (int) (tag & 7);
      if (field == 0) {
        break; // no field is numbered 0: damage
      }
      if (wire == 0) {
        long value = varint(data, p, length);
        if (value < 0) {
          break;
        }
        p += varintSize(data, p);
        if (field == 1) {
          pid = (int) value;
        } else if (field == 2) {
          tid = (int) value;
        } else if (field == 3) {
          seq = value;
        }
      } else if (wire == 2) {
        long len = varint(data, p, length);
        int body = p + varintSize(data, p);
        if (len < 0 || len > length - body) {
          break;
        }
        if (field == 4) {
          if (!headerSent) {
            v.header(pid, tid, seq);
            headerSent = true;
          }
          v.event(data, body, (int) len);
        }
        p = body + (int) len;
      } else if (wire == 1) {
        p += 8;
      } else if (wire == 5) {
        p += 4;
      } else {
        break;
      }
      if (p > length) {
        break;
      }
      pos = p;
    }
    if (!headerSent) {
      v.header(pid, tid, seq);
    }
    v.end(pid, tid, seq);
    return pos;
  }

  /** The entry_ns of an Event (field 1, fixed64); 0 when absent. */
  public static long entryNs(byte[] data, int offset, int length) {
    long[] out = {0};
    fields(data, offset, length, (field, wire, at) -> {
      if (field == 1 && wire == 1) {
        out[0] = fixed64(data, at);
      }
    });
    return out[0];
  }

  /** The field number of an Event's body (10 and up), or 0 when it has none. */
  public static int bodyField(byte[] data, int offset, int length) {
    int[] out = {0};
    fields(data, offset, length, (field, wire, at) -> {
      if (field >= 10) {
        out[0] = field;
      }
    });
    return out[0];
  }

  private interface FieldVisitor {
    void field(int field, int wire, int valueOffset);
  }

  /** Visits the fields of {@code data[offset, offset + length)} up to the first one that does not fit. */
  private static void fields(byte[] data, int offset, int length, FieldVisitor v) {
    int end = offset + length;
    int pos = offset;
    while (pos < end) {
      long tag = varint(data, pos, end);
      if (tag < 0) {
        return;
      }
      int p = pos + varintSize(data, pos);
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      int next;
      switch (wire) {
        case 0 -> {
          if (varint(data, p, end) < 0) {
            return;
          }
          next = p + varintSize(data, p);
        }
        case 1 -> next = p + 8;
        case 5 -> next = p + 4;
        case 2 -> {
          long len = varint(data, p, end);
          int body = p + varintSize(data, p);
          if (len < 0 || len > end - body) {
            return;
          }
          next = body + (int) len;
        }
        default -> {
          return;
        }
      }
      if (next > end || next < p) {
        return; // a value the event's bytes do not hold: damage
      }
      v.field(field, wire, p);
      pos = next;
    }
  }

  /** Decodes a varint at {@code pos}; -1 when cut short (values here never reach 2^63). */
  static long varint(byte[] data, int pos, int end) {
    long value = 0;
    for (int shift = 0; shift < 64 && pos < end; shift += 7) {
      int b = data[pos++] & 0xff;
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    return -1;
  }

  private static int varintSize(byte[] data, int pos) {
    int n = 1;
    while (pos < data.length && (data[pos++] & 0x80) != 0) {
      n++;
    }
    return n;
  }

  private static long fixed64(byte[] data, int at) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (data[at + i] & 0xff);
    }
    return v;
  }
}
