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
    WireCursor in = new WireCursor(data, 0, Math.min(length, data.length));
    int good = 0;
    int pid = 0;
    int tid = 0;
    long seq = 0;
    boolean headerSent = false;
    while (in.more()) {
      int tag = in.tag();
      int field = tag >>> 3;
      int wire = tag & 7;
      if (wire == WireCursor.VARINT && field <= 3) {
        long value = in.varint();
        if (in.refused) {
          break;
        }
        if (field == 1) {
          pid = (int) value;
        } else if (field == 2) {
          tid = (int) value;
        } else if (field == 3) {
          seq = value;
        }
      } else if (field == 4 && wire == WireCursor.BYTES) {
        int len = in.length();
        if (in.refused) {
          break;
        }
        if (!headerSent) {
          v.header(pid, tid, seq);
          headerSent = true;
        }
        v.event(data, in.pos, len);
        in.pos += len;
      } else {
        in.skip(wire);
      }
      if (in.refused) {
        break;
      }
      good = in.pos;
    }
    if (!headerSent) {
      v.header(pid, tid, seq);
    }
    v.end(pid, tid, seq);
    return good;
  }

  /**
   * An Event's entry time and body field, from its fields up to the first one that does not fit
   * (the last of each wins, as in the parser).
   */
  static final class EventFields {
    long entryNs;
    int body;

    EventFields(byte[] data, int offset, int length) {
      WireCursor in = new WireCursor(data, offset, offset + length);
      while (in.more()) {
        int tag = in.tag();
        int field = tag >>> 3;
        int wire = tag & 7;
        if (field == 1 && wire == WireCursor.FIXED64) {
          long t = in.fixed64();
          if (!in.refused) {
            entryNs = t;
          }
        } else {
          in.skip(wire);
          if (!in.refused && field >= 10) {
            body = field;
          }
        }
      }
    }
  }
}
