package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** An export's file is written whole, or OUT is left as it was and nothing else is left behind. */
class ExportFileTest {
  @TempDir Path tmp;

  private static final byte[] MEGABYTE = "0123456789abcdef".repeat(1 << 16).getBytes(StandardCharsets.US_ASCII);

  @ParameterizedTest
  @ValueSource(strings = {"g.json", "g.json.gz"})
  void anExportThatFailsHalfWayLeavesTheOldFileAndNoOther(String name) throws Exception {
    Path out = Files.writeString(tmp.resolve(name), "the previous export");
    assertThatThrownBy(() -> ExportFile.write(out, s -> {
      s.write(MEGABYTE);
      throw new IOException("the source went away");
    })).isInstanceOf(UserException.class)
        .hasMessage("cannot write " + out + " (the source went away); choose another path");
    assertThat(Files.readString(out)).isEqualTo("the previous export");
    try (var files = Files.list(tmp)) {
      assertThat(files).containsExactly(out);
    }
  }

  /** A bug in an exporter is not reported as bad input, and leaves nothing behind either. */
  @Test
  void anExporterThatBreaksIsNotAnIoErrorButLeavesNothing() throws Exception {
    Path out = tmp.resolve("g.graphml.gz");
    assertThatThrownBy(() -> ExportFile.write(out, s -> {
      s.write(MEGABYTE);
      throw new IllegalStateException("a bug");
    })).isInstanceOf(IllegalStateException.class);
    try (var files = Files.list(tmp)) {
      assertThat(files).isEmpty();
    }
  }

  /**
   * A full disk under a writer that swallows errors (JGraphT's DOT and JSON exporters write
   * through a PrintWriter): the export still fails, naming why, and leaves no file that could
   * pass for a complete one.
   */
  @ParameterizedTest
  @ValueSource(strings = {"g.dot", "g.dot.gz"})
  void aFullDiskFailsTheExportEvenWhenTheWriterSwallowsTheError(String name) throws Exception {
    Path disk = Files.createDirectories(tmp.resolve("disk"));
    assumeTrue(command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", disk.toString()) == 0,
        "mounting a small tmpfs needs root: a full disk is not tested here");
    try {
      Path out = disk.resolve(name);
      assertThatThrownBy(() -> ExportFile.writeText(out, w -> {
        PrintWriter p = new PrintWriter(w);
        for (int i = 0; i < 1_000_000; i++) {
          p.println("n" + i + " -> n" + (i * 7919L % 1_000_000) + ";");
        }
        p.flush();
      })).isInstanceOf(UserException.class)
          .hasMessage("cannot write " + out + " (No space left on device); choose another path");
      try (var files = Files.list(disk)) {
        assertThat(files).isEmpty();
      }
    } finally {
      command("umount", disk.toString());
    }
  }

  @Test
  void aGzipNameIsWrittenCompressedAndTheRestPlain() throws Exception {
    ExportFile.write(tmp.resolve("a.csv.gz"), s -> s.write(MEGABYTE));
    ExportFile.write(tmp.resolve("a.csv"), s -> s.write(MEGABYTE));
    assertThat(Gzip.decompress(tmp.resolve("a.csv.gz"))).isEqualTo(MEGABYTE);
    assertThat(Files.readAllBytes(tmp.resolve("a.csv"))).isEqualTo(MEGABYTE);
  }

  @Test
  void symbolicLinksFoldersAndMissingFoldersAreRefusedUpFront() throws Exception {
    Path target = tmp.resolve("elsewhere");
    Path link = Files.createSymbolicLink(tmp.resolve("t.json"), target);
    assertThatThrownBy(() -> ExportFile.check(link)).isInstanceOf(UserException.class)
        .hasMessage("cannot write " + link + ": it is a symbolic link, which apptrace never writes through");
    assertThatThrownBy(() -> ExportFile.write(link, s -> s.write(1))).isInstanceOf(UserException.class);
    assertThat(target).doesNotExist();
    assertThatThrownBy(() -> ExportFile.check(tmp)).isInstanceOf(UserException.class)
        .hasMessage("cannot write " + tmp + ": it is a folder");
    Path nowhere = tmp.resolve("no/such/t.json");
    assertThatThrownBy(() -> ExportFile.check(nowhere)).isInstanceOf(UserException.class)
        .hasMessage("cannot write " + nowhere + ": its folder does not exist");
  }

  /** A symbolic link planted at OUT.partial is not written through either. */
  @Test
  void aLinkAtThePartialFileIsNotFollowed() throws Exception {
    Path victim = Files.writeString(tmp.resolve("victim"), "precious");
    Files.createSymbolicLink(tmp.resolve("t.json.partial"), victim);
    assertThatThrownBy(() -> ExportFile.write(tmp.resolve("t.json"), s -> s.write(MEGABYTE)))
        .isInstanceOf(UserException.class).hasMessageStartingWith("cannot write " + tmp.resolve("t.json") + " (");
    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(tmp.resolve("t.json")).doesNotExist();
  }

  private static int command(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
  }
}
