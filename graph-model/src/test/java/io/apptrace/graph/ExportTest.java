package io.apptrace.graph;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The three export formats of the Fig. 6.1 graph, read back. */
class ExportTest {
  @TempDir Path tmp;

  @Test
  void graphMlReadsBackThroughJgraphtsImporter() throws Exception {
    Dvdg g = DvdgTest.figure61().build(tmp);
    StringWriter w = new StringWriter();
    GraphMlExport.write(g, CallSites.none(), w);

    GraphMlReadBack read = GraphMlReadBack.of(w.toString());
    Graph<String, DefaultEdge> back = read.graph();
    Map<String, Map<String, String>> nodes = read.nodes();
    Map<DefaultEdge, Map<String, String>> edges = read.edges();
    assertThat(back.vertexSet()).hasSize(6);
    assertThat(back.edgeSet()).hasSize(5);
    assertThat(nodes.get("n4")).containsEntry("alloc", "5").containsEntry("version", "1")
        .containsEntry("location", "gpu0").containsEntry("memory", "device").containsEntry("bytes", "1024");
    assertThat(nodes.get("n0")).containsEntry("memory", "pageable").containsEntry("location", "host");
    long kernelEdges = edges.values().stream().filter(m -> "kernel".equals(m.get("kind"))).count();
    assertThat(kernelEdges).isEqualTo(2);
    assertThat(edges.values().stream().filter(m -> "kernel".equals(m.get("kind"))).map(m -> m.get("op")).distinct())
        .containsExactly("2");
    assertThat(edges.values()).allSatisfy(m -> assertThat(m).containsKeys("op", "kind", "name"));
  }

  @Test
  void jsonHasNodesAndEdgesWithTheSameAttributes() throws Exception {
    Dvdg g = DvdgTest.figure61().build(tmp);
    StringWriter w = new StringWriter();
    JsonExport.write(g, CallSites.none(), w);
    JsonNode j = new ObjectMapper().readTree(w.toString());
    assertThat(j.path("nodes")).hasSize(6);
    assertThat(j.path("edges")).hasSize(5);
    JsonNode e = j.path("edges").get(2);
    assertThat(e.path("kind").asText()).isEqualTo("kernel");
    assertThat(e.path("name").asText()).isEqualTo("vector_add");
    assertThat(e.path("source").asText()).isEqualTo("n1");
    assertThat(j.path("nodes").get(0).path("memory").asText()).isEqualTo("pageable");
  }

  @Test
  void dotLabelsValuesAndOperationsAsInFigure61() throws Exception {
    Dvdg g = DvdgTest.figure61().build(tmp);
    StringWriter w = new StringWriter();
    DotExport.write(g, CallSites.none(), w);
    String dot = w.toString();
    assertThat(dot).startsWith("strict digraph dvdg {");
    assertThat(dot).contains("n1 -> n4 [").contains("label=\"vector_add\"")
        .contains("label=\"alloc 5 v1\ngpu0 device 1024 B\"");
  }
}
