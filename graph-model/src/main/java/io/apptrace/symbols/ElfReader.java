package io.apptrace.symbols;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The headers of a 64-bit ELF file (either byte order), read piecemeal rather than mapped whole,
 * since GPU libraries run to gigabytes. Every offset and size the file states is checked against
 * the file's length before it is used, so a damaged file fails with an {@link IOException}.
 */
final class ElfReader implements Closeable {
  static final int SHT_SYMTAB = 2;
  static final int SHT_DYNAMIC = 6;
  static final int SHT_NOTE = 7;
  static final int SHT_DYNSYM = 11;
  static final long SHF_EXECINSTR = 0x4;
  private static final int PT_NOTE = 4;
  private static final int NT_GNU_BUILD_ID = 3;
  private static final long DT_NULL = 0;
  private static final long DT_NEEDED = 1;
  private static final int DYNAMIC_ENTRY_BYTES = 16;
  private static final long MAX_READ_BYTES = 256L << 20;
  private static final long MAX_NOTE_BYTES = 1L << 20;
  private static final long MAX_HEADERS = 1L << 20;

  /** A section header; {@code addr} is the section's ELF virtual address. */
  record Section(int name, int type, long flags, long addr, long offset, long size, int link, long entsize) {}

  /** A program header, as far as reading notes needs it. */
  private record Segment(int type, long offset, long fileBytes, long align) {}

  private final FileChannel channel;
  private final long fileBytes;
  private final ByteOrder order;
  private final List<Section> sections;
  /** The index of the section-name table's section. */
  private final int shstrndx;
  private final List<Segment> segments;

  private ElfReader(FileChannel channel) throws IOException {
    this.channel = channel;
    this.fileBytes = channel.size();
    ByteBuffer ident = read(0, 16, ByteOrder.LITTLE_ENDIAN);
    if (ident.getInt(0) != 0x464c457f) {
      throw new IOException("not an ELF file (no \\x7fELF magic)");
    }
    if (ident.get(4) != 2 || (ident.get(5) != 1 && ident.get(5) != 2)) {
      throw new IOException("not a 64-bit ELF file (class " + ident.get(4) + ", data "
          + ident.get(5) + ")");
    }
    this.order = ident.get(5) == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    ByteBuffer header = read(0, 64);
    this.sections = readSections(header);
    this.shstrndx = Short.toUnsignedInt(header.getShort(0x3e));
    this.segments = readSegments(header);
  }

