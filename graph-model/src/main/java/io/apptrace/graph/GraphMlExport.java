package io.apptrace.graph;

import java.io.Writer;
import java.util.Objects;
import org.jgrapht.nio.graphml.GraphMLExporter;

/**
 * Writes a DVDG as GraphML through JGraphT's exporter, with typed attributes (keys declared with
 * their types, readable by networkx's read_graphml, Gephi and yEd).
 */
public final class GraphMlExport {
  private GraphMlExport() {}

  public static void write(Dvdg g, CallSites sites, Writer out) {
    Objects.requireNonNull(g, "g");
    DvdgAttributes attrs = new DvdgAttributes(g, Objects.requireNonNull(sites, "sites"));
    GraphMLExporter<Integer, Integer> x = new GraphMLExporter<>(DvdgAttributes::vertexId);
    x.setEdgeIdProvider(DvdgAttributes::edgeId);
    // JGraphT keys attributes by name: a name nodes and edges share is declared once for both.
    java.util.Set<String> edgeNames = new java.util.HashSet<>();
    DvdgAttributes.EDGE.forEach(a -> edgeNames.add(a.name()));
    java.util.Set<String> shared = new java.util.HashSet<>();
    for (DvdgAttributes.Declared a : DvdgAttributes.VERTEX) {
      boolean both = edgeNames.contains(a.name());
      if (both) {
        shared.add(a.name());
      }
      x.registerAttribute(a.name(), both ? GraphMLExporter.AttributeCategory.ALL
          : GraphMLExporter.AttributeCategory.NODE, a.type());
    }
    for (DvdgAttributes.Declared a : DvdgAttributes.EDGE) {
      if (!shared.contains(a.name())) {
        x.registerAttribute(a.name(), GraphMLExporter.AttributeCategory.EDGE, a.type());
      }
    }
    x.setVertexAttributeProvider(attrs::vertex);
    x.setEdgeAttributeProvider(attrs::edge);
    x.exportGraph(g.graph(), Objects.requireNonNull(out, "out"));
  }
}
