package io.apptrace.graph;

import io.apptrace.testing.TestPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under graph-model/src/test/resources. Run the tests with
 * {@code -Dapptrace.golden.update=true} to rewrite them from the current output, then review the
 * difference before committing it.
 */
final class Goldens {
  private Goldens() {}

  static Path path(String name) {
    return TestPaths.root().resolve("graph-model/src/test/resources").resolve(name);
  }

  static void updateIfAsked(Path golden, String content) throws IOException {
    if (Boolean.getBoolean("apptrace.golden.update")) {
      Files.createDirectories(golden.getParent());
      Files.writeString(golden, content);
    }
  }

  /**
   * Asserts that XML output matches a golden file, ignoring whitespace between elements; a
   * difference names the elements that differ rather than printing both documents.
   */
  static void assertXmlMatches(String goldenName, String actual) throws IOException {
    Path golden = path(goldenName);
    updateIfAsked(golden, actual);
    org.assertj.core.api.Assertions.assertThat(elements(actual)).as("%s (update with"
        + " -Dapptrace.golden.update=true if the change is intended)", golden)
        .containsExactlyElementsOf(elements(Files.readString(golden)));
  }

  private static java.util.List<String> elements(String xml) {
    return java.util.List.of(xml.replaceAll(">\\s+<", "><").strip().split("(?<=>)(?=<)"));
  }
}
