package io.apptrace.graph;

import java.util.List;
import java.util.Map;
import org.jgrapht.Graph;
import org.jgrapht.nio.Attribute;
import org.jgrapht.nio.AttributeType;

/**
 * A graph as the exporters write it ({@link GraphMlExport}, {@link DotExport}, {@link JsonExport}):
 * its JGraphT view, the attributes of its vertices and edges declared with their types, and each
 * one's values.
 */
public interface AttributedGraph {
  /** A declared attribute: its name and type. */
  record Declared(String name, AttributeType type) {}

  Graph<Integer, Integer> graph();

  /** Every vertex attribute, in the order GraphML declares them. */
  List<Declared> vertexAttributes();

  /** Every edge attribute, in the order GraphML declares them. */
  List<Declared> edgeAttributes();

  Map<String, Attribute> vertex(int v);

  Map<String, Attribute> edge(int e);
}
