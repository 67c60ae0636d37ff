package io.apptrace.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What an executable says about how it uses CUDA, read from its ELF headers before it runs: the
 * shared libraries it needs (DT_NEEDED) and whether it carries CUDA device code (a
 * {@code .nv_fatbin} or {@code .nvFatBinSegment} section). A program with device code that does
 * not need {@code libcudart.so} links the runtime statically, which LD_PRELOAD cannot see.
 *
 * @param needed the DT_NEEDED entries, in order
 * @param hasDeviceCode whether the file embeds CUDA device code
 */
public record ElfInfo(List<String> needed, boolean hasDeviceCode) {
  private static final int SHT_DYNAMIC = 6;
  private static final long DT_NEEDED = 1;
  private static final long DT_STRTAB = 5;

  public ElfInfo {
    needed = List.copyOf(needed);
  }

  /** Whether the program loads the CUDA runtime as a shared library. */
  public boolean linksCudartDynamically() {
    return needed.stream().anyMatch(n -> n.startsWith("libcudart.so"));
  }

  /** Whether the program embeds device code but links no shared CUDA runtime. */
  public boolean looksStaticallyLinkedToCudart() {
    return hasDeviceCode && !linksCudartDynamically();
  }

  /** Reads a 64-bit little-endian ELF file; empty when the file is not one (a script, say). */
  public static Optional<ElfInfo> read(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < 64 || size > (1L << 31)) {
        return Optional.empty();
      }
      ByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, 0, size).order(ByteOrder.LITTLE_ENDIAN);
      if (b.getInt(0) != 0x464c457f || b.get(4) != 2 || b.get(5) != 1) {
        return Optional.empty();
      }
      return Optional.of(parse(b));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // unreadable or malformed: say nothing rather than guess
    }
  }

  private static ElfInfo parse(ByteBuffer b) {
    long shoff = b.getLong(0x28);
    int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
    int shnum = Short.toUnsignedInt(b.getShort(0x3c));
    int shstrndx = Short.toUnsignedInt(b.getShort(0x3e));
    long strtabOff = sectionOffset(b, shoff, shentsize, shstrndx);
    boolean device = false;
    List<String> needed = new ArrayList<>();
    for (int i = 0; i < shnum; i++) {
      int sh = (int) (shoff + (long) i * shentsize);
      String name = cString(b, strtabOff + Integer.toUnsignedLong(b.getInt(sh)));
      if (name.equals(".nv_fatbin") || name.equals(".nvFatBinSegment")) {
        device = true;
      }
      if (b.getInt(sh + 4) == SHT_DYNAMIC) {
        int link = b.getInt(sh + 40);
        long dynstr = sectionOffset(b, shoff, shentsize, link);
        long off = b.getLong(sh + 24);
        long len = b.getLong(sh + 32);
        for (long p = off; p + 16 <= off + len; p += 16) {
          long tag = b.getLong((int) p);
          if (tag == DT_NEEDED) {
            needed.add(cString(b, dynstr + b.getLong((int) p + 8)));
          } else if (tag == 0) {
            break;
          }
        }
      }
    }
    return new ElfInfo(needed, device);
  }

  private static long sectionOffset(ByteBuffer b, long shoff, int shentsize, int index) {
    return b.getLong((int) (shoff + (long) index * shentsize + 24));
  }

  private static String cString(ByteBuffer b, long at) {
    int start = (int) at;
    int end = start;
    while (end < b.limit() && b.get(end) != 0) {
      end++;
    }
    byte[] bytes = new byte[end - start];
    b.get(start, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
