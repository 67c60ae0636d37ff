package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user sees for a forged or damaged file (docs/RELIABILITY.md, "Hostile and broken input"):
 * exit 1 and one line naming the file, never an internal error (exit 70 and a stack trace).
 */
class HostileInputCommandTest {
  @TempDir Path tmp;

  private static void badInput(Cli r) {
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.err().strip()).doesNotContain("\n").doesNotContain("internal error");
  }

  @Test
  void aTraceWhoseHeaderClaimsMoreThanTheFileHolds() throws Exception {
    Path f = tmp.resolve("forged.apptrace");
    Files.write(f, new byte[] {'A', 'P', 'P', 'T', 'R', 'A', 'C', 'E', (byte) 0xff, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, 0x07, 0});
    for (String cmd : new String[] {"stats", "graph", "dump"}) {
      Cli r = Cli.run(cmd, f.toString());
      badInput(r);
      assertThat(r.err()).contains(f + " has a damaged header");
    }
  }

  @Test
  void anAliasBombAsNodeFile() throws Exception {
    StringBuilder s = new StringBuilder("name: x\nl0: &l0 [a, a, a, a, a, a, a, a, a]\n");
    for (int k = 1; k <= 9; k++) {
      s.append('l').append(k).append(": &l").append(k).append(" [").append(String.join(", ",
          java.util.Collections.nCopies(9, "*l" + (k - 1)))).append("]\n");
    }
    Path f = tmp.resolve("bomb.yaml");
    Files.writeString(f, s, StandardCharsets.UTF_8);
    Cli r = Cli.run("model", "--node", f.toString(), "--bytes", "1MiB");
    badInput(r);
    assertThat(r.err()).contains(f + ": not valid YAML: Number of aliases");
  }

  @Test
  void aKinetoFileWhoseGzipHeaderIsCut() throws Exception {
    Path f = tmp.resolve("trace.json.gz");
    Files.write(f, new byte[] {0x1f, (byte) 0x8b, 8});
    Cli r = Cli.run("import", f.toString(), "-o", tmp.resolve("out.apptrace").toString());
    badInput(r);
    assertThat(r.err()).contains("a gzip file that cannot be decompressed");
  }
}
