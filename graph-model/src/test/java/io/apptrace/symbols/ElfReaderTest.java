package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ELF reader on a real program, and on damaged copies of it. */
class ElfReaderTest {
  @TempDir static Path programs;
  @TempDir Path tmp;
  static CallSitePrograms.Run c;

  @BeforeAll
  static void compileAndRun() throws Exception {
    c = CallSitePrograms.compileAndRun(programs, "callsites.c");
  }

  @Test
  void readsTheBuildIdTheLoaderSees() throws IOException {
    try (ElfReader elf = ElfReader.open(c.program())) {
      assertThat(elf.buildId()).hasValue(c.module().getBuildId());
    }
  }

  @Test
  void findsFunctionsBySizeAndNothingBetweenThem() throws IOException {
    long callInMain = c.site() - 1 - c.module().getLoadBias();
    try (ElfReader elf = ElfReader.open(c.program())) {
      FunctionTable functions = FunctionTable.read(elf);
      assertThat(functions.functionAt(callInMain)).hasValue("main");
      assertThat(functions.functionAt(0)).isEmpty();
      assertThat(functions.functionAt(-1)).isEmpty();
    }
  }

  /** The DT_NEEDED entries, as readelf -d lists them: a C program needs the C library. */
  @Test
  void readsTheLibrariesTheProgramNeeds() throws IOException {
    try (ElfReader elf = ElfReader.open(c.program())) {
      assertThat(elf.needed()).contains("libc.so.6").doesNotHaveDuplicates();
    }
  }

  @Test
  void rejectsFilesThatAreNotElf() throws IOException {
    Path text = Files.writeString(tmp.resolve("script.sh"), "#!/bin/sh\necho not elf\n");
    assertThat(open(text)).isEmpty();
  }

  /**
   * Seeded mutations of the program's ELF, section and program headers and of random bytes:
   * each either fails with an IOException or reads; nothing else escapes.
   */
  @Test
  void damagedHeadersFailOnlyWithIoException() throws IOException {
    byte[] whole = Files.readAllBytes(c.program());
    Random random = new Random(20240611L);
    long shoff = ByteBuffer.wrap(whole).order(ByteOrder.LITTLE_ENDIAN).getLong(0x28);
    for (int round = 0; round < 400; round++) {
      byte[] damaged = whole.clone();
      for (int flips = 1 + random.nextInt(8); flips > 0; flips--) {
        int at = switch (random.nextInt(3)) {
          case 0 -> random.nextInt(64);
          case 1 -> (int) Math.min(whole.length - 1, shoff + random.nextInt(64 * 40));
          default -> random.nextInt(whole.length);
        };
        damaged[at] = (byte) random.nextInt(256);
      }
      Path file = Files.write(tmp.resolve("damaged"), damaged);
      Optional<ElfReader> elf = open(file);
      if (elf.isPresent()) {
        try (ElfReader e = elf.get()) {
          e.buildId();
          e.needed();
          FunctionTable.read(e).functionAt(c.site() - 1 - c.module().getLoadBias());
        } catch (IOException expected) {
          // a damaged table may be found only when it is read
        }
      }
    }
  }

  private static Optional<ElfReader> open(Path file) {
    try {
      return Optional.of(ElfReader.open(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
