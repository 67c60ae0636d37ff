package io.apptrace.symbols;

/**
 * The LZ4 block format (sequences of a token, literals, a 2-byte offset and a match), which fat
 * binaries use for entries with flag 0x2000: the same decoder as tracer-native/src/common/cubin.c.
 */
final class Lz4Block {
  private Lz4Block() {}

  /**
   * Decodes {@code src[0, length)} into exactly {@code plain} bytes.
   *
   * @throws IllegalArgumentException if the block is damaged or does not give {@code plain} bytes
   */
  static byte[] decode(byte[] src, int length, int plain) {
    byte[] dst = new byte[plain];
    int ip = 0;
    int op = 0;
    while (ip < length) {
      int token = src[ip++] & 0xff;
      int lit = token >>> 4;
      if (lit == 15) {
        int b;
        do {
          check(ip < length);
          b = src[ip++] & 0xff;
          lit += b;
        } while (b == 255);
      }
      check(lit <= length - ip && lit <= plain - op);
      System.arraycopy(src, ip, dst, op, lit);
      ip += lit;
      op += lit;
      if (ip == length) {
        break; // the last sequence has literals only
      }
      check(length - ip >= 2);
      int off = (src[ip] & 0xff) | ((src[ip + 1] & 0xff) << 8);
      ip += 2;
      check(off != 0 && off <= op);
      int match = token & 15;
      if (match == 15) {
        int b;
        do {
          check(ip < length);
          b = src[ip++] & 0xff;
          match += b;
        } while (b == 255);
      }
      match += 4;
      check(match <= plain - op);
      for (int i = 0; i < match; i++) { // byte by byte: source and target may overlap
        dst[op + i] = dst[op - off + i];
      }
      op += match;
    }
    check(op == plain);
    return dst;
  }

  private static void check(boolean ok) {
    if (!ok) {
      throw new IllegalArgumentException("damaged LZ4 block");
    }
  }
}
