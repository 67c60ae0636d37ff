package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.testing.TestPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a program links the CUDA runtime, read from its ELF headers before a capture starts it: the
 * same vector add built with {@code -cudart shared} and {@code -cudart static}, and a program
 * without CUDA.
 */
class ElfInfoTest {
  @TempDir Path tmp;

  @Test
  void programBuiltWithASharedRuntimeNeedsLibcudart() {
    ElfInfo elf = ElfInfo.read(TestPaths.cudaTest("vecadd")).orElseThrow();
    assertThat(elf.hasDeviceCode()).isTrue();
    assertThat(elf.needed()).anyMatch(n -> n.startsWith("libcudart.so"));
    assertThat(elf.linksCudartDynamically()).isTrue();
    assertThat(elf.looksStaticallyLinkedToCudart()).isFalse();
  }

  @Test
  void programBuiltWithTheStaticRuntimeCarriesDeviceCodeButNeedsNoLibcudart() {
    ElfInfo elf = ElfInfo.read(TestPaths.cudaTest("vecadd_static")).orElseThrow();
    assertThat(elf.hasDeviceCode()).isTrue();
    assertThat(elf.needed()).contains("libc.so.6").noneMatch(n -> n.startsWith("libcudart.so"));
    assertThat(elf.looksStaticallyLinkedToCudart()).isTrue();
  }

  @Test
  void programWithoutCudaHasNoDeviceCode() {
    ElfInfo elf = ElfInfo.read(TestPaths.cudaTest("nocuda")).orElseThrow();
    assertThat(elf.hasDeviceCode()).isFalse();
    assertThat(elf.looksStaticallyLinkedToCudart()).isFalse();
  }

  @Test
  void scriptsAndCutShortFilesSayNothing() throws IOException {
    Path script = Files.writeString(tmp.resolve("run.sh"), "#!/bin/sh\nexec ./vecadd\n");
    byte[] head = Files.readAllBytes(TestPaths.cudaTest("vecadd"));
    Path cut = Files.write(tmp.resolve("cut"), java.util.Arrays.copyOf(head, 100));
    assertThat(ElfInfo.read(script)).isEmpty();
    assertThat(ElfInfo.read(cut)).isEmpty();
    assertThat(ElfInfo.read(tmp.resolve("missing"))).isEmpty();
  }
}
