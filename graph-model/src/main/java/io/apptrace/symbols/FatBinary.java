package io.apptrace.symbols;

import io.airlift.compress.zstd.ZstdDecompressor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The PTX texts in the fat binaries of an ELF file's {@code .nv_fatbin} section, where nvcc puts
 * the device code of a program or library. The section holds fat binaries one after the other: a
 * header (u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of the entries), then
 * entries: u16 kind (1 PTX, 2 ELF cubin), u16 version, u32 header size, u64 payload size, u32
 * compressed size, ..., u32 arch at 0x1c, u64 flags at 0x28, u64 uncompressed size at 0x38; then
 * the payload, LZ4-compressed (one block) with flag 0x2000 or zstd-compressed with flag 0x8000
 * (CUDA 13's default for PTX). The same layout tracer-native/src/common/cubin.c reads for cubins.
 *
 * <p>Read piece by piece (a GPU library's section runs to gigabytes); every size is checked
 * against what holds it, and an entry that cannot be read or decompressed is skipped.
 */
final class FatBinary {
  private static final int MAGIC = 0xBA55ED50;
  private static final int KIND_PTX = 1;
  private static final long FLAG_LZ4 = 0x2000;
  private static final long FLAG_ZSTD = 0x8000;
  /** PTX text beyond this per entry is not read (a guard against damaged sizes). */
  private static final long MAX_PTX_BYTES = 256L << 20;

  private FatBinary() {}

  /**
   * The PTX texts of the file's fat binaries, in file order; empty when the file has no
   * {@code .nv_fatbin} section.
   *
   * @throws IOException if the file cannot be read or its headers are damaged
   */
  static List<String> ptx(ElfReader elf) throws IOException {
    Optional<ElfReader.Section> section = elf.section(".nv_fatbin");
    List<String> texts = new ArrayList<>();
    if (section.isEmpty()) {
      return texts;
    }
    long pos = section.get().offset();
    long end = pos + section.get().size();
    while (end - pos >= 16) {
      ByteBuffer h = elf.read(pos, 16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      if (h.getInt(0) != MAGIC) {
        pos += 8; // fat binaries are 8-aligned in the section, with padding between them
        continue;
      }
      int headerBytes = Short.toUnsignedInt(h.getShort(6));
      long entriesBytes = h.getLong(8);
      if (headerBytes < 16 || entriesBytes < 0 || entriesBytes > end - pos - headerBytes) {
        break;
      }
      entries(elf, pos + headerBytes, entriesBytes, texts);
      pos += headerBytes + entriesBytes;
    }
    return texts;
  }

  private static void entries(ElfReader elf, long pos, long bytes, List<String> texts) throws IOException {
    long end = pos + bytes;
    while (end - pos >= 0x40) {
      ByteBuffer e = elf.read(pos, 0x40).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      int kind = Short.toUnsignedInt(e.getShort(0));
      long headerBytes = Integer.toUnsignedLong(e.getInt(4));
      long payload = e.getLong(8);
      if (headerBytes < 0x40 || payload < 0 || payload > end - pos - headerBytes) {
        return;
      }
      if (kind == KIND_PTX && payload <= MAX_PTX_BYTES) {
        long compressed = Integer.toUnsignedLong(e.getInt(0x10));
        long flags = e.getLong(0x28);
        long plain = e.getLong(0x38);
        byte[] data = new byte[(int) payload];
        elf.read(pos + headerBytes, payload).get(data);
        text(data, compressed, flags, plain).ifPresent(texts::add);
      }
      pos += headerBytes + payload;
    }
  }

  /** The text of one PTX payload, decompressed; empty when it cannot be. */
  static Optional<String> text(byte[] data, long compressed, long flags, long plain) {
    int n = compressed > 0 && compressed <= data.length ? (int) compressed : data.length;
    byte[] out;
    try {
      if ((flags & FLAG_ZSTD) != 0) {
        if (plain <= 0 || plain > MAX_PTX_BYTES) {
          plain = ZstdDecompressor.getDecompressedSize(data, 0, n);
        }
        if (plain <= 0 || plain > MAX_PTX_BYTES) {
          return Optional.empty();
        }
        out = new byte[(int) plain];
        int got = new ZstdDecompressor().decompress(data, 0, n, out, 0, out.length);
        out = java.util.Arrays.copyOf(out, got);
      } else if ((flags & FLAG_LZ4) != 0) {
        if (plain <= 0 || plain > MAX_PTX_BYTES) {
          return Optional.empty();
        }
        out = Lz4Block.decode(data, n, (int) plain);
      } else {
        out = data;
      }
    } catch (RuntimeException damaged) { // the decompressors' way of saying the data is not theirs
      return Optional.empty();
    }
    int len = 0;
    while (len < out.length && out[len] != 0) {
      len++;
    }
    return Optional.of(new String(out, 0, len, StandardCharsets.ISO_8859_1));
  }
}
