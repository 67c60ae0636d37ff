package io.apptrace.symbols;

import java.io.IOException;
import java.nio.file.Path;
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

  /** Reads a 64-bit ELF file's headers; empty when the file is not one (a script, say). */
  public static Optional<ElfInfo> read(Path file) {
    try (ElfReader elf = ElfReader.open(file)) {
      boolean device = elf.section(".nv_fatbin").isPresent() || elf.section(".nvFatBinSegment").isPresent();
      return Optional.of(new ElfInfo(elf.needed(), device));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // unreadable or malformed: say nothing rather than guess
    }
  }
}
