package io.apptrace.symbols;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The function symbols of one ELF file, from {@code .symtab} or, in a stripped file, from
 * {@code .dynsym}, sorted by address. Names are kept raw (mangled for C++).
 */
final class FunctionTable {
  private static final int SYMBOL_BYTES = 24;
  private static final int STT_FUNC = 2;
  private static final int STT_GNU_IFUNC = 10;
  private static final int STB_GLOBAL = 1;
  private static final int STB_WEAK = 2;

  /** One function; {@code rank} prefers global over weak over local names for aliases. */
  private record Function(long start, long bytes, String name, int rank) {}

  /** An executable section's ELF virtual address range. */
  private record Range(long start, long bytes) {
    boolean contains(long address) {
      return Long.compareUnsigned(address - start, bytes) < 0;
    }
  }

  static final FunctionTable EMPTY = new FunctionTable(new Function[0], List.of());

  private final Function[] functions;
  private final List<Range> code;

  private FunctionTable(Function[] functions, List<Range> code) {
    this.functions = functions;
    this.code = code;
  }

  /**
   * Reads the function symbols of an ELF file; an empty table when it has no symbol table.
   *
   * @throws IOException if a symbol or string table the headers point at cannot be read
   */
  static FunctionTable read(ElfReader elf) throws IOException {
    List<ElfReader.Section> sections = elf.sections();
    Optional<ElfReader.Section> table = sections.stream()
        .filter(s -> s.type() == ElfReader.SHT_SYMTAB).findFirst()
        .or(() -> sections.stream().filter(s -> s.type() == ElfReader.SHT_DYNSYM).findFirst());
    if (table.isEmpty()) {
      return EMPTY;
    }
    ElfReader.Section symtab = table.get();
    if (symtab.entsize() != SYMBOL_BYTES || symtab.link() < 0 || symtab.link() >= sections.size()) {
      throw new IOException("malformed symbol table (entry size " + symtab.entsize() + ", link "
          + symtab.link() + ")");
    }
    ElfReader.Section strtab = sections.get(symtab.link());
    ByteBuffer symbols = elf.read(symtab.offset(), symtab.size() - symtab.size() % SYMBOL_BYTES);
    ByteBuffer names = elf.read(strtab.offset(), strtab.size());
    List<Range> code = sections.stream()
        .filter(s -> (s.flags() & ElfReader.SHF_EXECINSTR) != 0 && s.size() > 0)
        .map(s -> new Range(s.addr(), s.size())).toList();
    return new FunctionTable(functions(symbols, names), code);
  }

  /**
   * The function containing an ELF virtual address: the symbol whose {@code [value, value +
   * size)} holds it, or, for symbols of size 0, the nearest one below it within executable code.
   */
  Optional<String> functionAt(long address) {
    int i = floor(address);
    if (i < 0) {
      return Optional.empty();
    }
    Function f = functions[i];
    boolean inside = f.bytes() > 0
        ? Long.compareUnsigned(address - f.start(), f.bytes()) < 0
        : code.isEmpty()
            || code.stream().anyMatch(r -> r.contains(address) && r.contains(f.start()));
    return inside ? Optional.of(f.name()) : Optional.empty();
  }

  private int floor(long address) {
    int lo = 0;
    int hi = functions.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(functions[mid].start(), address) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private static Function[] functions(ByteBuffer symbols, ByteBuffer names) {
    List<Function> found = new ArrayList<>();
    for (int at = 0; at + SYMBOL_BYTES <= symbols.limit(); at += SYMBOL_BYTES) {
      int info = symbols.get(at + 4);
      int type = info & 0xf;
      int section = Short.toUnsignedInt(symbols.getShort(at + 6));
      long value = symbols.getLong(at + 8);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || section == 0 || value == 0) {
        continue;
      }
      String name = ElfReader.string(names, Integer.toUnsignedLong(symbols.getInt(at)));
      if (!name.isEmpty()) {
        int binding = (info >> 4) & 0xf;
        int rank = binding == STB_GLOBAL ? 2 : binding == STB_WEAK ? 1 : 0;
        found.add(new Function(value, symbols.getLong(at + 16), name, rank));
      }
    }
    // Aliases share an address: keep the one with a size, then the most visible name.
    found.sort(Comparator.comparing(Function::start, Long::compareUnsigned)
        .thenComparing(f -> f.bytes() == 0)
        .thenComparing(Comparator.comparingInt(Function::rank).reversed())
        .thenComparing(Function::name));
    List<Function> unique = new ArrayList<>();
    for (Function f : found) {
      if (unique.isEmpty() || unique.get(unique.size() - 1).start() != f.start()) {
        unique.add(f);
      }
    }
    return unique.toArray(Function[]::new);
  }
}
