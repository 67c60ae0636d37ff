package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.proto.Module;
import io.apptrace.testing.TestPaths;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The PTX in fat binaries: compressed as CUDA 13 and older toolkits write it, and damaged. */
class FatBinaryTest {
  /** An LZ4 block: a sequence of 5 literals, a match of 6 bytes 5 back, then 1 literal. */
  @Test
  void anLz4BlockDecodesLiteralsAndOverlappingMatches() {
    byte[] block = {0x52, 'h', 'e', 'l', 'l', 'o', 5, 0, 0x10, '!'};
    assertThat(new String(Lz4Block.decode(block, block.length, 12), StandardCharsets.US_ASCII))
        .isEqualTo("hellohelloh!");
  }

  @Test
  void aDamagedLz4BlockIsRefusedNotMisread() {
    byte[] block = {0x52, 'h', 'e', 'l', 'l', 'o', 9, 0}; // a match from before the start
    assertThatThrownBy(() -> Lz4Block.decode(block, block.length, 12)).isInstanceOf(IllegalArgumentException.class);
    assertThat(FatBinary.text(block, block.length, 0x2000, 12)).isEmpty();
    assertThat(FatBinary.text(new byte[] {1, 2, 3}, 3, 0x8000, 100)).as("not zstd").isEmpty();
  }

  /** A test program built by nvcc 13: its zstd-compressed PTX holds its kernels' entries. */
  @Test
  void theKernelsOfAProgramAreFoundInItsBinarysPtx() throws Exception {
    java.nio.file.Path program = TestPaths.cudaTest("slices");
    PtxSources sources = new PtxSources(List.of(Module.newBuilder().setPath(program.toString())
        .setStart(0).setEnd(Long.MAX_VALUE).build()));
    PtxSources.Entry e = sources.entry(0x1000, "_Z10init_arrayPiS_i");
    assertThat(e.text()).hasValueSatisfying(t -> assertThat(t).startsWith(".entry _Z10init_arrayPiS_i(")
        .contains("ld.param.u64").endsWith("}"));
    assertThat(sources.entry(0x1000, "no_such_kernel").reason()).startsWith("no PTX entry of it in");
    assertThat(new PtxSources(List.of()).entry(0x1000, "_Z10init_arrayPiS_i").reason())
        .isEqualTo("no recorded module holds its host stub");
  }
}
