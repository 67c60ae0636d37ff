package io.apptrace.graph;

import java.io.StringReader;
import java.util.HashMap;
import java.util.Map;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.builder.GraphTypeBuilder;
import org.jgrapht.nio.graphml.GraphMLImporter;
import org.jgrapht.util.SupplierUtil;

/**
 * An exported GraphML document read back through JGraphT's importer, as a script would: the graph,
 * and each vertex's and edge's attributes as text.
 */
public record GraphMlReadBack(Graph<String, DefaultEdge> graph, Map<String, Map<String, String>> nodes,
    Map<DefaultEdge, Map<String, String>> edges) {
  public static GraphMlReadBack of(String graphml) {
    Graph<String, DefaultEdge> back = GraphTypeBuilder.<String, DefaultEdge>directed()
        .allowingMultipleEdges(true).allowingSelfLoops(false)
        .vertexSupplier(SupplierUtil.createStringSupplier()).edgeSupplier(DefaultEdge::new).buildGraph();
    Map<String, Map<String, String>> nodes = new HashMap<>();
    Map<DefaultEdge, Map<String, String>> edges = new HashMap<>();
    GraphMLImporter<String, DefaultEdge> importer = new GraphMLImporter<>();
    importer.setVertexFactory(id -> id);
    importer.addVertexAttributeConsumer((p, a) ->
        nodes.computeIfAbsent(p.getFirst(), k -> new HashMap<>()).put(p.getSecond(), a.getValue()));
    importer.addEdgeAttributeConsumer((p, a) ->
        edges.computeIfAbsent(p.getFirst(), k -> new HashMap<>()).put(p.getSecond(), a.getValue()));
    importer.importGraph(back, new StringReader(graphml));
    return new GraphMlReadBack(back, nodes, edges);
  }
}
