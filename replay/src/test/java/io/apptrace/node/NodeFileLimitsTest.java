package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile YAML (docs/RELIABILITY.md, "Hostile and broken input"): alias bombs, deep nesting,
 * huge values and huge files are refused with one line that names the file, before they cost
 * memory, time or stack. The timeouts only catch a loader that hangs.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NodeFileLimitsTest {
  @TempDir Path tmp;

  private Path write(String text) throws Exception {
    Path f = tmp.resolve("hostile.yaml");
    Files.writeString(f, text);
    return f;
  }

  private void refused(String text, String message) throws Exception {
    Path f = write(text);
    assertThatThrownBy(() -> NodeLoader.load(f)).isInstanceOf(NodeFileException.class).hasMessage(f + message);
  }

  @Test
  void billionLaughsIsRefused() throws Exception {
    StringBuilder s = new StringBuilder("name: x\nlol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int k = 1; k <= 9; k++) {
      s.append("lol").append(k).append(": &l").append(k).append(" [")
          .append(String.join(", ", java.util.Collections.nCopies(9, "*l" + (k - 1)))).append("]\n");
    }
    refused(s.toString(), ": not valid YAML: Number of aliases for non-scalar nodes exceeds the specified max="
        + BoundedYaml.MAX_ALIASES);
  }

  @Test
  void tenThousandNestedListsAreRefused() throws Exception {
    refused("name: x\ndeep: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n",
        ":2:" + (6 + BoundedYaml.MAX_DEPTH) + ": nested more than " + BoundedYaml.MAX_DEPTH + " levels deep; no node file is");
  }

  @Test
  void fourHundredNestedBlockListsAreRefused() throws Exception {
    StringBuilder s = new StringBuilder("name: x\ndeep:\n");
    for (int k = 1; k <= 400; k++) {
      s.append(" ".repeat(k)).append("-\n");
    }
    refused(s.toString(), ":" + (2 + BoundedYaml.MAX_DEPTH) + ":" + (1 + BoundedYaml.MAX_DEPTH) + ": nested more than "
        + BoundedYaml.MAX_DEPTH + " levels deep; no node file is");
  }

  @Test
  void anUnclosedRunOfBracketsIsRefused() throws Exception {
    refused("name: " + "{a: ".repeat(30_000), ":1:" + (7 + 4 * (BoundedYaml.MAX_DEPTH - 1))
        + ": nested more than " + BoundedYaml.MAX_DEPTH + " levels deep; no node file is");
  }

  @Test
  void aHugeValueIsRefused() throws Exception {
    refused("name: x\ndescription: " + "x".repeat(100_000) + "\n", ":2:14: a value of 100000 characters; no node"
        + " file has one longer than " + BoundedYaml.MAX_SCALAR_CHARS);
  }

  @Test
  void aHugeFileIsRefusedUnread() throws Exception {
    refused("name: x\n" + "# padding\n".repeat(15_000), ": larger than 128 KiB; no node file is");
  }

  @Test
  void aRecursiveAliasIsRefused() throws Exception {
    refused("name: x\na: &a [*a]\n", ":2:4: nested more than " + BoundedYaml.MAX_DEPTH + " levels deep; no node file is");
  }
}
