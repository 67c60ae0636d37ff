package io.apptrace.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Damages bytes the ways files get damaged or forged: bit flips, random and boundary bytes,
 * insertions, deletions, duplicated and spliced ranges, cuts, and length fields (varints)
 * overwritten with values that claim far more than the file holds. Several are stacked per
 * input. Structure-aware mutations (JSON, YAML, SQLite, trace records) are in the targets and
 * end with a few of these.
 */
public final class Mutator {
  /** Varints a forged length field holds: 2^31-1, 2^32, 2^63-1, an overlong 0, and ten 0xff. */
  static final byte[][] HUGE_VARINTS = {
    {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07},
    {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10},
    {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f},
    {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x00},
    {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, (byte) 0xff},
  };

  private static final long[] INTERESTING = {0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffffL,
      0x80000000L, 0xffffffffL, Long.MAX_VALUE, Long.MIN_VALUE};

  private Mutator() {}

  /** One to eight stacked byte mutations of one seed (sometimes spliced with another). */
  public static byte[] bytes(List<byte[]> seeds, Random r) {
    byte[] b = seeds.get(r.nextInt(seeds.size())).clone();
    int n = 1 + Math.min(7, (int) (-Math.log(1 - r.nextDouble()) * 1.5));
    for (int i = 0; i < n; i++) {
      b = once(b, seeds, r);
    }
    return b;
  }

  /** A few stacked byte mutations of {@code b}. */
  public static byte[] some(byte[] b, List<byte[]> seeds, Random r, int max) {
    int n = 1 + r.nextInt(max);
    for (int i = 0; i < n; i++) {
      b = once(b, seeds, r);
    }
    return b;
  }

  /** One byte mutation. */
  public static byte[] once(byte[] b, List<byte[]> seeds, Random r) {
    if (b.length == 0) {
      return insert(b, 0, randomBytes(r, 1 + r.nextInt(16)));
    }
    int at = r.nextInt(b.length);
    switch (r.nextInt(11)) {
      case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
      case 1 -> b[at] = (byte) r.nextInt(256);
      case 2 -> put(b, at, INTERESTING[r.nextInt(INTERESTING.length)], 1 << r.nextInt(4), r.nextBoolean());
      case 3 -> {
        return insert(b, at, randomBytes(r, 1 + r.nextInt(r.nextBoolean() ? 8 : 256)));
      }
      case 4 -> {
        return delete(b, at, 1 + r.nextInt(Math.min(b.length - at, r.nextBoolean() ? 8 : 4096)));
      }
      case 5 -> {
        int len = 1 + r.nextInt(Math.min(b.length - at, 512));
        byte[] chunk = java.util.Arrays.copyOfRange(b, at, at + len);
        int reps = r.nextInt(10) == 0 ? 1 + r.nextInt(200) : 1;
        byte[] out = b;
        int to = r.nextInt(b.length + 1);
        for (int i = 0; i < reps; i++) {
          out = insert(out, to, chunk);
        }
        return out;
      }
      case 6 -> {
        return java.util.Arrays.copyOf(b, at);
      }
      case 7 -> {
        byte[] other = seeds.get(r.nextInt(seeds.size()));
        int from = other.length == 0 ? 0 : r.nextInt(other.length);
        byte[] out = java.util.Arrays.copyOf(b, at + other.length - from);
        System.arraycopy(other, from, out, at, other.length - from);
        return out;
      }
      case 8 -> {
        byte[] v = HUGE_VARINTS[r.nextInt(HUGE_VARINTS.length)];
        return r.nextBoolean() ? insert(b, at, v) : overwrite(b, at, v);
      }
      case 9 -> {
        int len = Math.min(b.length - at, 1 + r.nextInt(64));
        byte v = (byte) (r.nextBoolean() ? 0 : 0xff);
        java.util.Arrays.fill(b, at, at + len, v);
      }
      default -> {
        int other = r.nextInt(b.length);
        byte t = b[at];
        b[at] = b[other];
        b[other] = t;
      }
    }
    return b;
  }

  private static void put(byte[] b, int at, long v, int width, boolean bigEndian) {
    for (int i = 0; i < width && at + i < b.length; i++) {
      int shift = 8 * (bigEndian ? width - 1 - i : i);
      b[at + i] = (byte) (v >>> shift);
    }
  }

  static byte[] randomBytes(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  /** {@code b} with {@code ins} inserted at {@code at}. */
  public static byte[] insert(byte[] b, int at, byte[] ins) {
    byte[] out = new byte[b.length + ins.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(ins, 0, out, at, ins.length);
    System.arraycopy(b, at, out, at + ins.length, b.length - at);
    return out;
  }

  /** {@code b} without {@code len} bytes from {@code at}. */
  public static byte[] delete(byte[] b, int at, int len) {
    byte[] out = new byte[b.length - len];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(b, at + len, out, at, b.length - at - len);
    return out;
  }

  /** {@code b} with {@code v} written over it from {@code at}, growing it when {@code v} runs past the end. */
  public static byte[] overwrite(byte[] b, int at, byte[] v) {
    byte[] out = at + v.length > b.length ? java.util.Arrays.copyOf(b, at + v.length) : b;
    System.arraycopy(v, 0, out, at, v.length);
    return out;
  }

  /** {@code s} repeated {@code n} times, as UTF-8. */
  public static byte[] repeat(String s, int n) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() * n);
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < n; i++) {
      out.write(b, 0, b.length);
    }
    return out.toByteArray();
  }
}
