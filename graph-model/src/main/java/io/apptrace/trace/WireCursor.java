package io.apptrace.trace;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads protobuf's wire format from {@code data[pos, end)} as CodedInputStream reads it, for the
 * passes that look at millions of events without building their messages ({@link BatchWalk},
 * {@link GraphEventWire}). A value that is malformed or runs past {@code end} sets
 * {@link #refused} (and leaves {@code pos} at {@code end}); what was read until then stands.
 */
class WireCursor {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int BYTES = 2;
  static final int FIXED32 = 5;

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);

  byte[] data;
  int pos;
  int end;
  boolean refused;

  WireCursor(byte[] data, int pos, int end) {
    reset(data, pos, end);
  }

  /** Reads {@code data[pos, end)} from now on; {@code end} must not pass the array's end. */
  WireCursor reset(byte[] data, int pos, int end) {
    this.data = data;
    this.pos = pos;
    this.end = end;
    this.refused = false;
    return this;
  }

  boolean more() {
    return pos < end && !refused;
  }

  private void refuse() {
    refused = true;
    pos = end;
  }

  /** A tag as the parser reads one (a varint cut to 32 bits); field number 0 is refused. */
  int tag() {
    int tag = (int) varint();
    if ((tag >>> 3) == 0) {
      refuse();
    }
    return tag;
  }

  /** A varint of at most 10 bytes; bits beyond 64 are dropped, as the parser drops them. */
  long varint() {
    int p = pos;
    if (end - p >= 2) { // most varints here are one or two bytes
      int b0 = data[p];
      if (b0 >= 0) {
        pos = p + 1;
        return b0;
      }
      int b1 = data[p + 1];
      if (b1 >= 0) {
        pos = p + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
    }
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) {
        refuse();
        return 0;
      }
      int b = data[p++];
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        pos = p;
        return value;
      }
    }
    refuse(); // an 11th byte
    return 0;
  }

  long fixed64() {
    if (end - pos < 8) {
      refuse();
      return 0;
    }
    long v = (long) LONGS.get(data, pos);
    pos += 8;
    return v;
  }

  /** The length of a length-delimited field, which must fit in what is left (0 when refused). */
  int length() {
    int size = (int) varint(); // the parser reads lengths as 32-bit varints
    if (refused || size < 0 || size > end - pos) {
      refuse();
      return 0;
    }
    return size;
  }

  /** Skips the value of a field of wire type {@code wire}; groups (3, 4) and types 6, 7 are refused. */
  void skip(int wire) {
    switch (wire) {
      case VARINT -> varint();
      case FIXED64 -> advance(8);
      case BYTES -> advance(length());
      case FIXED32 -> advance(4);
      default -> refuse();
    }
  }

  private void advance(int n) {
    if (end - pos < n) {
      refuse();
    } else {
      pos += n;
    }
  }

  /** A sint32 (the parser reads it as a 32-bit varint). */
  static int zigZag(long v) {
    int n = (int) v;
    return (n >>> 1) ^ -(n & 1);
  }
}