  /**
   * Opens a file and reads its ELF, section and program headers.
   *
   * @throws IOException if the file cannot be read or is not a well-formed 64-bit ELF file
   */
  static ElfReader open(Path file) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      return new ElfReader(channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  List<Section> sections() {
    return sections;
  }

  /**
   * The section named {@code name}, if the file has one.
   *
   * @throws IOException if the section-name table the header points at cannot be read
   */
  Optional<Section> section(String name) throws IOException {
    if (shstrndx <= 0 || shstrndx >= sections.size()) {
      return Optional.empty();
    }
    Section names = sections.get(shstrndx);
    if (names.size() <= 0 || names.size() > MAX_NOTE_BYTES) {
      return Optional.empty();
    }
    byte[] table = new byte[(int) names.size()];
    read(names.offset(), names.size()).get(table);
    byte[] wanted = (name + "\0").getBytes(StandardCharsets.US_ASCII);
    for (Section s : sections) {
      int at = s.name();
      if (at >= 0 && at + wanted.length <= table.length
          && java.util.Arrays.equals(table, at, at + wanted.length, wanted, 0, wanted.length)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * Reads {@code length} bytes at {@code offset}, in the file's byte order.
   *
   * @throws IOException if the range is not inside the file or is implausibly large
   */
  ByteBuffer read(long offset, long length) throws IOException {
    return read(offset, length, order);
  }

  /**
   * The GNU build id (NT_GNU_BUILD_ID note) in lower-case hex, looked for in the PT_NOTE segments
   * and then in the SHT_NOTE sections; empty when the file has none.
   *
   * @throws IOException if a note the headers point at cannot be read
   */
  Optional<String> buildId() throws IOException {
    List<Segment> notes = new ArrayList<>();
    segments.stream().filter(s -> s.type() == PT_NOTE).forEach(notes::add);
    sections.stream().filter(s -> s.type() == SHT_NOTE)
        .forEach(s -> notes.add(new Segment(PT_NOTE, s.offset(), s.size(), 4)));
    for (Segment s : notes) {
      if (s.fileBytes() > 0 && s.fileBytes() <= MAX_NOTE_BYTES) {
        Optional<String> id = gnuBuildId(read(s.offset(), s.fileBytes()), s.align() == 8 ? 8 : 4);
        if (id.isPresent()) {
          return id;
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The shared libraries the file's dynamic section names (DT_NEEDED), in order; empty for a file
   * without one (a statically linked program, an object file).
   *
   * @throws IOException if the dynamic section or its string table cannot be read
   */
  List<String> needed() throws IOException {
    List<String> needed = new ArrayList<>();
    for (Section s : sections) {
      if (s.type() != SHT_DYNAMIC) {
        continue;
      }
      if (s.link() <= 0 || s.link() >= sections.size()) {
        throw new IOException("the dynamic section links no string table (link " + s.link() + ")");
      }
      Section strings = sections.get(s.link());
      ByteBuffer entries = read(s.offset(), s.size() - s.size() % DYNAMIC_ENTRY_BYTES);
      ByteBuffer names = read(strings.offset(), strings.size());
      for (int at = 0; at + DYNAMIC_ENTRY_BYTES <= entries.limit(); at += DYNAMIC_ENTRY_BYTES) {
        long tag = entries.getLong(at);
        if (tag == DT_NULL) {
          break;
        }
        if (tag == DT_NEEDED) {
          needed.add(string(names, entries.getLong(at + 8)));
        }
      }
    }
    return needed;
  }

  /**
   * The NUL-terminated string at {@code offset} of a string table read whole (by {@link #read});
   * empty when the offset lies outside it.
   */
  static String string(ByteBuffer table, long offset) {
    if (offset < 0 || offset >= table.limit()) {
      return "";
    }
    int end = (int) offset;
    while (end < table.limit() && table.get(end) != 0) {
      end++;
    }
    return new String(table.array(), (int) offset, end - (int) offset, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private static Optional<String> gnuBuildId(ByteBuffer notes, int align) {
    long at = 0;
    while (at + 12 <= notes.limit()) {
      long nameBytes = Integer.toUnsignedLong(notes.getInt((int) at));
      long descBytes = Integer.toUnsignedLong(notes.getInt((int) at + 4));
      int type = notes.getInt((int) at + 8);
      long name = at + 12;
      long desc = name + roundUp(nameBytes, align);
      if (desc + descBytes > notes.limit()) {
        break;
      }
      if (type == NT_GNU_BUILD_ID && nameBytes == 4 && notes.getInt((int) name) == gnu(notes)
          && descBytes > 0) {
        byte[] id = new byte[(int) descBytes];
        notes.get((int) desc, id);
        return Optional.of(HexFormat.of().formatHex(id));
      }
      at = desc + roundUp(descBytes, align);
    }
    return Optional.empty();
  }

  /** "GNU\0" as an int in the notes' byte order. */
  private static int gnu(ByteBuffer notes) {
    return ByteBuffer.wrap(new byte[] {'G', 'N', 'U', 0}).order(notes.order()).getInt(0);
  }

  private static long roundUp(long value, int align) {
    return (value + align - 1) & -align;
  }

  private List<Section> readSections(ByteBuffer header) throws IOException {
    long offset = header.getLong(0x28);
    int entryBytes = Short.toUnsignedInt(header.getShort(0x3a));
    long count = Short.toUnsignedInt(header.getShort(0x3c));
    if (offset == 0) {
      return List.of();
    }
    if (entryBytes < 64) {
      throw new IOException("section header size " + entryBytes + " is below 64");
    }
    if (count == 0) {
      count = read(offset, 64).getLong(32); // extended numbering: the count is in section 0
    }
    if (count < 0 || count > MAX_HEADERS) {
      throw new IOException("implausible section count " + count);
    }
    ByteBuffer table = read(offset, count * entryBytes);
    List<Section> result = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int at = i * entryBytes;
      result.add(new Section(table.getInt(at), table.getInt(at + 4), table.getLong(at + 8), table.getLong(at + 16),
          table.getLong(at + 24), table.getLong(at + 32), table.getInt(at + 40),
          table.getLong(at + 56)));
    }
    return List.copyOf(result);
  }

  private List<Segment> readSegments(ByteBuffer header) throws IOException {
    long offset = header.getLong(0x20);
    int entryBytes = Short.toUnsignedInt(header.getShort(0x36));
    int count = Short.toUnsignedInt(header.getShort(0x38));
    if (offset == 0 || count == 0) {
      return List.of();
    }
    if (entryBytes < 56) {
      throw new IOException("program header size " + entryBytes + " is below 56");
    }
    ByteBuffer table = read(offset, (long) count * entryBytes);
    List<Segment> result = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int at = i * entryBytes;
      result.add(new Segment(table.getInt(at), table.getLong(at + 8), table.getLong(at + 32),
          table.getLong(at + 48)));
    }
    return List.copyOf(result);
  }

  private ByteBuffer read(long offset, long length, ByteOrder byteOrder) throws IOException {
    if (offset < 0 || length < 0 || length > MAX_READ_BYTES || offset > fileBytes - length) {
      throw new IOException("bytes " + Long.toUnsignedString(offset) + "+" + length
          + " lie outside the file (" + fileBytes + " bytes)");
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) length).order(byteOrder);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, offset + buffer.position()) < 0) {
        throw new IOException("the file ended at " + (offset + buffer.position()) + " bytes");
      }
    }
    return buffer.flip();
  }
}
