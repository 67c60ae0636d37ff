package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * The bundled nodes composed at build time ({@link NodeTrees}): a node read from its tree is the
 * node its YAML gives, errors point at the same line and column, and a tree made from other text
 * is not used.
 */
class NodeTreesTest {
  private static String text(String name) throws Exception {
    try (InputStream in = NodeTreesTest.class.getResourceAsStream(NodeLoader.BUNDLED + name + ".yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theBuildMadeATreeOfEveryBundledNodeAndEachReadsAsItsYaml() throws Exception {
    for (String name : BundledNodes.names()) {
      String text = text(name);
      // made by the build (replay/pom.xml, phase process-classes), from this very text
      assertThat(NodeTrees.bundled(name, text)).as(name + ".tree").isPresent();
      Node fromTree = NodeLoader.parse(name + ".yaml", NodeTrees.bundled(name, text).orElseThrow(), name);
      // field by field, down to the measured curves' points (Curve has no equals of its own)
      assertThat(fromTree).as(name).usingRecursiveComparison().isEqualTo(NodeLoader.parse(name + ".yaml", text, name));
      assertThat(NodeLoader.bundled(name).orElseThrow()).as(name).usingRecursiveComparison().isEqualTo(fromTree);
    }
  }

  @Test
  void aTreeMadeFromOtherTextIsNotUsed() throws Exception {
    String text = text("titan");
    byte[] tree = NodeTrees.encode(text, BoundedYaml.compose("titan.yaml", text));
    assertThat(NodeTrees.decode("titan.yaml", text, tree)).isPresent();
    assertThat(NodeTrees.decode("titan.yaml", text.replace("Titan", "Tltan"), tree)).isEmpty(); // same length
    assertThat(NodeTrees.decode("titan.yaml", text + "\n", tree)).isEmpty();
  }

  @Test
  void errorsInATreeNameTheLineAndColumnOfTheFile() throws Exception {
    String bad = TestNodes.GOOD.replace("between: [plx0, gpu1]", "between: [plx0, gpu7]");
    MappingNode tree = NodeTrees.decode("bad.yaml", bad, NodeTrees.encode(bad, BoundedYaml.compose("bad.yaml", bad)))
        .orElseThrow();
    String message = "bad.yaml:19:22: links[2].between[1]: no CPU, GPU or switch has the id 'gpu7'";
    assertThatThrownBy(() -> NodeLoader.parse("bad.yaml", tree, "bad.yaml")).hasMessage(message);
    assertThatThrownBy(() -> NodeLoader.parse("bad.yaml", bad, "bad.yaml")).hasMessage(message);
  }

  @Test
  void aDamagedTreeIsAnError() throws Exception {
    String text = text("titan");
    byte[] tree = NodeTrees.encode(text, BoundedYaml.compose("titan.yaml", text));
    byte[] cut = java.util.Arrays.copyOf(tree, tree.length / 2);
    assertThatThrownBy(() -> NodeTrees.decode("titan.yaml", text, cut)).isInstanceOf(java.io.IOException.class);
  }
}
